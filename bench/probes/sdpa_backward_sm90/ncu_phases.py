# ncu_phases.py page.csv: where a warp-specialized kernel's warps stall, by
# phase. page.csv from
#   ncu -o rep --section SourceCounters ...; ncu -i rep.ncu-rep --page source --csv --print-source sass
# The SASS is cut at every wait (wgmma's WARPGROUP.DEPBAR, named barriers,
# mbarrier try-waits): each segment's share of the stall samples, its
# instructions executed, what it holds (HGMMA, MUFU, STSM, ...) and its top
# stall reasons.
import collections
import csv
import re
import sys

kernels, cur = [], None
for r in csv.reader(open(sys.argv[1], errors="replace")):
    if r and r[0] == "Kernel Name":
        cur = {"name": r[1][:90], "rows": []}
        kernels.append(cur)
    elif r and r[0] == "Address":
        cur["hdr"] = r
    elif cur is not None and "hdr" in cur and len(r) > 5:
        cur["rows"].append(r)
CUT = re.compile(r"WARPGROUP\.DEPBAR|BAR\.SYNC|BAR\.ARV|BAR\.RED|SYNCS\.PHASECHK|SYNCS\.ARRIVE|NANOSLEEP|UBLKRED|UTMAREDG|UTMALDG|EXIT|BRA")
KINDS = ["HGMMA", "MUFU", "STSM", "STS", "LDS", "F2FP", "FFMA", "FMUL", "FADD", "STG", "LDG", "RED", "UTMA", "UBLK", "SYNCS", "BAR", "STL", "LDL", "BRA"]
for k in kernels:
    h = k["hdr"]
    col = {name: i for i, name in enumerate(h)}
    def num(r, name):
        try:
            return float(r[col[name]])
        except (KeyError, ValueError, IndexError):
            return 0.0
    samples_name = "Warp Stall Sampling (All Samples)"
    stalls = [i for i, c in enumerate(h) if c.startswith("stall_") and "Not Issued" not in c]
    total_s = sum(num(r, samples_name) for r in k["rows"]) or 1.0
    total_i = sum(num(r, "Instructions Executed") for r in k["rows"])
    print(f"== {k['name']}: {total_i / 1e6:.2f} M warp instructions, {total_s:.0f} samples, {len(k['rows'])} SASS lines")
    whole = collections.Counter()
    for r in k["rows"]:
        for i in stalls:
            whole[h[i][6:]] += float(r[i] or 0)
    print("  whole kernel: " + ", ".join(f"{n} {v / total_s * 100:.1f}%" for n, v in whole.most_common(10)))
    segs, seg = [], None
    for idx, r in enumerate(k["rows"]):
        op = r[col["Source"]].strip()
        if seg is None or CUT.search(op):
            seg = {"start": idx, "first": op[:60], "s": 0.0, "i": 0.0, "kinds": collections.Counter(), "st": collections.Counter()}
            segs.append(seg)
        seg["s"] += num(r, samples_name)
        seg["i"] += num(r, "Instructions Executed")
        opc = op.split()[0] if op else ""
        if opc.startswith("@"):
            opc = op.split()[1] if len(op.split()) > 1 else ""
        for kind in KINDS:
            if opc.startswith(kind):
                seg["kinds"][kind] += 1
                break
        for i in stalls:
            seg["st"][h[i][6:]] += float(r[i] or 0)
    shown = 0
    for sg in segs:
        if sg["s"] / total_s < 0.006:
            continue
        shown += sg["s"]
        kinds = " ".join(f"{n}{c}" for n, c in sg["kinds"].most_common(6))
        top = ", ".join(f"{n} {v / total_s * 100:.1f}" for n, v in sg["st"].most_common(3))
        print(f"  @{sg['start']:5d} {sg['s'] / total_s * 100:5.1f}% {sg['i'] / max(total_i, 1) * 100:5.1f}%i | {sg['first'][:44]:44s} | {kinds[:40]:40s} | {top}")
    print(f"  (segments under 0.6% left out: {100 - shown / total_s * 100:.1f}% of samples)")
