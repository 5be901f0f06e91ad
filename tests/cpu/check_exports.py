"""Only baracuda_* symbols leave the shared library."""
import subprocess
import sys

lib = sys.argv[1]
out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True, capture_output=True, text=True).stdout
symbols = [line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()]
foreign = [s for s in symbols if not s.startswith("baracuda_") and s != "BARACUDA_0"]
if foreign:
    print("exported symbols outside the baracuda_ prefix:", *foreign[:20], sep="\n  ")
    sys.exit(1)
print(f"{len(symbols)} exported symbols, all baracuda_*")
