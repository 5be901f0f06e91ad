"""Attention's contenders timed in one process and in turn: for every row of
the attention table (bench/torch_sdpa.py's attention_rows: bf16, both causal
modes, and the f32 rows), forward and backward, our plans through the Python
binding (the default plan, the default deterministic backward, and each
candidate forced as bench_ops' sdpa_candidates forces it) and PyTorch's
backends, each captured once in a CUDA graph and the graphs replayed in
turn: round-robin over the row's contenders, every other round in reverse
order, each contender's figure the median of its replays, with the GPU's SM
clock and power sampled (NVML) while it ran. The two-process measure
(bench_ops, then torch_sdpa.py) met the GPU's power-capped clock at different
moments: the same sm_80 D 256 kernel read 0.89x FlashAttention-2 that way and
1.02x in one process (bench/NOTES.md, session 22).

Before timing, each contender's result is compared with PyTorch's (flash for
bf16, math for f32): a candidate far off is reported, not timed.

Writes two files that bench/report.py reads unchanged:
  --ours PATH   our rows in bench_ops' JSON format (report.py's first argument):
                sdpa_forward / sdpa_backward / sdpa_backward_deterministic rows of
                the default plans, and sdpa_grid rows of each forced candidate
  --torch PATH  PyTorch's rows in bench/torch_sdpa.py's format and its GEMM rate
                (report.py's second argument)
Each row also carries sm_mhz, power_w (medians of the samples), err (max abs
difference from the reference over its largest magnitude), ms_settled (the
median of each round's later half of replays, where the clock is the
contender's own rather than the one before it), round_ms and reps. Stdout: a
markdown row per contender (TFLOP/s, clock, power, error, x flash, x cuDNN);
stderr: each row's progress. bench_ops' f32_strict rows are not here: the
binding names a float32 tensor f32, which an f32_strict plan refuses.
The whole grid took 53 s at 6 rounds on an H200 (session 23).

    BARACUDA_LIBRARY=build/libbaracuda_kernels.so.0 PYTHONPATH=bindings/python \\
        python3 bench/sdpa_same_process.py --ours ours.jsonl --torch torch.jsonl > turns.md
    python3 bench/report.py ours.jsonl torch.jsonl
"""
import argparse
import json
import statistics
import sys
import time
import traceback

import torch

from gpu_clock import GpuClock  # bench/ is this script's folder, so first on sys.path
from graph_turns import time_in_turn
from sdpa_contenders import capture_all, check, forced_plan, our_contenders, torch_contender
from torch_sdpa import attention_rows, emit_gemm_rate, shape_name


def grid_shape(dtype, B, H, S, D, causal):
    """bench_ops' sdpa_grid shape name."""
    return f"{dtype} D{D} {'causal' if causal else 'non-causal'} BH{B * H} Q{S} K{S}"


def write(f, row):
    f.write(json.dumps(row) + "\n")
    f.flush()


def write_rows(ours_file, torch_file, contenders, refused, op, dtype, shape, grid, work, grid_work):
    """Each contender's JSON row: PyTorch's in torch_sdpa.py's format, ours in bench_ops' (the default plans as
    sdpa_forward / sdpa_backward[_deterministic] rows, each forced candidate as an sdpa_grid row)."""
    for c in contenders:
        ms, mhz, watts = c.row()
        extra = {"sm_mhz": mhz, "power_w": watts, "err": c.err, "reps": len(c.times),
                 "ms_settled": statistics.median(c.settled) if c.settled else None,
                 "round_ms": [round(x, 4) for x in c.round_ms]}
        if c.side == "torch":
            if ms is not None:
                write(torch_file, {"op": op, "dtype": dtype, "shape": shape, "backend": c.name, "ms": ms,
                                   "flops": work, **extra})
            continue
        kernel = c.info["kernel_name"]
        if ms is not None:
            for d in c.defaults:
                write(ours_file, {"op": op + ("_deterministic" if "deterministic" in d else ""), "dtype": dtype,
                                  "shape": shape, "ms": ms, "bytes": 0, "flops": work, "kernel": kernel, **extra})
        if not c.name.startswith("default"):
            g = {"op": "sdpa_grid", "candidate": c.name, "shape": grid}
            g.update({"refused": c.refused} if ms is None else
                     {"ms": ms, "tflops": grid_work / ms / 1e9, "kernel": kernel, **extra})
            write(ours_file, g)
    for name, why in refused.items():
        if not name.startswith("default"):
            write(ours_file, {"op": "sdpa_grid", "candidate": name, "shape": grid, "refused": why})


def summary_lines(contenders, refused, label, work):
    """A markdown row per contender: TFLOP/s (median of all replays, and of each round's later half), clock,
    power, error, and its speed against PyTorch's flash and cuDNN backends in the same turns."""
    theirs = {c.name: c.row()[0] for c in contenders if c.side == "torch"}
    lines = []
    for c in contenders:
        ms, mhz, watts = c.row()
        if ms is None:
            lines.append(f"| {label} | {c.side} {c.name} | refused: {c.refused} |||||||")
            continue
        settled = statistics.median(c.settled)
        vs = [f"{theirs[b] / ms:.2f}x" if theirs.get(b) else "-"
              for b in (("flash", "cudnn") if "flash" in theirs else ("efficient", "math"))]
        also = f" ({', '.join(c.defaults)})" if c.defaults and c.defaults != [c.name] else ""
        lines.append(f"| {label} | {c.side} {c.name}{also} | {ms:.3f} | {work / ms / 1e9:.0f} | "
                     f"{work / settled / 1e9:.0f} | {mhz or 0:.0f} | {watts or 0:.0f} | {c.err:.1e} | {vs[0]} | "
                     f"{vs[1]} |")
    lines += [f"| {label} | ours {n} | refused: {why[:100]} |||||||" for n, why in refused.items()]
    return lines


def row_contenders(baracuda, name, dtype, B, H, S, D, causal, backward, backends, stream):
    """A row's contenders on fresh standard-normal tensors, each run once and checked against PyTorch's
    reference backend (flash for bf16, math for f32); ours too unless baracuda is None. Also returns the
    reasons select refused candidates."""
    torch.manual_seed(0)
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=dtype, requires_grad=backward) for _ in range(3))
    dout = torch.randn(B, H, S, D, device="cuda", dtype=dtype) if backward else None
    ref_backend = "flash" if name == "bf16" else "math"
    contenders = [torch_contender(b, q, k, v, causal, backward, dout, stream)
                  for b in dict.fromkeys((ref_backend,) + tuple(backends))]
    reference = contenders[0].result
    if ref_backend not in backends:
        contenders = contenders[1:]
    refused = {}
    if baracuda is not None:
        out = lse = None
        if backward:  # the backward's out and lse come from our default forward plan, as in bench_ops
            fwd, why = forced_plan(baracuda, "sdpa", None, 0, dict(dtype=name, head_dim=D, causal=int(causal),
                                                                      batch=B, heads_q=H, queries=S, keys=S))
            if fwd is None:
                raise RuntimeError(f"the default forward plan: {why}")
            out = torch.empty_like(q)
            lse = torch.empty(B, H, S, device="cuda", dtype=torch.float32)
            fwd.run(workspace=torch.empty(max(fwd.workspace_size, 16), dtype=torch.uint8, device="cuda"),
                    Q=q.detach(), K=k.detach(), V=v.detach(), OUT=out, LSE=lse)
        ours, refused = our_contenders(baracuda, name, B, H, S, D, causal, backward,
                                       (q.detach(), k.detach(), v.detach(), out, lse, dout))
        for c in ours:
            try:
                c.call()
            except baracuda.BaracudaError as e:
                c.refused = f"run: {e.message}"
        torch.cuda.synchronize()
        contenders += ours
    check(contenders, reference, name)
    return contenders, refused


def run_row(baracuda, row, args, clock, ours_file, torch_file):
    """One row of attention_rows, forward (and backward for bf16): contenders made, captured, timed in turn,
    their JSON rows written and their markdown rows printed."""
    dtype, name, (B, H, S, D), causal, backends = row
    shape = shape_name(B, H, S, D, causal)
    flops = 4.0 * B * H * S * S * D / (2 if causal else 1)
    pairs = S * S - S * (S - 1) / 2 if causal else S * S  # bench_ops' grid counts the pairs seen
    label = shape.replace(" ", "").replace("non-causal", " nc").replace("causal", " c")
    for backward in (False, True) if name == "bf16" else (False,):
        t0 = time.perf_counter()
        stream = torch.cuda.Stream()
        contenders, refused = row_contenders(baracuda, name, dtype, B, H, S, D, causal, backward, backends, stream)
        capture_all(contenders, stream)
        time_in_turn(contenders, clock, args.rounds, args.batch_ms, args.warm_ms)
        op = "sdpa_backward" if backward else "sdpa_forward"
        work = 2.5 * flops if backward else flops
        grid_work = 4.0 * B * H * D * pairs * (2.5 if backward else 1)
        write_rows(ours_file, torch_file, contenders, refused, op, name, shape,
                   grid_shape(name, B, H, S, D, causal), work, grid_work)
        summary(summary_lines(contenders, refused, f"{'bwd' if backward else 'fwd'} {name} {label}", work))
        print(f"sdpa_same_process: {op} {name} {shape}: {len(contenders)} contenders, "
              f"{time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
        del contenders  # graphs, plans and tensors freed before the next row's
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def summary(lines):
    """Markdown rows to stdout as each row ends, so that a run cut short still shows its rows."""
    print("\n".join(lines), flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ours", required=True, help="our rows, bench_ops' format")
    p.add_argument("--torch", required=True, help="PyTorch's rows, torch_sdpa.py's format")
    p.add_argument("--rounds", type=int, default=8)
    p.add_argument("--batch-ms", type=float, default=10.0, help="GPU time of one contender's replays in a round")
    p.add_argument("--warm-ms", type=float, default=150.0, help="warm-up of a row's graphs in turn")
    p.add_argument("--rows", default="", help="only these rows of attention_rows (comma-separated numbers)")
    p.add_argument("--no-ours", action="store_true", help="PyTorch's side alone (no library)")
    args = p.parse_args()
    baracuda = None
    if not args.no_ours:
        import baracuda
    props = torch.cuda.get_device_properties(0)
    bus = f"{props.pci_domain_id:08x}:{props.pci_bus_id:02x}:{props.pci_device_id:02x}.0" \
        if hasattr(props, "pci_bus_id") else None
    clock = GpuClock(bus)
    print(f"sdpa_same_process: {props.name}, NVML {clock.error or 'power ' + clock.power_kind()}", file=sys.stderr)
    rows = attention_rows()
    if args.rows:
        rows = [rows[int(i)] for i in args.rows.split(",")]
    summary(["| row | contender | ms | TFLOP/s | settled | MHz | W | err | x flash (f32: efficient) | "
             "x cuDNN (f32: math) |", "|" + "---|" * 10])
    with open(args.ours, "w") as ours_file, open(args.torch, "w") as torch_file:
        emit_gemm_rate(lambda *a: write(torch_file, dict(zip(("op", "dtype", "shape", "backend", "ms", "flops"), a))))
        for row in rows:
            try:
                run_row(baracuda, row, args, clock, ours_file, torch_file)
            except Exception:  # one row's failure is reported; the other rows still run
                traceback.print_exc()
                summary([f"| {row[1]} {row[2]} causal={row[3]} | failed: see stderr |||||||||"])
                torch.cuda.synchronize()
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
