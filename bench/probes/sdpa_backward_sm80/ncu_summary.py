"""What each kernel of an ncu source page spent (SASS level):

    ncu -i rep.ncu-rep --page source --csv --print-source sass > page.csv
    python3 ncu_summary.py page.csv <listing dir> [label ...]

Per kernel (labels in profile order): warp instructions and stall samples,
the opcodes by count with their share of the samples, the stall reasons,
the samples between block barriers, and the hottest instructions; the whole
executed listing (address, count, samples, top stalls, SASS) goes to
<listing dir>/<label>.txt for a closer look.
"""
import collections
import csv
import os
import re
import sys


def read(path):
    kernels, cur = [], None
    for r in csv.reader(open(path, errors="replace")):
        if r and r[0] == "Kernel Name":
            cur = {"name": r[1], "rows": []}
            kernels.append(cur)
        elif r and r[0] == "Address" and cur is not None:
            cur["hdr"] = r
        elif cur is not None and "hdr" in cur and len(r) == len(cur["hdr"]):
            cur["rows"].append(r)
    return kernels


def opcode(sass):
    s = re.sub(r"^@!?U?P\w+\s+", "", sass.strip())
    return s.split(" ")[0].split(".")[0] if s else "?"


def num(x):
    try:
        return float(x.replace(",", ""))
    except ValueError:
        return 0.0


def summarize(k, label, out_dir):
    h = k["hdr"]
    col = {name: i for i, name in enumerate(h)}
    ex, sm = col["Instructions Executed"], col["Warp Stall Sampling (All Samples)"]
    stalls = [i for i, c in enumerate(h) if c.startswith("stall_") and "Not Issued" not in c]
    rows = k["rows"]
    total = sum(num(r[ex]) for r in rows) or 1.0
    samples = sum(num(r[sm]) for r in rows) or 1.0
    print(f"\n== {label}: {k['name'][:90]}\n   {total / 1e6:.2f} M warp instructions, {samples:.0f} samples")
    ops, op_samples = collections.Counter(), collections.Counter()
    reasons = collections.Counter()
    for r in rows:
        o = opcode(r[1])
        ops[o] += num(r[ex])
        op_samples[o] += num(r[sm])
        for i in stalls:
            reasons[h[i][6:]] += num(r[i])
    print("   opcodes (M, % instr, % samples): " + ", ".join(
        f"{o} {c / 1e6:.2f} {c / total * 100:.0f}% {op_samples[o] / samples * 100:.0f}%" for o, c in ops.most_common(22)))
    print("   stalls (% samples): " + ", ".join(f"{n} {v / samples * 100:.1f}" for n, v in reasons.most_common(12)))
    seg, seg_i, n_bar = collections.Counter(), 0.0, 0
    print("   segments ending at a barrier (% samples, M instr, top stalls):")
    for idx, r in enumerate(rows):
        for i in stalls:
            seg[h[i][6:]] += num(r[i])
        seg_i += num(r[ex])
        if "BAR." in r[1] or idx == len(rows) - 1:
            part = sum(seg.values())
            if part / samples > float(os.environ.get("SEG_MIN", "0.005")) or seg_i / total > 0.005:
                top = ", ".join(f"{n} {v / samples * 100:.1f}" for n, v in seg.most_common(4))
                print(f"     @{r[0][-5:]} {r[1].strip()[:24]:24s} {part / samples * 100:5.1f}% {seg_i / 1e6:7.2f} M: {top}")
            seg, seg_i = collections.Counter(), 0.0
            n_bar += 1
    hot = sorted(rows, key=lambda r: -num(r[sm]))[:int(os.environ.get("HOT", "24"))]
    print("   hottest (samples %, count, top stalls, SASS):")
    for r in hot:
        top = sorted(((num(r[i]), h[i][6:]) for i in stalls), reverse=True)[:2]
        print(f"     {r[0][-5:]} {num(r[sm]) / samples * 100:4.1f}% x{num(r[ex]):9.0f} "
              f"{'/'.join(f'{n} {v:.0f}' for v, n in top):34s} {r[1].strip()[:70]}")
    if out_dir:
        with open(os.path.join(out_dir, f"{label}.txt"), "w") as f:
            for r in rows:
                if num(r[ex]) == 0 and num(r[sm]) == 0:
                    continue
                top = sorted(((num(r[i]), h[i][6:]) for i in stalls), reverse=True)[:3]
                f.write(f"{r[0][-5:]} {num(r[ex]):9.0f} {num(r[sm]):6.0f} "
                        f"{'/'.join(f'{n}:{v:.0f}' for v, n in top if v > 0):40s} {r[1].strip()[:90]}\n")


def main():
    kernels = read(sys.argv[1])
    out_dir = sys.argv[2] if len(sys.argv) > 2 else ""
    labels = sys.argv[3:]
    for i, k in enumerate(kernels):
        if "hdr" in k:
            summarize(k, labels[i] if i < len(labels) else f"kernel{i}", out_dir)


if __name__ == "__main__":
    main()
