"""The causal conv1d forward (bias + SiLU, f32 weights) of several trees
(libforward_probe.so's entries probe_fwd_<tree>_<dtype>, the first tree the
baseline) and their forced variants, beside Tri Dao's causal_conv1d_fwd, in
one process: each side a CUDA graph of many calls over tensor sets past L2
(as bench/tridao_conv1d_grid.py times them), the sides' replays interleaved,
median of the replays, us per call.

    python3 run.py <libforward_probe.so> <tridao folder or -> <seconds> base mine[:variants] [...]

e.g. `mine:0,1,2,3`: tree mine's heuristic launch (0) and its variants 1-3.
Checks before timing, on the first set: every side's y bit-equal to the
baseline's ("bits"), else its error against float64 ("DIFF" past the
tolerance); the baseline against float64 (problems up to 2^25 elements);
Tri Dao's y within the tolerance of the baseline's."""
import ctypes
import math
import os
import sys
import time
import types

import torch
import torch.nn.functional as F

# The grid's tensors and graph capture (its module wants the bindings only for its plans).
sys.modules.setdefault("baracuda", types.ModuleType("baracuda"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from tridao_conv1d_grid import captured_graph, make_x  # noqa: E402

REPLAYS = 7
L2_BYTES = 60 << 20
DT = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
CODE = {"bf16": 0, "f16": 2, "f32": 3}
TOLERANCE = {"bf16": 1e-2, "f16": 2e-3, "f32": 1e-5}
ARGTYPES = [ctypes.c_int] + [ctypes.c_void_p] * 4 + [ctypes.c_int64] * 3 + [ctypes.c_int32] * 2 + [ctypes.c_void_p] * 2


def rows():
    """(dtype, layout, B, C, L, W), most wanted first."""
    # The grid's [B, C, L] forward rows whose kernel changed: the farthest behind first
    r = [("bf16", "ncl", b, 2048, 1024, 4) for b in (1, 8, 64, 128)] + [("bf16", "ncl", 1, 2048, 4096, 4)]
    r += [("f32", "ncl", 8, 4096, 4096, w) for w in (4, 3, 2)] + [("f32", "ncl", 8, 4096, 8192, 4)]
    r += [(d, "ncl", 64, 2048, 512, w) for d in ("f32", "f16", "bf16") for w in (4, 3, 2)]
    r += [("bf16", "ncl", b, 2048, l, 4) for l in (512, 128) for b in (1, 8, 64, 128)]
    r += [("bf16", "ncl", 64, c, 512, 4) for c in (768, 4096, 8192)]
    # about the 16-bit cap (16 MiB), and rows whose kernel stays
    r += [("f16", "ncl", 1, 2048, 4096, 4), ("bf16", "ncl", 2, 2048, 4096, 4), ("bf16", "ncl", 8, 768, 4096, 4)]
    r += [("f16", "ncl", 8, 4096, 4096, 4), ("bf16", "ncl", 8, 4096, 8192, 4)]
    r += [("bf16", "cl", b, 2048, l, 4) for b, l in ((1, 128), (1, 512), (8, 128), (1, 1024))]
    return r


class Row:
    def __init__(self, dtype, layout, B, C, L, W):
        self.spec = (dtype, layout, B, C, L, W)
        self.name = f"{dtype} {layout} [{B},{C},{L}] W{W}"
        self.dims = (B, C, L, W, 1 if layout == "cl" else 0)
        t = DT[dtype]
        x_bytes = B * C * L * t.itemsize
        nsets = max(1, min(8, math.ceil(2 * L2_BYTES / (2 * x_bytes))))
        self.calls = max(3, min(100, int(2e-3 * 3e12 / (2 * x_bytes) + 1)))
        self.sets = []
        for _ in range(nsets):
            x = make_x(dtype, layout, B, C, L)
            w = torch.randn(C, W, device="cuda") / W
            self.sets.append({"x": x, "w": w, "b": torch.randn(C, device="cuda"), "y": torch.empty_like(x)})

    def ours(self, entry, variant, s, y=None):
        ptr = lambda t: ctypes.c_void_p(t.data_ptr())
        y = s["y"] if y is None else y
        args = (variant, ptr(s["x"]), ptr(s["w"]), ptr(s["b"]), ptr(y)) + self.dims + (ctypes.c_void_p(0),)

        def call():
            return entry(*args, ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
        return call

    def reference(self):
        s = self.sets[0]
        B, C, L, W, _ = self.dims
        z = F.conv1d(s["x"].double(), s["w"].double().unsqueeze(1), s["b"].double(), padding=W - 1, groups=C)[..., :L]
        return z * torch.sigmoid(z)


def bits(t):
    return t.contiguous().view(torch.int16 if t.element_size() == 2 else torch.int32)


def time_row(r, sides, tridao):
    dtype = r.spec[0]
    s0 = r.sets[0]
    # Checks: every side once on set 0.
    outs, live = [], []
    for name, e, v in sides:
        y = torch.full_like(s0["y"], float("nan"))
        rc = r.ours(e, v, s0, y)()
        if rc == 3:
            continue
        if rc != 0:
            raise RuntimeError(f"{name}:{v} status {rc}")
        outs.append(y)
        live.append((name, e, v))
    torch.cuda.synchronize()
    ref = r.reference() if r.dims[0] * r.dims[1] * r.dims[2] <= 1 << 25 else None
    scale = (ref if ref is not None else outs[0].double()).abs().max().item()
    checks = []
    if ref is not None:
        err = (outs[0].double() - ref).abs().max().item() / scale
        checks.append(f"base ref {'ok' if err <= TOLERANCE[dtype] else 'DIFF'} {err:.1e}")
    for (name, _, v), y in zip(live[1:], outs[1:]):
        if torch.equal(bits(y), bits(outs[0])):
            continue
        against = ref if ref is not None else outs[0].double()
        err = (y.double() - against).abs().max().item() / scale
        checks.append(f"{name}:{v} {'ok' if err <= TOLERANCE[dtype] else 'DIFF'} {err:.1e}")
    if tridao is not None:
        y = torch.empty_like(s0["y"])
        tridao.causal_conv1d_fwd(s0["x"], s0["w"], s0["b"], None, None, y, None, True)
        err = (y.double() - outs[0].double()).abs().max().item() / scale
        checks.append(f"tridao {'ok' if err <= TOLERANCE[dtype] else 'DIFF'} {err:.1e}")
    check = "others bits" + ("; " + ", ".join(checks) if checks else "")
    # Timing.
    calls = []
    for name, e, v in live:
        def call(s, e=e, v=v):
            rc = r.ours(e, v, s)()
            if rc:
                raise RuntimeError(f"status {rc}")
        calls.append(call)
    if tridao is not None:
        calls.append(lambda s: tridao.causal_conv1d_fwd(s["x"], s["w"], s["b"], None, None, s["y"], None, True))
    graphs = [captured_graph(c, r.sets, r.calls) for c in calls]
    torch.cuda.synchronize()
    ev = [[(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(REPLAYS)]
          for _ in graphs]
    for k in range(REPLAYS):
        for g, e in zip(graphs, ev):
            e[k][0].record()
            g.replay()
            e[k][1].record()
    torch.cuda.synchronize()
    med = [sorted(a.elapsed_time(b) * 1000 / r.calls for a, b in e)[REPLAYS // 2] for e in ev]
    del graphs
    base = med[0]
    cols = " ".join(f"{n}:{v}={m:.2f}" for (n, _, v), m in zip(live, med[:len(live)]))
    td = ""
    if tridao is not None:
        t = med[-1]
        best = min(med[:len(live)])
        bi = med.index(best)
        td = f" | td={t:.2f} base {t / base:.3f}x best({live[bi][0]}:{live[bi][2]}) {t / best:.3f}x"
    print(f"{r.name} | {cols}{td} | {check}", flush=True)


def correctness(lib, trees):
    """Small problems at the kernels' edges (rows shorter than a warp, rows straddling warps, L not a multiple of
    32, one vector a row), with and without initial states: every side against float64."""
    shapes = [("ncl", 3, 5, 64), ("ncl", 2, 37, 16), ("ncl", 1, 3, 1024), ("ncl", 3, 7, 8), ("ncl", 2, 9, 512),
              ("ncl", 2, 3, 2048), ("cl", 2, 24, 40), ("cl", 1, 8, 1), ("cl", 3, 16, 100), ("cl", 2, 40, 33),
              ("cl", 1, 2056, 64)]
    fails, count = [], 0
    for dtype in ("bf16", "f16", "f32"):
        for layout, B, C, L in shapes:
            for W in (2, 3, 4):
                for with_initial in (False, True):
                    x = make_x(dtype, layout, B, C, L)
                    w = torch.randn(C, W, device="cuda") / W
                    b = torch.randn(C, device="cuda")
                    init = torch.randn(B, C, W - 1, device="cuda").to(DT[dtype]) if with_initial else None
                    xp = torch.cat([init.double() if with_initial else torch.zeros(B, C, W - 1, device="cuda",
                                    dtype=torch.float64), x.double()], dim=2)
                    z = F.conv1d(xp, w.double().unsqueeze(1), b.double(), groups=C)
                    ref = z * torch.sigmoid(z)
                    scale = max(ref.abs().max().item(), 1e-30)
                    for name, variants in trees:
                        sym = f"probe_fwd_{name}_{CODE[dtype]}"
                        if not hasattr(lib, sym):
                            continue
                        e = getattr(lib, sym)
                        e.restype, e.argtypes = ctypes.c_int, ARGTYPES
                        for v in variants:
                            y = torch.full_like(x, float("nan"))
                            rc = e(v, x.data_ptr(), w.data_ptr(), b.data_ptr(), y.data_ptr(), B, C, L, W,
                                   1 if layout == "cl" else 0, init.data_ptr() if with_initial else 0,
                                   torch.cuda.current_stream().cuda_stream)
                            if rc == 3:
                                continue
                            torch.cuda.synchronize()
                            err = (y.double() - ref).abs().max().item() / scale
                            count += 1
                            if rc != 0 or not err <= TOLERANCE[dtype]:
                                fails.append(f"{name}:{v} {dtype} {layout} [{B},{C},{L}] W{W} init{int(with_initial)} "
                                             f"rc {rc} err {err:.1e}")
    print(f"# correctness: {count} runs against float64, {len(fails)} failing" +
          "".join(f"\n#   FAIL {f}" for f in fails[:20]), flush=True)


def main():
    start = time.time()
    lib = ctypes.CDLL(sys.argv[1])
    tridao = None
    if sys.argv[2] != "-":
        sys.path.insert(0, sys.argv[2])
        import causal_conv1d_cuda as tridao
    deadline = start + float(sys.argv[3])
    trees = []
    for spec in sys.argv[4:]:
        name, _, vs = spec.partition(":")
        trees.append((name, [int(v) for v in vs.split(",")] if vs else [0]))
    print(f"# {torch.cuda.get_device_name()} {getattr(torch.cuda.get_device_properties(0), 'uuid', '')}; us per call "
          f"(graph replay, median of {REPLAYS}); trees {sys.argv[4:]}", flush=True)
    correctness(lib, trees)
    for spec in rows():
        if time.time() > deadline:
            print(f"# deadline: {spec} and later rows not run", flush=True)
            break
        dtype = spec[0]
        sides = []
        for name, variants in trees:
            sym = f"probe_fwd_{name}_{CODE[dtype]}"
            if not hasattr(lib, sym):
                continue
            e = getattr(lib, sym)
            e.restype = ctypes.c_int
            e.argtypes = ARGTYPES
            sides += [(name, e, v) for v in variants]
        try:
            r = Row(*spec)
            time_row(r, sides, tridao)
            del r
        except Exception as ex:  # noqa: BLE001 (the other rows still run)
            print(f"{spec} | ERROR {ex}", flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
