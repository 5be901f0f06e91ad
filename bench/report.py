"""Adds the PyTorch way of doing each benchmarked op (timed the same way:
CUDA events, warm-up, median of 30) to bench_ops' rows and prints the table."""
import json
import statistics
import sys

import torch
import torch.nn.functional as F


def median_ms(fn, reps=30):
    for _ in range(5):
        fn()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def torch_ms(op, dtype):
    dt = {"f32": torch.float32, "bf16": torch.bfloat16}[dtype]
    x = torch.randn(8, 4096, 8192, device="cuda", dtype=dt)
    if op == "pad_constant":
        return median_ms(lambda: F.pad(x, (3, 5, 0, 0, 1, 1)))
    if op == "pad_reflect":
        return median_ms(lambda: F.pad(x[None], (3, 5, 0, 0, 1, 1), mode="reflect"))
    dy = torch.randn(10, 4096, 8200, device="cuda", dtype=dt)
    if op == "pad_backward_constant":
        return median_ms(lambda: dy[1:9, :, 3:8195].contiguous())
    if op == "pad_backward_reflect":
        return median_ms(lambda: torch.ops.aten.reflection_pad3d_backward(dy[None], x[None], [3, 5, 0, 0, 1, 1]))
    if op == "write_slice":
        src = torch.randn(8, 2900, 7983, device="cuda", dtype=dt)
        return median_ms(lambda: x[:, 100:3000, 17:8000].copy_(src))
    return None


def main(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    copy = {r["dtype"]: r["bytes"] / r["ms"] / 1e6 for r in rows if r["op"] == "copy_d2d"}
    print("| op | dtype | shape | ms | GB/s | % of copy | PyTorch ms | speed-up vs PyTorch |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        if r["op"] == "host_overhead":
            continue
        gbs = r["bytes"] / r["ms"] / 1e6
        tms = torch_ms(r["op"], r["dtype"])
        torch_cols = f"{tms:.3f} | {tms / r['ms']:.2f}x" if tms else "- | -"
        print(f"| {r['op']} | {r['dtype']} | {r['shape']} | {r['ms']:.3f} | {gbs:.0f} | "
              f"{100 * gbs / copy[r['dtype']]:.1f}% | {torch_cols} |")
        torch.cuda.empty_cache()
    for r in rows:
        if r["op"] == "host_overhead":
            print(f"\nhost time per call: baracuda_plan_run {r['plan_run_us']:.2f} us, "
                  f"bare kernel launch {r['bare_launch_us']:.2f} us")


if __name__ == "__main__":
    main(sys.argv[1])
