# ncu_source.py page.csv: what each kernel of an ncu source page spent, from
#   ncu -o rep --section SourceCounters <probe> ...   (trees built by build.sh, -lineinfo)
#   ncu -i rep.ncu-rep --page source --csv --print-source sass > page.csv
# Per kernel: warp instructions and stall samples between barriers (the tiles
# kernel's phases: rows' sources, listing, staging, its wait, the band's sums,
# the vectors), the top stall reasons of each, and the global and shared
# traffic of its copies and stores against the ideal (session 20 found the
# staging's cp.async at twice its ideal L2 sectors this way).
import collections
import csv
import sys

kernels, cur = [], None
for r in csv.reader(open(sys.argv[1], errors="replace")):
    if r and r[0] == "Kernel Name":
        cur = {"name": r[1][:70], "rows": []}
        kernels.append(cur)
    elif r and r[0] == "Address":
        cur["hdr"] = r
    elif cur is not None and len(r) > 5:
        cur["rows"].append(r)
for k in kernels:
    h = k["hdr"]
    col = {name: h.index(name) for name in h}
    executed, samples = col["Instructions Executed"], col["Warp Stall Sampling (All Samples)"]
    stalls = [i for i, c in enumerate(h) if c.startswith("stall_") and "Not Issued" not in c]
    total_samples = sum(float(r[samples]) for r in k["rows"]) or 1.0
    total = sum(float(r[executed]) for r in k["rows"])
    print(f"== {k['name']}: {total / 1e6:.2f} M warp instructions, {total_samples:.0f} samples")
    seg = collections.Counter()
    for r in k["rows"]:
        for i in stalls:
            seg[h[i][6:]] += float(r[i])
        seg[" instr"] += float(r[executed])
        if "BAR." in r[1] or r is k["rows"][-1]:
            part = sum(v for name, v in seg.items() if name != " instr")
            top = ", ".join(f"{name} {v / total_samples * 100:.1f}" for name, v in seg.most_common(6) if name != " instr")
            print(f"  {part / total_samples * 100:5.1f}% samples {seg[' instr'] / 1e6:7.2f} M instr: {top}")
            seg = collections.Counter()
    names = ["L2 Theoretical Sectors Global", "L2 Theoretical Sectors Global Ideal", "L1 Wavefronts Shared",
             "L1 Wavefronts Shared Ideal"]
    for r in k["rows"]:
        op = r[1].strip()
        if ("LDGSTS" in op or "STG" in op) and float(r[executed]) > 0:
            print(f"  {op[:40]:40s} x{float(r[executed]):9.0f}: " +
                  ", ".join(f"{n.replace('Theoretical ', '')} {float(r[col[n]]):.3g}" for n in names))
