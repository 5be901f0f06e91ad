"""cuobjdump -sass of objects: per kernel whose name matches a pattern, its instruction count (static), and, with
--dump DIR, the kernels' SASS into DIR (one file each, the object's name first).

    python3 sass_count.py PATTERN [--dump DIR] OBJECT..."""
import re
import subprocess
import sys

args = sys.argv[1:]
pattern = re.compile(args.pop(0))
dump = None
if args and args[0] == "--dump":
    dump = args[1]
    args = args[2:]
for obj in args:
    try:
        text = subprocess.run(["cuobjdump", "-sass", obj], capture_output=True, text=True, timeout=60).stdout
    except Exception as e:  # noqa: BLE001
        print(f"{obj}: {e}")
        continue
    name, lines = None, []
    out = {}
    for line in text.splitlines():
        m = re.match(r"\s+Function : (\S+)", line)
        if m:
            name = m.group(1) if pattern.search(m.group(1)) else None
            if name:
                out[name] = []
            continue
        if name and re.match(r"\s+/\*[0-9a-f]{4,}\*/", line):
            out[name].append(line)
    tag = obj.split("/")[-1].replace(".o", "")
    for n, ls in out.items():
        short = re.sub(r"^_ZN\w*?conv1d\d+", "", n)[:90]
        ops = {}
        for l in ls:
            m = re.match(r"\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_]+)", l)
            if m:
                op = m.group(1)
                ops[op] = ops.get(op, 0) + 1
        top = " ".join(f"{k}:{v}" for k, v in sorted(ops.items(), key=lambda kv: -kv[1])[:12])
        print(f"{tag} {short}: {len(ls)} instructions; {top}")
        if dump:
            with open(f"{dump}/{tag}_{short[:60]}.sass", "w") as f:
                f.write("\n".join(ls) + "\n")
