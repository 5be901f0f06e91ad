"""PyTorch's side of bench/shape_grid's rows: F.pad, its gradient (autograd
through F.pad, so the aten backward PyTorch itself runs) and slice assignment
for the KV-cache appends, timed as bench_ops times (CUDA events, warm-up,
median). Reads shape_grid's JSON rows, writes one row per line with
"torch_ms" for bench/report.py's third argument:

    build/bench/shape_grid > grid.jsonl
    python3 bench/torch_shape_grid.py grid.jsonl > torch_grid.jsonl
    python3 bench/report.py grid.jsonl "" torch_grid.jsonl

A row PyTorch cannot run (reflect, replicate and circular pad at most the
three innermost axes of a tensor of one or two more dimensions) is left out."""
import json
import re
import sys

import torch
import torch.nn.functional as F

from report import median_ms

DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}


def parse_pad(shape):
    """([extents], {axis: (low, high)}) from '[a,b,c] pads 1:(3,5) ...'."""
    extents = [int(n) for n in re.match(r"\[([\d,]+)\]", shape).group(1).split(",")]
    pads = {int(a): (int(lo), int(hi)) for a, lo, hi in re.findall(r"(\d+):\((\d+),(\d+)\)", shape)}
    return extents, pads


def pad_call(extents, pads, mode, dtype):
    """(a function running F.pad on this problem, its input), or None when PyTorch has no
    kernel for it. Reflect, replicate and circular take 1 to 3 padded axes behind one or
    two more: the axes before them are folded into one, or one is added."""
    first = min(pads)
    flat = []
    for axis in reversed(range(first, len(extents))):
        flat += list(pads.get(axis, (0, 0)))
    x = torch.randn(extents, device="cuda", dtype=dtype)
    if mode != "constant":
        if len(extents) - first > 3:
            return None
        x = x.reshape(-1, *extents[first:]) if first else x[None]
    return (lambda: F.pad(x, flat, mode=mode)), x


def main(path):
    for line in open(path):
        if not line.strip():
            continue
        r = json.loads(line)
        op, dtype, shape = r["op"], r["dtype"], r["shape"]
        if dtype not in DTYPES:
            continue
        dt = DTYPES[dtype]
        if op.startswith("pad"):
            backward = op.startswith("pad_backward")
            mode = op.rsplit("_", 1)[1]
            extents, pads = parse_pad(shape)
            made = pad_call(extents, pads, mode, dt)
            if made is None:
                continue
            call, x = made
            if backward:
                x.requires_grad_(True)
                y = call()
                dy = torch.randn_like(y)
                ms = median_ms(lambda: torch.autograd.grad(y, x, dy, retain_graph=True))
            else:
                ms = median_ms(call)
        elif op == "write_slice":
            n, at = (int(v) for v in re.search(r"append (\d+) at (\d+)", shape).groups())
            cache = torch.randn(16, 32, 4096, 128, device="cuda", dtype=dt)
            src = torch.randn(16, 32, n, 128, device="cuda", dtype=dt)
            ms = median_ms(lambda: cache[:, :, at:at + n].copy_(src), reps=200 if n < 128 else 30)
        else:
            continue
        print(json.dumps({"op": op, "dtype": dtype, "shape": shape, "torch_ms": ms}), flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1])
