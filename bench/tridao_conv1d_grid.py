"""Causal conv1d forward and backward, ours beside Tri Dao's extension (what Mamba
and vLLM call) over a grid of shapes, in one process on one GPU (issue 14).

    BARACUDA_LIBRARY=<build>/libbaracuda_kernels.so.0 PYTHONPATH=bindings/python \\
        BARACUDA_TRIDAO=<folder of causal_conv1d_cuda.so> python3 bench/tridao_conv1d_grid.py [--json PATH] [--quick]

Every case runs bias and SiLU, x [B, C, L] contiguous ("ncl") or channels-last
("cl": [B, L, C] memory), with weights as Mamba passes them: f32 WEIGHT and BIAS
beside 16-bit x, dweight and dbias back in f32. Both sides get the same tensors.
Each time is a CUDA graph of many calls replayed (no host overhead counts),
over enough sets of tensors to pass L2 (60 MB) between calls; the median of a
few replays, in ms per call. Tri Dao's backward sums dweight and dbias with
atomics, so its graph zeroes them before each call as his wrapper does (two
memsets of C and C*W floats); ours is deterministic.

With --after-kernel each row also times both sides' calls each after an
unrelated kernel (a 16 KB zero fill, which does not let its dependents start
early), minus that kernel's own time (its graph alone): back to back, a
forward launched overlapping the kernel before it (programmatic dependent
launch) hides its launch behind the previous call's last blocks; after an
ordinary kernel it cannot. Three columns at the end of the row.

Bytes: the forward reads x and writes y, the backward reads x and dy and
writes dx (weights not counted). "% of copy" is the achieved bytes per second
over a device-to-device copy of x's size (in pieces of 2^26 elements) timed
in the same way in the same case. "kernel" is the plan info's kernel name (named for the [B, C, L] layout;
channels-last runs the staged channel tiles where rows allow 16-byte copies).

The grid: bf16 W4 for every L x B pair in both layouts (C 2048, or 768 where
2048 would pass the memory cap; B128 L32768 skipped), the C axis at two
shapes, Tri Dao's suite dtypes and widths (bf16, f16, f32 x W 2, 3, 4) at a
long and a short shape, and the issue's own rows."""
import argparse
import json
import math
import os
import statistics
import sys

import torch

import baracuda

LS = (128, 512, 1024, 4096, 32768)
BS = (1, 8, 64, 128)
CAP_BYTES = 10 << 30  # x, y (dy) and dx of one set
L2_BYTES = 60 << 20
REPEATS = 5
COPY_PIECE = 1 << 26  # elements
TORCH_DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}


def grid_cases(quick):
    """(dtype, layout, B, C, L, W) of every case, in order, without repeats."""
    cases = []

    def add(dtype, layout, B, C, L, W):
        if (dtype, layout, B, C, L, W) not in cases and 3 * B * C * L * torch.finfo(TORCH_DTYPES[dtype]).bits // 8 <= CAP_BYTES:
            cases.append((dtype, layout, B, C, L, W))

    issue = [("bf16", lay, 8, 4096, 8192, 4) for lay in ("ncl", "cl")] + \
            [("f32", lay, 8, 4096, 8192, 4) for lay in ("ncl", "cl")] + [("f16", "ncl", 2, 1536, 16384, 3)]
    for case in issue:
        add(*case)
    for layout in ("ncl", "cl"):
        for L in LS:
            for B in BS:
                C = 2048 if 3 * B * 2048 * L * 2 <= CAP_BYTES else 768
                add("bf16", layout, B, C, L, 4)
        if quick:
            continue
        for B, L in ((8, 4096), (64, 512)):
            for C in (768, 4096, 8192):
                add("bf16", layout, B, C, L, 4)
        for B, C, L in ((8, 4096, 4096), (64, 2048, 512)):
            for dtype in ("bf16", "f16", "f32"):
                for W in (2, 3, 4):
                    add(dtype, layout, B, C, L, W)
    return cases


def make_x(dtype, layout, B, C, L):
    """Random [B, C, L] (never zeros) in the layout."""
    t = TORCH_DTYPES[dtype]
    if layout == "ncl":
        return torch.randn(B, C, L, device="cuda", dtype=t)
    return torch.randn(B, L, C, device="cuda", dtype=t).transpose(1, 2)


def captured_graph(enqueue, sets, calls):
    """enqueue(set) for calls calls cycling through sets, captured as one CUDA graph (after a warm-up), replayed once."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up outside capture: plans, lazy module loading
        for s in sets:
            enqueue(s)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for i in range(calls):
            enqueue(sets[i % len(sets)])
    graph.replay()
    torch.cuda.synchronize()
    return graph


def graph_ms(enqueue, sets, calls):
    """ms per call of enqueue(set) over calls calls cycling through sets, replayed as one CUDA graph."""
    graph = captured_graph(enqueue, sets, calls)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(REPEATS):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / calls)
    del graph
    return statistics.median(times)


def run_case(tridao, dtype, layout, B, C, L, W, after_kernel=False):
    x_bytes = B * C * L * torch.finfo(TORCH_DTYPES[dtype]).bits // 8
    nsets = max(1, min(8, math.ceil(2 * L2_BYTES / (3 * x_bytes))))
    # about 2 ms of work per replay at 3 TB/s, 3 to 100 calls
    calls = max(3, min(100, int(2e-3 * 3e12 / (3 * x_bytes) + 1)))
    wdtype = torch.float32  # Mamba's parameters stay f32 beside 16-bit x
    sets = []
    for _ in range(nsets):
        x = make_x(dtype, layout, B, C, L)
        s = {"x": x, "y": torch.empty_like(x), "dx": torch.empty_like(x),
             "w": torch.randn(C, W, device="cuda", dtype=wdtype) / W, "b": torch.randn(C, device="cuda", dtype=wdtype),
             "dw": torch.empty(C, W, device="cuda", dtype=wdtype), "db": torch.empty(C, device="cuda", dtype=wdtype)}
        # the copy: x's bytes into dx's, both dense, as flat tensors over their storage
        s["src"], s["dst"] = (torch.as_strided(s[k], (B * C * L,), (1,)) for k in ("x", "dx"))
        sets.append(s)
    fields = dict(dtype=dtype, weight_dtype="f32", width=W, activation="silu", batch=B, channels=C, seq_len=L)
    fwd = baracuda.Plan("causal_conv1d", **fields)
    bwd = baracuda.Plan("causal_conv1d_backward", **fields)
    workspace = torch.empty(max(bwd.workspace_size, 1), dtype=torch.uint8, device="cuda")

    def ours_fwd(s):
        fwd.run(X=s["x"], WEIGHT=s["w"], BIAS=s["b"], Y=s["y"])

    def ours_bwd(s):  # dy: the forward's output (random data of the same layout)
        bwd.run(workspace=workspace, X=s["x"], WEIGHT=s["w"], BIAS=s["b"], DY=s["y"], DX=s["dx"], DW=s["dw"],
                DB=s["db"])

    def his_fwd(s):
        tridao.causal_conv1d_fwd(s["x"], s["w"], s["b"], None, None, s["y"], None, True)

    def his_bwd(s):
        s["dw"].zero_()
        s["db"].zero_()
        tridao.causal_conv1d_bwd(s["x"], s["w"], s["b"], s["y"], None, None, None, s["dx"], s["dw"], s["db"], None,
                                 True)

    def copy(s):  # in pieces: PyTorch's copy of one piece over 256 MiB ran at 2.7 TB/s on the H200, smaller ones at 4.2
        for src, dst in zip(s["src"].split(COPY_PIECE), s["dst"].split(COPY_PIECE)):
            dst.copy_(src)

    pad = torch.empty(4096, device="cuda")  # the unrelated kernel's output

    def after(call):  # call(s) after an unrelated kernel
        return lambda s: (pad.zero_(), call(s))

    lone_ms = graph_ms(lambda s: pad.zero_(), sets, calls) if after_kernel else 0.0
    copy_ms = graph_ms(copy, sets, calls)
    copy_gbs = 2 * x_bytes / copy_ms / 1e6
    rows = []
    for name, ours, his, plan, nbytes in (("fwd", ours_fwd, his_fwd, fwd, 2 * x_bytes),
                                          ("bwd", ours_bwd, his_bwd, bwd, 3 * x_bytes)):
        ours_ms, his_ms = graph_ms(ours, sets, calls), graph_ms(his, sets, calls)
        rows.append({"pass": name, "dtype": dtype, "layout": layout, "B": B, "C": C, "L": L, "W": W,
                     "ours_ms": ours_ms, "tridao_ms": his_ms, "ratio": his_ms / ours_ms,
                     "ours_copy": nbytes / ours_ms / 1e6 / copy_gbs, "tridao_copy": nbytes / his_ms / 1e6 / copy_gbs,
                     "copy_ms": copy_ms, "mbytes": nbytes / 1e6, "kernel": plan.info["kernel_name"]})
        if after_kernel:
            ours_after, his_after = (graph_ms(after(f), sets, calls) - lone_ms for f in (ours, his))
            rows[-1].update({"ours_after_ms": ours_after, "tridao_after_ms": his_after,
                             "ratio_after": his_after / ours_after, "lone_kernel_ms": lone_ms})
    fwd.close()
    bwd.close()
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="PATH", help="also write the rows as JSON lines")
    parser.add_argument("--quick", action="store_true", help="only the L x B pairs and the issue's rows")
    parser.add_argument("--after-kernel", action="store_true",
                        help="also time each call after an unrelated kernel (three columns more)")
    options = parser.parse_args()
    sys.path.insert(0, os.environ["BARACUDA_TRIDAO"])
    import causal_conv1d_cuda as tridao

    print(f"Causal conv1d, ours vs Tri Dao's extension on {torch.cuda.get_device_name()}: bias + SiLU, "
          "f32 weights (x's dtype for f32), CUDA-graph replay, ms per call.\n")
    after_cols = " ours ms after a kernel | Tri Dao ms after a kernel | ours vs his after a kernel |"
    print("| pass | dtype | layout | B | C | L | W | ours ms | Tri Dao ms | ours vs his | ours % of copy "
          "| his % of copy | our kernel |" + (after_cols if options.after_kernel else ""))
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|" + ("---|---|---|" if options.after_kernel else ""))
    out = open(options.json, "w") if options.json else None
    for case in grid_cases(options.quick):
        for r in run_case(tridao, *case, after_kernel=options.after_kernel):
            flag = "**" if r["ratio"] < 1.0 else ""
            extra = ""
            if options.after_kernel:
                flag_after = "**" if r["ratio_after"] < 1.0 else ""
                extra = (f" {r['ours_after_ms']:.4f} | {r['tridao_after_ms']:.4f} "
                         f"| {flag_after}{r['ratio_after']:.2f}x{flag_after} |")
            print(f"| {r['pass']} | {r['dtype']} | {r['layout']} | {r['B']} | {r['C']} | {r['L']} | {r['W']} "
                  f"| {r['ours_ms']:.4f} | {r['tridao_ms']:.4f} | {flag}{r['ratio']:.2f}x{flag} "
                  f"| {100 * r['ours_copy']:.0f}% | {100 * r['tridao_copy']:.0f}% | {r['kernel']} |{extra}", flush=True)
            if out:
                out.write(json.dumps(r) + "\n")
        torch.cuda.empty_cache()
    if out:
        out.close()


if __name__ == "__main__":
    main()
