"""Adds the PyTorch way of doing each benchmarked op (timed the same way:
CUDA events, warm-up, median of 30) to bench_ops' rows and prints the table;
attention rows go to a table of their own, beside PyTorch's sdpa backends
read from bench/torch_sdpa.py's output (the optional second argument), and
sdpa_candidates' forced candidates to a third; shape_grid's rows beside
bench/torch_shape_grid.py's output (the optional third argument)."""
import json
import re
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


def conv1d_torch_ms(op, dt, channels_last, W):
    """The PyTorch way: F.conv1d with groups=C, padded by W-1 and sliced, then SiLU (with no SEQ_IDX mask:
    PyTorch has none)."""
    B, C, L = 8, 4096, 8192
    if op == "causal_conv1d_update":
        x = torch.randn(64, 8192, device="cuda", dtype=dt)
        state = torch.randn(64, 8192, W - 1, device="cuda", dtype=dt)
        w = torch.randn(8192, W, device="cuda", dtype=dt)
        b = torch.randn(8192, device="cuda", dtype=dt)

        def step():
            window = torch.cat([state, x[..., None]], dim=-1)
            state.copy_(window[..., 1:])
            return F.silu((window * w).sum(-1) + b)
        return median_ms(step, reps=200)
    x = torch.randn(B, L, C, device="cuda", dtype=dt).transpose(1, 2) if channels_last else \
        torch.randn(B, C, L, device="cuda", dtype=dt)
    w = torch.randn(C, 1, W, device="cuda", dtype=dt)
    b = torch.randn(C, device="cuda", dtype=dt)

    def forward():
        return F.silu(F.conv1d(x, w, b, padding=W - 1, groups=C)[..., :L])
    if op == "causal_conv1d_forward":
        return median_ms(forward)
    x.requires_grad_(True)
    w.requires_grad_(True)
    b.requires_grad_(True)
    y = forward()
    dy = torch.randn_like(y)
    return median_ms(lambda: torch.autograd.grad(y, (x, w, b), dy, retain_graph=True))


def alibi_torch_ms(op, dt, shape):
    """The PyTorch way: scores + slopes.view(1, H, 1, 1) * bias with bias a precomputed [Q, K] tensor of
    j - i; backward dy.clone() and (dy * bias).sum((0, 2, 3))."""
    decode = shape.startswith("decode")
    B, H, Q, K = (1, 32, 1, 32768) if decode else (4, 32, 2048, 2048)
    reps = 200 if decode else 30
    bias = (torch.arange(K, device="cuda")[None, :] - torch.arange(Q, device="cuda")[:, None]).to(dt)
    x = torch.randn(B, H, Q, K, device="cuda", dtype=dt)
    if op == "alibi_forward":
        slopes = torch.rand(H, device="cuda", dtype=dt)
        return median_ms(lambda: x + slopes.view(1, H, 1, 1) * bias, reps)
    return median_ms(lambda: (x.clone(), (x * bias).sum((0, 2, 3))), reps)


def torch_ms(op, dtype, shape=""):
    dt = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}.get(dtype)
    if dt is None:  # a mix PyTorch has no one call for (bf16 x with f32 weights)
        return None
    if op.startswith("causal_conv1d"):
        width = re.search(r"\bW(\d+)", shape)
        return conv1d_torch_ms(op, dt, "channels-last" in shape, int(width.group(1)) if width else 4)
    if op.startswith("alibi"):
        return alibi_torch_ms(op, dt, shape)
    if shape not in ("[8,4096,8192]", "dest[:,100:3000,17:8000]"):  # shape_grid's rows: no PyTorch side here
        return None
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


def read_torch_sdpa(torch_path):
    """bench/torch_sdpa.py's rows: TFLOP/s per (op, dtype, shape, backend), and the bf16 GEMM rate (None without
    the file)."""
    theirs, gemm = {}, None
    for line in open(torch_path) if torch_path else []:
        if line.strip():
            t = json.loads(line)
            rate = t["flops"] / t["ms"] / 1e9
            if t["op"] == "gemm":
                gemm = rate
            else:
                theirs[(t["op"].replace("_deterministic", ""), t["dtype"], t["shape"], t["backend"])] = rate
    return theirs, gemm


def gemm_share(tflops, gemm):
    return f"{100 * tflops / gemm:.0f}%" if gemm else "-"


def attention_table(rows, theirs, gemm):
    """bench_ops' sdpa rows (they carry flops) beside PyTorch's backends from bench/torch_sdpa.py, each as a
    fraction of the bf16 GEMM rate measured in the same run."""
    backends = ["flash", "cudnn", "efficient", "math"]
    if gemm:
        print(f"\nbf16 GEMM rate (cuBLAS, torch.matmul): {gemm:.0f} TFLOP/s")
    print("\n| op | dtype | shape | kernel | ms | TFLOP/s | % of GEMM | " +
          " | ".join(f"PyTorch {b}" for b in backends) + " | vs flash | vs cuDNN |")
    print("|---|---|---|---|---|---|---|" + "---|" * (len(backends) + 2))
    for r in rows:
        ours = r["flops"] / r["ms"] / 1e9
        key = (r["op"].replace("_deterministic", ""), r["dtype"], r["shape"])
        cols = [theirs.get(key + (b,)) for b in backends]
        ratio = [f"{ours / c:.2f}x" if c else "-" for c in cols[:2]]
        share = gemm_share(ours, gemm) if r["dtype"] == "bf16" else "-"
        print(f"| {r['op']} | {r['dtype']} | {r['shape']} | {r['kernel']} | {r['ms']:.3f} | {ours:.0f} | {share} | " +
              " | ".join(f"{c:.0f}" if c else "-" for c in cols) + f" | {ratio[0]} | {ratio[1]} |")


def candidates_table(rows, gemm):
    """bench_ops sdpa_candidates' rows: each forced candidate per shape, its TFLOP/s (causal rows count the
    pairs seen) and fraction of the bf16 GEMM rate, or why select refused it, then the host time of a run per
    candidate."""
    print("\n| shape | candidate | ms | TFLOP/s | % of GEMM | kernel |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        if r["op"] == "sdpa_grid":
            print(f"| {r['shape']} | {r['candidate']} | refused: {r['refused']} | | | |" if "refused" in r else
                  f"| {r['shape']} | {r['candidate']} | {r['ms']:.3f} | {r['tflops']:.0f} | "
                  f"{gemm_share(r['tflops'], gemm) if r['shape'].startswith('bf16') else '-'} | {r['kernel']} |")
    for r in rows:
        if r["op"] == "sdpa_host_cost":
            print(f"\nhost time of a run, {r['candidate']}: {r['run_us']:.2f} us")


def main(path, torch_path=None, torch_grid_path=None):
    all_rows = [json.loads(line) for line in open(path) if line.strip()]
    # bench/torch_shape_grid.py's PyTorch times for shape_grid's rows
    grid = {(t["op"], t["dtype"], t["shape"]): t["torch_ms"]
            for t in (json.loads(line) for line in open(torch_grid_path) if line.strip())} if torch_grid_path else {}
    candidate_ops = ("sdpa_grid", "sdpa_host_cost")
    rows = [r for r in all_rows if "flops" not in r and r["op"] not in candidate_ops]
    copy = {r["dtype"]: r["bytes"] / r["ms"] / 1e6 for r in rows if r["op"] == "copy_d2d"}
    copy["-"] = 1
    # a row's own same-size copy (shape_grid's rows, timed in turn with them), where there is one
    same = {(r["dtype"], r["shape"]): r["bytes"] / r["ms"] / 1e6 for r in rows if r["op"] == "copy_d2d_same_size"}
    # rows with a same-size copy also show their share of the dtype's large copy (the launch's cost spread thin)
    big = " % of large copy |" if same else ""
    print("| op | dtype | shape | ms | GB/s | % of copy | PyTorch ms | speed-up vs PyTorch |" + big)
    print("|---|---|---|---|---|---|---|---|" + ("---|" if same else ""))
    for r in rows:
        if r["op"] == "host_overhead":
            continue
        gbs = r["bytes"] / r["ms"] / 1e6
        tms = grid.get((r["op"], r["dtype"], r["shape"])) or (
            torch_ms(r["op"], r["dtype"], r["shape"]) if r["dtype"] != "-" else None)
        torch_cols = f"{tms:.3f} | {tms / r['ms']:.2f}x" if tms else "- | -"
        limit = same.get((r["dtype"], r["shape"]), copy.get(r["dtype"]))
        share = f"{100 * gbs / limit:.1f}%" if limit and r["bytes"] else "-"
        if same:
            large = copy.get(r["dtype"])
            torch_cols += f" | {100 * gbs / large:.1f}%" if large and r["bytes"] and r["dtype"] != "-" else " | -"
        print(f"| {r['op']} | {r['dtype']} | {r['shape']} | {r['ms'] * 1000:.1f} us | {gbs:.0f} | {share} | {torch_cols} |"
              if r["ms"] < 0.05 else
              f"| {r['op']} | {r['dtype']} | {r['shape']} | {r['ms']:.3f} | {gbs:.0f} | {share} | {torch_cols} |")
        torch.cuda.empty_cache()
    for r in rows:
        if r["op"] == "host_overhead":
            print(f"\nhost time per call: baracuda_plan_run {r['plan_run_us']:.2f} us, "
                  f"bare kernel launch {r['bare_launch_us']:.2f} us")
    theirs, gemm = read_torch_sdpa(torch_path)
    attention = [r for r in all_rows if "flops" in r]
    if attention:
        attention_table(attention, theirs, gemm)
    candidates = [r for r in all_rows if r["op"] in candidate_ops]
    if candidates:
        candidates_table(candidates, gemm)


if __name__ == "__main__":
    main(*(a or None for a in sys.argv[1:4]))
