"""The grid's backward rows over 256 MB (x, dy and dx) below 1.1x Tri Dao's, from README's whole-grid table
(the last full grid run), with both sides' % of copy: where his is near 100%, 1.1x is out of reach.

    python3 grid_below.py [README.md]
"""
import sys

BYTES = {"bf16": 2, "f16": 2, "f32": 4}


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "README.md"
    lines = open(path).read().split("The whole grid (ms per call", 1)[1].split("</details>", 1)[0].splitlines()
    over, below = 0, []
    for line in lines:
        f = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(f) < 12 or f[0] != "bwd":
            continue
        d, lay, B, C, L, W = f[1], f[2], int(f[3]), int(f[4]), int(f[5]), int(f[6])
        if 3 * B * C * L * BYTES[d] <= 256 << 20:
            continue
        over += 1
        ratio = float(f[9].strip("*x"))
        after = float(f[15].strip("*x")) if len(f) > 15 and f[15] else ratio
        if min(ratio, after) < 1.1:
            below.append(f"{d} {lay} [{B},{C},{L}] W{W}: {ratio:.2f}x / {after:.2f}x after a kernel, "
                         f"% of copy ours {f[10]} his {f[11]}")
    print(f"grid backward rows over 256 MB: {over}; below 1.1x (back to back or after a kernel): {len(below)}")
    for b in below:
        print("  " + b)


if __name__ == "__main__":
    main()
