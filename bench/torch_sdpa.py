"""PyTorch's scaled_dot_product_attention backends on the rows bench_ops times
for the `sdpa` op (the attention table of ../shared/reference/baselines-h200.md,
bf16, both causal modes, and its f32 rows) in one process, and the bf16 GEMM
rate (cuBLAS through torch.matmul) that the attention rows are a fraction of.
Prints one JSON object per (row, backend); bench/report.py merges them with
bench_ops' rows:

    python3 bench/torch_sdpa.py > torch_sdpa.jsonl
    python3 bench/report.py bench.jsonl torch_sdpa.jsonl

Each attention call is timed by its GPU time, as bench_ops times the plan's
kernels: the forward call, or the backward call alone (autograd's, on the
forward's outputs made once beforehand), is captured once into a CUDA graph
and the graph replayed between CUDA events, the replays queued back to back
(median). Timed as a Python call waited for each time (report.median_ms),
autograd's host work ahead of a 0.6-0.8 ms backward counted 11-13% of
FlashAttention-2's D 64 rows (bench/NOTES.md, session 19). A backend whose
call cannot be captured is timed that older way, and stderr says so.
"""
import json
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from report import median_ms  # bench/ is this script's folder, so first on sys.path

SHAPES = [(4, 32, 4096, 128), (2, 32, 8192, 128), (16, 16, 1024, 64), (8, 16, 2048, 256)]
BACKENDS = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION, "math": SDPBackend.MATH}


def shape_name(B, H, S, D, causal):
    return f"B{B} H{H} S{S} D{D} {'causal' if causal else 'non-causal'}"


def replay_ms(graph, reps):
    """Median ms of a graph's replays, queued back to back so that each pair of events brackets GPU work alone."""
    for _ in range(3):
        graph.replay()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for a, b in events:
        a.record()
        graph.replay()
        b.record()
    torch.cuda.synchronize()
    return statistics.median(a.elapsed_time(b) for a, b in events)


def capture(call, stream):
    """A CUDA graph of call(), warmed up on `stream` and captured there (autograd's backward runs on the stream its
    forward ran on, so a caller timing a backward made the forward there)."""
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            call()
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        call()
    return graph


def graph_ms(call, reps, stream):
    """GPU ms of call(): captured once, replayed."""
    graph = capture(call, stream)
    try:
        return replay_ms(graph, reps)
    finally:
        del graph


def attention_calls(backend, q, k, v, causal, backward, stream):
    """The call to time: the forward, or autograd's backward of a forward made once on `stream`."""
    if not backward:
        return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    with torch.cuda.stream(stream):
        out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        dout = torch.randn_like(out)
    torch.cuda.current_stream().wait_stream(stream)
    return lambda: torch.autograd.grad(out, (q, k, v), dout, retain_graph=True)


def time_row(backend, dtype, B, H, S, D, causal, backward, by_graph=True):
    """ms of the forward (or of the backward alone), or None when the backend refuses the problem or runs out of
    memory. by_graph False: the call waited for each time (report.median_ms), host work included."""
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=dtype, requires_grad=backward) for _ in range(3))
    stream = torch.cuda.Stream()
    try:
        with sdpa_kernel(BACKENDS[backend]):
            call = attention_calls(backend, q, k, v, causal, backward, stream)
            reps = 10 if backward else 20
            if by_graph:
                try:
                    return graph_ms(call, reps, stream)
                except RuntimeError as e:  # not capturable: the older timing, said on stderr
                    print(f"torch_sdpa: {backend} {dtype} {shape_name(B, H, S, D, causal)}"
                          f"{' backward' if backward else ''}: no graph ({str(e).splitlines()[0]}); "
                          "timed call by call", file=sys.stderr)
                    torch.cuda.synchronize()
            return median_ms(call, reps)
    except (RuntimeError, torch.cuda.OutOfMemoryError) as e:
        print(f"torch_sdpa: {backend} {dtype} {shape_name(B, H, S, D, causal)}: {str(e).splitlines()[0]}",
              file=sys.stderr)
        return None
    finally:
        del q, k, v
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def emit(op, dtype_name, shape, backend, ms, flops):
    print(json.dumps({"op": op, "dtype": dtype_name, "shape": shape, "backend": backend, "ms": ms, "flops": flops}),
          flush=True)


def emit_gemm_rate(emit_row=emit):
    """The card's bf16 tensor-core rate as a user meets it: cuBLAS on square products, the best of two sizes (the
    larger one runs hotter clocks down on some cards, the smaller one leaves SMs idle on others); emit_row(op,
    dtype, shape, backend, ms, flops) writes it."""
    best = None
    for n in (8192, 16384):
        a, b = (torch.randn(n, n, device="cuda", dtype=torch.bfloat16) for _ in range(2))
        ms = median_ms(lambda: a @ b, 10)
        if best is None or 2.0 * n ** 3 / ms > best[2] / best[1]:
            best = (n, ms, 2.0 * n ** 3)
        del a, b
        torch.cuda.empty_cache()
    n, ms, flops = best
    emit_row("gemm", "bf16", f"M=N=K={n}", "cublas", ms, flops)


def attention_rows():
    """(dtype, dtype name, (B, H, S, D), causal, backends) of every attention row."""
    rows = [(torch.bfloat16, "bf16", s, causal, ("flash", "cudnn", "efficient")) for s in SHAPES
            for causal in (False, True)]
    rows += [(torch.float32, "f32", (4, 16, 2048, D), causal, ("efficient", "math")) for D in (64, 128)
             for causal in (False, True)]
    return rows


def main():
    emit_gemm_rate()
    for dtype, name, (B, H, S, D), causal, backends in attention_rows():
        flops = 4.0 * B * H * S * S * D / (2 if causal else 1)
        for backend in backends:
            for backward in (False, True) if name == "bf16" else (False,):
                ms = time_row(backend, dtype, B, H, S, D, causal, backward)
                if ms is not None:
                    emit("sdpa_backward" if backward else "sdpa_forward", name, shape_name(B, H, S, D, causal),
                         backend, ms, 2.5 * flops if backward else flops)


if __name__ == "__main__":
    main()
