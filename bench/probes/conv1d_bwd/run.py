"""The causal conv1d backward of several trees (libconv1d_bwd_probe.so's
entries probe_bwd_<tree>_<d>, the first tree the baseline) beside Tri Dao's
causal_conv1d_bwd on the [B, C, L] rows, bias + SiLU, f32 weights beside
16-bit x (as bench/tridao_conv1d_grid.py runs them), in one process.

    python3 run.py <libconv1d_bwd_probe.so> <tridao folder> [--quick] base tree [more...]

Each row first runs every side once on the same tensors: dx, dw and db
bit-equal to the baseline's ("bits") or not ("DIFF" with the largest
difference relative to the largest baseline value); on rows of at most
2^25 elements every side's error against a float64 PyTorch reference
(max |err| / max |ref| per output). Then each side as a CUDA graph of many
calls cycling through tensor sets past L2, the sides' replays interleaved,
median of REPEATS replays, us per call; "<tree>/main" (the first two
trees): the main kernel alone (dw and db left out: no reduction launch)."""
import ctypes
import math
import os
import statistics
import sys
import types

import torch
import torch.nn.functional as F

# The grid benchmark's graph capture (its module wants the bindings only for its plans); the staged
# probe carries a copy of it beside this file.
sys.modules.setdefault("baracuda", types.ModuleType("baracuda"))
sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),
                os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")]
from tridao_conv1d_grid import captured_graph as graph  # noqa: E402

REPEATS = 9
L2_BYTES = 60 << 20
DT = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
CODE = {"bf16": 0, "f16": 2, "f32": 3}  # PROBE_DTYPE (bench/probes/common/conv1d_probe_view.h)


def rows(quick):
    """The grid's [B, C, L] backward rows whose kernel the register tiles may take (L a multiple of 4096
    in 16 bits), the issue's, and controls (f32, the row groups), plus rows of at most 2^25 elements for
    float64 references."""
    r = [("bf16", 8, 4096, 4096, 4), ("bf16", 8, 4096, 4096, 3), ("bf16", 8, 4096, 4096, 2),
         ("f16", 8, 4096, 4096, 4), ("f16", 8, 4096, 4096, 3), ("f16", 8, 4096, 4096, 2),
         ("bf16", 1, 2048, 4096, 4), ("bf16", 8, 2048, 4096, 4), ("bf16", 64, 2048, 4096, 4),
         ("bf16", 128, 2048, 4096, 4), ("bf16", 8, 768, 4096, 4), ("bf16", 8, 8192, 4096, 4),
         ("bf16", 8, 4096, 8192, 4), ("f16", 2, 1536, 16384, 3), ("bf16", 1, 2048, 32768, 4),
         ("bf16", 8, 2048, 32768, 4), ("bf16", 64, 768, 32768, 4), ("f32", 8, 4096, 4096, 4),
         ("bf16", 8, 2048, 1024, 4), ("bf16", 2, 512, 32768, 4), ("f16", 1, 1536, 4096, 3),
         ("bf16", 3, 700, 4096, 2)]
    # widths 5-8 (trees built with PROBE_WIDE): bits and float64 errors
    r += [("bf16", 2, 100, 4096, w) for w in (5, 6, 7, 8)] + [("f16", 2, 64, 8192, 6), ("f32", 3, 64, 1024, 5),
                                                             ("f16", 1, 70, 8192, 8)]
    return r[:8] if quick else r


def reference(s, W):
    """dx, dw, db in float64 through autograd."""
    x = s["x"].double().requires_grad_()
    w = s["w"].double().requires_grad_()
    b = s["b"].double().requires_grad_()
    L = x.shape[2]
    y = F.silu(F.conv1d(x, w.unsqueeze(1), b, padding=W - 1, groups=x.shape[1])[..., :L])
    y.backward(s["dy"].double())
    return x.grad, w.grad, b.grad


def rel(got, ref):
    d = (got.double() - ref).abs().max().item()
    m = ref.abs().max().item()
    return d / m if m > 0 else d


def main():
    lib = ctypes.CDLL(sys.argv[1])
    sys.path.insert(0, sys.argv[2])
    import causal_conv1d_cuda as tridao
    args = sys.argv[3:]
    trees = [a for a in args if not a.startswith("--")]
    print(f"{torch.cuda.get_device_name()}, trees {trees}; us per call, median of {REPEATS} interleaved replays")
    for row in rows("--quick" in args):
        try:
            run_row(lib, tridao, trees, *row)
        except Exception as e:  # noqa: BLE001 (the next rows still run)
            print(f"{row}: FAILED {type(e).__name__}: {e}", flush=True)
        torch.cuda.empty_cache()


def run_row(lib, tridao, trees, dt, B, C, L, W):
    ptr = lambda t: ctypes.c_void_p(t.data_ptr() if t is not None else 0)
    name = f"{dt} [{B},{C},{L}] W{W}"
    entries = {}
    for t in trees:
        try:
            e = getattr(lib, f"probe_bwd_{t}_{CODE[dt]}")
            ws = getattr(lib, f"probe_bwd_{t}_{CODE[dt]}_workspace")
        except AttributeError:
            continue
        e.restype, ws.restype = ctypes.c_int, ctypes.c_int64
        e.argtypes = [ctypes.c_void_p] * 7 + [ctypes.c_int64] * 3 + [ctypes.c_int32, ctypes.c_void_p,
                                                                    ctypes.c_int64, ctypes.c_void_p]
        ws.argtypes = [ctypes.c_int64] * 3 + [ctypes.c_int32]
        entries[t] = (e, torch.empty(max(ws(B, C, L, W), 1), dtype=torch.uint8, device="cuda"))
    x_bytes = B * C * L * torch.finfo(DT[dt]).bits // 8
    nsets = max(1, min(8, math.ceil(2 * L2_BYTES / (3 * x_bytes))))
    calls = max(3, min(100, int(2e-3 * 3e12 / (3 * x_bytes) + 1)))
    gen = torch.Generator(device="cuda").manual_seed(B * 131 + C * 7 + L + W)
    sets = []
    for _ in range(nsets):
        rnd = lambda *shape, d=DT[dt]: torch.randn(*shape, device="cuda", generator=gen).to(d)
        sets.append({"x": rnd(B, C, L), "dy": rnd(B, C, L), "w": rnd(C, W, d=torch.float32) / W,
                     "b": rnd(C, d=torch.float32), "dx": torch.empty(B, C, L, device="cuda", dtype=DT[dt]),
                     "dw": torch.empty(C, W, device="cuda"), "db": torch.empty(C, device="cuda")})

    def ours(t, sums=True):
        e, workspace = entries[t]

        def call(s):
            rc = e(ptr(s["x"]), ptr(s["w"]), ptr(s["b"]), ptr(s["dy"]), ptr(s["dx"]),
                   ptr(s["dw"] if sums else None), ptr(s["db"] if sums else None), B, C, L, W, ptr(workspace),
                   workspace.numel(), ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
            if rc != 0:
                raise RuntimeError(f"{t}: status {rc}")
        return call

    def his(s):
        s["dw"].zero_()
        s["db"].zero_()
        tridao.causal_conv1d_bwd(s["x"], s["w"], s["b"], s["dy"], None, None, None, s["dx"], s["dw"], s["db"],
                                 None, True)

    # correctness on set 0
    s0 = sets[0]
    outs = {}
    for t in entries:
        for k in ("dx", "dw", "db"):  # (what a side leaves unwritten shows as NaN)
            s0[k].fill_(float("nan"))
        ours(t)(s0)
        torch.cuda.synchronize()
        outs[t] = (s0["dx"].clone(), s0["dw"].clone(), s0["db"].clone())
    if W <= 4:  # (Tri Dao's kernels serve widths 2-4)
        his(s0)
        torch.cuda.synchronize()
        outs["tridao"] = (s0["dx"].clone(), s0["dw"].clone(), s0["db"].clone())
    ref = reference(s0, W) if B * C * L <= (1 << 25) else None
    base = trees[0] if trees[0] in outs else None
    notes = []
    for t, o in outs.items():
        if base and t != base and t != "tridao":
            same = all(torch.equal(a, b) for a, b in zip(o, outs[base]))
            notes.append(f"{t}: " + ("bits" if same else "DIFF " + "/".join(
                f"{rel(a, b.double()):.1e}" for a, b in zip(o, outs[base]))))
        if ref is not None:
            notes.append(f"{t} err " + "/".join(f"{rel(a, r):.1e}" for a, r in zip(o, ref)))
    del ref
    torch.cuda.empty_cache()
    # timing
    sides = {}
    for t in entries:
        sides[t] = graph(ours(t), sets, calls)
        if t in trees[:2]:
            sides[t + "/main"] = graph(ours(t, False), sets, calls)
    if W <= 4:
        sides["tridao"] = graph(his, sets, calls)
    if trees[0] in entries:  # the baseline's graph once more, last: the drift over a repeat
        sides[trees[0] + "@2"] = sides[trees[0]]
    times = {k: [] for k in sides}
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(REPEATS):
        for k, g in sides.items():
            start.record()
            g.replay()
            end.record()
            end.synchronize()
            times[k].append(start.elapsed_time(end) * 1000 / calls)
    med = {k: statistics.median(v) for k, v in times.items()}
    hisus = med.get("tridao")
    cols = " ".join(f"{k} {v:.1f}" + ("" if not hisus or k == "tridao" or k.endswith("/main") else
                                      f" ({hisus / v:.3f}x)") for k, v in med.items())
    print(f"{name}: {cols}")
    print(f"    {'; '.join(notes)}", flush=True)
    del sides, sets


if __name__ == "__main__":
    main()
