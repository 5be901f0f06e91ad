"""The causal conv1d forward (bias, f32 weights beside 16-bit x, SiLU on and
off) of several trees (libforward_probe.so's entries probe_fwd_<tree>_<dtype>,
the first tree the baseline) and their forced variants, beside Tri Dao's
causal_conv1d_fwd, in one process: each side a CUDA graph of many calls over
tensor sets past L2 (as bench/tridao_conv1d_grid.py times them), the sides'
replays interleaved, median of the replays, us per call.

    python3 run.py <lib> <tridao folder or -> <seconds> <rows> base mine[:variants] [...]

PROBE_SILU=1 times SiLU on alone (the grid's calls), =0 off alone. rows: `grid:a:b` (the forward rows a .. b-1 of tridao_conv1d_grid.py's grid,
both SiLU settings), `idx:i,j,..` (those rows of it), `rows:bf16/cl/1/2048/128/4,..`
(dtype/layout/B/C/L/W), `list` (LIST below), `none`; prefixed `check+` to run the
correctness pass first. `mine:0,1,2`: tree mine's own forward (0) and its
variants 1, 2. Checks before timing, on the first set: every side's y
bit-equal to the baseline's ("bits"), else its error against float64; the
baseline against float64 (problems up to 2^25 elements); Tri Dao's y within
the tolerance; a forward reading the y of the one just before it (launches
overlapping) gives the bits it gives after a synchronization; after the
timing, each side's graph replayed once more leaves set 0's y bit-equal to
its single call's (calls back to back, launches overlapping, give the same
y)."""
import ctypes
import math
import os
import sys
import time
import types

import torch
import torch.nn.functional as F

sys.modules.setdefault("baracuda", types.ModuleType("baracuda"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from tridao_conv1d_grid import captured_graph, grid_cases  # noqa: E402

REPLAYS = 7
L2_BYTES = 60 << 20
DT = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32, "f64": torch.float64}
WDT = {"bf16": torch.float32, "f16": torch.float32, "f32": torch.float32, "f64": torch.float64}
CODE = {"bf16": 0, "f16": 2, "f32": 3, "f64": 4}
TOLERANCE = {"bf16": 1e-2, "f16": 2e-3, "f32": 1e-5, "f64": 1e-12}
ARGTYPES = ([ctypes.c_int] * 2 + [ctypes.c_void_p] * 4 + [ctypes.c_int64] * 3 + [ctypes.c_int32] * 2 +
            [ctypes.c_int64] + [ctypes.c_void_p] * 3)
# Rows named in the brief (behind Tri Dao's in session 20's grid, and their neighbours), for `list`.
LIST = [("bf16", "ncl", 8, 768, 4096, 4), ("f16", "ncl", 8, 4096, 4096, 4), ("f16", "ncl", 8, 4096, 4096, 3),
        ("bf16", "ncl", 1, 2048, 1024, 4), ("bf16", "ncl", 1, 2048, 32768, 4), ("bf16", "ncl", 8, 4096, 4096, 4),
        ("bf16", "ncl", 1, 2048, 4096, 4), ("bf16", "ncl", 8, 768, 4096, 4, 2)]


def make_x(dtype, layout, B, C, L):
    """Random [B, C, L] (never zeros) in the layout (f64 too, unlike the grid's)."""
    if layout == "ncl":
        return torch.randn(B, C, L, device="cuda", dtype=DT[dtype])
    return torch.randn(B, L, C, device="cuda", dtype=DT[dtype]).transpose(1, 2)


def entry(lib, name, dtype):
    sym = f"probe_fwd_{name}_{CODE[dtype]}"
    if not hasattr(lib, sym):
        return None
    e = getattr(lib, sym)
    e.restype, e.argtypes = ctypes.c_int, ARGTYPES
    return e


def call(e, variant, silu, x, w, b, y, dims, batch_stride=0, init=None, seq=None):
    B, C, L, W, cl = dims
    p = lambda t: 0 if t is None else t.data_ptr()
    return e(variant, silu, p(x), p(w), p(b), p(y), B, C, L, W, cl, batch_stride, p(init), p(seq),
             torch.cuda.current_stream().cuda_stream)


def reference(x, w, b, silu, init=None, seq=None):
    """float64 y of [B, C, L] x: W-1 inputs of INITIAL_STATES (or zeros) before the row; with seq ([B, L] ids) an
    input reaches an output only within one id (the padded inputs carry timestep 0's), negative ids give 0."""
    B, C, L = x.shape
    W = w.shape[1]
    pad = init.double() if init is not None else torch.zeros(B, C, W - 1, dtype=torch.float64, device=x.device)
    xp = torch.cat([pad, x.double()], dim=2)
    if seq is None:
        z = F.conv1d(xp, w.double().unsqueeze(1), b.double(), groups=C)
    else:
        ids = torch.cat([seq[:, :1].expand(B, W - 1), seq], dim=1)  # [B, L + W-1]
        z = b.double().view(1, C, 1).expand(B, C, L).clone()
        for k in range(W):
            keep = (ids[:, k:k + L] == seq).double().unsqueeze(1)
            z += w.double()[:, k].view(1, C, 1) * xp[:, :, k:k + L] * keep
        z = z * (seq >= 0).double().unsqueeze(1)
    return z * torch.sigmoid(z) if silu else z


def bits(t):
    return t.contiguous().view({2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])


def correctness(lib, trees, stop):
    """Edge shapes (rows shorter than a warp, straddling warps, L not a multiple of the vector, one vector a row),
    SiLU on and off, with and without initial states, SEQ_IDX (channels-last), batch rows apart in memory
    ([B, C, L]): every side against float64, and bit-equal to the baseline's where both serve the case."""
    shapes = [("ncl", 3, 5, 64, 0), ("ncl", 2, 37, 16, 0), ("ncl", 1, 3, 1024, 0), ("ncl", 3, 7, 8, 0),
              ("ncl", 2, 9, 512, 0), ("ncl", 2, 3, 2048, 0), ("ncl", 3, 6, 256, 9), ("ncl", 2, 5, 40, 7),
              ("ncl", 2, 4, 4096, 6), ("cl", 2, 24, 40, 0), ("cl", 1, 8, 1, 0), ("cl", 3, 16, 100, 0),
              ("cl", 2, 40, 33, 0), ("cl", 1, 2056, 64, 0), ("cl", 2, 264, 300, 0), ("cl", 1, 2056, 300, 0),
              ("cl", 3, 1032, 77, 0)]
    fails, count, same, differ, t0, worst = [], 0, 0, 0, time.time(), {}
    gen = torch.Generator(device="cpu").manual_seed(20)
    for dtype in ("bf16", "f16", "f32", "f64"):
        if time.time() > stop:
            fails.append(f"time: {dtype} and later dtypes not checked")
            break
        if all(entry(lib, name, dtype) is None for name, _ in trees):
            continue  # (no tree built for it)
        for i, (layout, B, C, L, c_extra) in enumerate(shapes):
            for W in range(2, 9):
                for silu, with_init, with_seq in ((1, 0, 0), (0, 1, 0), (1, 1, 1), (0, 0, 1)):
                    if with_seq and layout == "ncl" and (i + W) % 3:
                        continue
                    Ct = C + c_extra  # [B, C + extra, L] storage, x the first C channels
                    xs = make_x(dtype, layout, B, Ct, L)
                    x = xs[:, :C]
                    y = torch.full_like(xs, float("nan"))[:, :C]
                    w = (torch.randn(C, W, device="cuda") / W).to(WDT[dtype])
                    b = torch.randn(C, device="cuda").to(WDT[dtype])
                    init = torch.randn(B, C, W - 1, device="cuda").to(DT[dtype]) if with_init else None
                    seq = None
                    if with_seq:
                        cuts = torch.randint(0, 4, (B, L), generator=gen).cumsum(1) // 5 - int(L // 9 > 2)
                        seq = cuts.to(torch.int32).cuda().contiguous()
                    ref = reference(x, w, b, silu, init, seq)
                    scale = max(ref.abs().max().item(), 1e-30)
                    bs = Ct * L if c_extra else 0
                    dims = (B, C, L, W, 1 if layout == "cl" else 0)
                    base_y = None
                    for name, variants in trees:
                        e = entry(lib, name, dtype)
                        if e is None:
                            continue
                        for v in variants:
                            y.fill_(float("nan"))
                            rc = call(e, v, silu, x, w, b, y, dims, bs, init, seq)
                            if rc == 3:
                                continue
                            torch.cuda.synchronize()
                            err = (y.double() - ref).abs().max().item() / scale
                            key = (name, v, dtype, silu)
                            worst[key] = max(worst.get(key, 0.0), err)
                            count += 1
                            tag = (f"{name}:{v} {dtype} {layout} [{B},{C},{L}]+{c_extra} W{W} silu{silu} "
                                   f"init{with_init} seq{with_seq}")
                            if rc != 0 or not err <= TOLERANCE[dtype]:
                                fails.append(f"{tag} rc {rc} err {err:.1e}")
                            if base_y is None:
                                base_y = bits(y).clone()
                            elif torch.equal(bits(y), base_y):
                                same += 1
                            else:
                                differ += 1
                                fails.append(f"{tag} bits differ from the first side's (err {err:.1e})")
    print(f"# correctness ({time.time() - t0:.1f} s): {count} runs against float64, {len(fails)} failing; {same} bit-equal to the first side, "
          f"{differ} not" + "".join(f"\n#   FAIL {f}" for f in fails[:25]), flush=True)
    print("# largest error / max |y| against float64 (tree:variant dtype silu): " +
          ", ".join(f"{n}:{v} {d} s{a} {e:.2e}" for (n, v, d, a), e in sorted(worst.items())), flush=True)


def chained(lib, trees):
    """A forward whose x is the y of the forward just before it on the stream (no synchronization between; the
    launches may overlap): its y bit-equal to the same two calls with a synchronization between."""
    shapes = [("bf16", 1, 2048, 1024), ("bf16", 1, 2048, 128), ("bf16", 8, 768, 4096), ("f16", 8, 512, 1000),
              ("f32", 1, 4096, 1024), ("f32", 2, 4096, 1024)]
    count, differ = 0, []
    for dtype, B, C, L in shapes:
        x = make_x(dtype, "ncl", B, C, L)
        w = (torch.randn(C, 4, device="cuda") / 4).to(WDT[dtype])
        b = torch.randn(C, device="cuda").to(WDT[dtype])
        for name, variants in trees:
            e = entry(lib, name, dtype)
            if e is None:
                continue
            for v in variants:
                outs = []
                for sync in (False, True):
                    y1, y2 = torch.full_like(x, float("nan")), torch.full_like(x, float("nan"))
                    torch.cuda.synchronize()
                    rc = call(e, v, 1, x, w, b, y1, (B, C, L, 4, 0))
                    if sync:
                        torch.cuda.synchronize()
                    rc = rc or call(e, v, 1, y1, w, b, y2, (B, C, L, 4, 0))
                    torch.cuda.synchronize()
                    outs.append(bits(y2).clone())
                if rc == 3:
                    continue
                count += 1
                if rc or not torch.equal(outs[0], outs[1]):
                    differ.append(f"{name}:{v} {dtype} [{B},{C},{L}] rc {rc}")
    print(f"# chained forwards: {count} pairs, {len(differ)} differing" + "".join(f"\n#   DIFF {d}" for d in differ[:10]),
          flush=True)


def silu_accuracy(lib):
    """The library's probe_silu_values(form, z, y, n, stream) (f16 SiLU forms on f32 sums z, y rounded to f16)
    against float64 over many z (dense, random, |z| from 2^-30 to 2^14, edges): the largest error in f16 ulps of
    the exact value (0.5: correctly rounded) and in absolute terms, per range of z, and how many y differ from the
    correctly rounded one and from form 0's."""
    f = getattr(lib, "probe_silu_values", None)
    if f is None:
        return
    f.restype, f.argtypes = ctypes.c_int, [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                                           ctypes.c_void_p]
    n = 1 << 22
    g = torch.Generator(device="cuda").manual_seed(22)
    sign = torch.where(torch.rand(n, device="cuda", generator=g) < 0.5, -1.0, 1.0)
    edges = [0.0, -0.0, 1e-30, -1e-30, 6e-8, -6e-8, 1e-4, -1e-4, 11.0, -11.0, 17.0, -17.0, 88.0, -88.0, 89.0, -89.0,
             100.0, -100.0, 1e4, -1e4, 6.5e4, -6.5e4]
    z = torch.cat([torch.linspace(-32, 32, n, device="cuda"), (torch.rand(n, device="cuda", generator=g) * 2 - 1) * 20,
                   torch.randn(n, device="cuda", generator=g) * 4,
                   sign * torch.pow(2.0, torch.rand(n, device="cuda", generator=g) * 44 - 30),
                   torch.tensor(edges, device="cuda")]).float().contiguous()
    ref = z.double() * torch.sigmoid(z.double())
    expo = torch.floor(torch.log2(ref.abs().clamp_min(2.0 ** -24)))
    ulp = torch.pow(2.0, (expo - 10).clamp_min(-24))
    rounded = ref.to(torch.float16)
    bands = [("z<-16", z < -16), ("-16..-4", (z >= -16) & (z < -4)), ("-4..-1", (z >= -4) & (z < -1)),
             ("-1..0", (z >= -1) & (z < 0)), ("|z|<2^-10", z.abs() < 2 ** -10), ("0..1", (z >= 0) & (z < 1)),
             ("1..4", (z >= 1) & (z < 4)), ("4..16", (z >= 4) & (z < 16)), ("z>=16", z >= 16)]
    stream = torch.cuda.current_stream().cuda_stream
    print(f"# f16 SiLU forms on {z.numel()} f32 sums against float64: max error in f16 ulps of the exact y "
          "(0.5 = correctly rounded), [max abs error]; per range of z", flush=True)
    first = None
    for form in range(8):
        y = torch.empty(z.shape, dtype=torch.float16, device="cuda")
        rc = f(form, z.data_ptr(), y.data_ptr(), z.numel(), stream)
        if rc == 3:
            break
        torch.cuda.synchronize()
        if rc:
            print(f"#   form {form}: rc {rc}")
            continue
        err = (y.double() - ref).abs()
        ulps = err / ulp
        worst = int(torch.argmax(ulps))
        cols = " ".join(f"{name} {ulps[m].max().item():.2f} [{err[m].max().item():.1e}]" for name, m in bands)
        off = (y != rounded).double().mean().item()
        vs0 = "" if first is None else f", {(y != first).double().mean().item():.2e} differ from form 0's"
        print(f"#   form {form}: max {ulps.max().item():.2f} ulp at z={z[worst].item():.6g} (y {y[worst].item():.6g}, "
              f"exact {ref[worst].item():.6g}); {off:.2e} not correctly rounded{vs0}; nan {int(torch.isnan(y).sum())}"
              f"\n#     {cols}", flush=True)
        if first is None:
            first = y


class Row:
    def __init__(self, dtype, layout, B, C, L, W, sets=None):
        self.spec = (dtype, layout, B, C, L, W)
        self.name = f"{dtype} {layout} [{B},{C},{L}] W{W}" + (f" sets{sets}" if sets else "")
        self.dims = (B, C, L, W, 1 if layout == "cl" else 0)
        x_bytes = B * C * L * DT[dtype].itemsize
        # the grid's sets (its x, y and dx past L2), unless the row names its own
        nsets = sets or max(1, min(8, math.ceil(2 * L2_BYTES / (3 * x_bytes))))
        self.calls = max(3, min(100, int(2e-3 * 3e12 / (2 * x_bytes) + 1)))
        self.sets = []
        for _ in range(nsets):
            x = make_x(dtype, layout, B, C, L)
            w = (torch.randn(C, W, device="cuda") / W).to(WDT[dtype])
            self.sets.append({"x": x, "w": w, "b": torch.randn(C, device="cuda").to(WDT[dtype]),
                              "y": torch.empty_like(x)})


def time_row(r, sides, tridao, silu):
    dtype = r.spec[0]
    s0 = r.sets[0]
    outs, live = [], []
    for name, e, v in sides:
        y = torch.full_like(s0["y"], float("nan"))
        rc = call(e, v, silu, s0["x"], s0["w"], s0["b"], y, r.dims)
        if rc == 3:
            continue
        if rc != 0:
            raise RuntimeError(f"{name}:{v} status {rc}")
        outs.append(y)
        live.append((name, e, v))
    torch.cuda.synchronize()
    B, C, L, W, _ = r.dims
    ref = reference(s0["x"], s0["w"], s0["b"], silu) if B * C * L <= 1 << 25 else None
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
        checks.append(f"{name}:{v} NOT BITS {'ok' if err <= TOLERANCE[dtype] else 'DIFF'} {err:.1e}")
    if tridao is not None:
        y = torch.empty_like(s0["y"])
        tridao.causal_conv1d_fwd(s0["x"], s0["w"], s0["b"], None, None, y, None, bool(silu))
        err = (y.double() - outs[0].double()).abs().max().item() / scale
        checks.append(f"td {'ok' if err <= TOLERANCE[dtype] else 'DIFF'} {err:.0e}")
    check = "bits" + ("; " + ", ".join(checks) if checks else "")
    calls = []
    for name, e, v in live:
        def enqueue(s, e=e, v=v):
            rc = call(e, v, silu, s["x"], s["w"], s["b"], s["y"], r.dims)
            if rc:
                raise RuntimeError(f"status {rc}")
        calls.append(enqueue)
    if tridao is not None:
        calls.append(lambda s: tridao.causal_conv1d_fwd(s["x"], s["w"], s["b"], None, None, s["y"], None, bool(silu)))
    graphs = [captured_graph(c, r.sets, r.calls) for c in calls]
    after = os.environ.get("PROBE_AFTER") == "1"
    if after:  # each call after an unrelated kernel that does not trigger its dependents early
        pad = torch.empty(4096, device="cuda")
        graphs.append(captured_graph(lambda s: pad.zero_(), r.sets, r.calls))
        graphs += [captured_graph(lambda s, c=c: (pad.zero_(), c(s)), r.sets, r.calls) for c in calls]
    torch.cuda.synchronize()
    ev = [[(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(REPLAYS)]
          for _ in graphs]
    # interleaved (k outer), or with PROBE_SEQUENTIAL=1 as the grid times them: each graph's replays in a row
    order = [(i, k) for i in range(len(graphs)) for k in range(REPLAYS)] if os.environ.get("PROBE_SEQUENTIAL") == "1" \
        else [(i, k) for k in range(REPLAYS) for i in range(len(graphs))]
    for i, k in order:
        ev[i][k][0].record()
        graphs[i].replay()
        ev[i][k][1].record()
    torch.cuda.synchronize()
    med = [sorted(a.elapsed_time(b) * 1000 / r.calls for a, b in e)[REPLAYS // 2] for e in ev]
    # Each side's graph once more: its calls back to back (launches overlapping) leave set 0's y as one call did.
    for (name, _, v), g, y in zip(live, graphs, outs):
        g.replay()
        torch.cuda.synchronize()
        if not torch.equal(bits(s0["y"]), bits(y)):
            check += f"; {name}:{v} GRAPH Y DIFFERS"
    del graphs
    cols = " ".join(f"{n}:{v}={m:.2f}" for (n, _, v), m in zip(live, med[:len(live)]))
    td = ""
    if tridao is not None:
        t = med[-1]
        td = f" td={t:.2f} | vs td " + " ".join(f"{t / m:.3f}" for m in med[:len(live)])
    ratio = " | base/side " + " ".join(f"{med[0] / m:.3f}" for m in med[1:len(live)]) if len(live) > 1 else ""
    print(f"{r.name} s{silu} | {cols}{td}{ratio} | {check}", flush=True)
    if after:  # minus the unrelated kernel's own time (its graph alone)
        k, lone = len(calls), med[len(calls)]
        am = [m - lone for m in med[k + 1:]]
        cols = " ".join(f"{n}:{v}={m:.2f}" for (n, _, v), m in zip(live, am[:len(live)]))
        td = f" td={am[-1]:.2f} | vs td " + " ".join(f"{am[-1] / m:.3f}" for m in am[:len(live)]) if tridao else ""
        print(f"{r.name} s{silu} after a kernel ({lone:.2f} us, subtracted) | {cols}{td}", flush=True)


def main():
    start = time.time()
    lib = ctypes.CDLL(sys.argv[1])
    tridao = None
    if sys.argv[2] != "-":
        sys.path.insert(0, sys.argv[2])
        import causal_conv1d_cuda as tridao
    deadline = start + float(sys.argv[3])
    silus = [int(a) for a in os.environ.get("PROBE_SILU", "1,0").split(",")]  # the grid's rows: SiLU on alone
    spec = sys.argv[4]
    trees = []
    for t in sys.argv[5:]:
        name, _, vs = t.partition(":")
        trees.append((name, [int(v) for v in vs.split(",")] if vs else [0]))
    print(f"# {torch.cuda.get_device_name()} {getattr(torch.cuda.get_device_properties(0), 'uuid', '')}; us per call "
          f"(graph replay, median of {REPLAYS}); rows {spec}; trees {sys.argv[5:]}", flush=True)
    if os.environ.get("PROBE_ONCE") != "1":
        silu_accuracy(lib)
    if spec.startswith("check+"):
        correctness(lib, trees, start + float(os.environ.get("PROBE_CHECK_S", "14")))
        chained(lib, trees)
        spec = spec[len("check+"):]
    if spec.startswith("grid"):
        _, a, b = spec.split(":")
        rows = grid_cases(False)[int(a):int(b)]
    elif spec.startswith("idx:"):
        grid = grid_cases(False)
        rows = [grid[int(i)] for i in spec[4:].split(",")]
    elif spec.startswith("rows:"):  # rows:dtype/layout/B/C/L/W,...
        rows = [(d, lay, int(b), int(c), int(l), int(w)) for d, lay, b, c, l, w in
                (r.split("/") for r in spec[5:].split(","))]
    elif spec == "list":
        rows = LIST
    else:
        rows = []
    for k, case in enumerate(rows):
        if time.time() > deadline:
            print(f"# deadline: {len(rows) - k} rows not run, from {case}", flush=True)
            break
        sides = []
        for name, variants in trees:
            e = entry(lib, name, case[0])
            if e is not None:
                sides += [(name, e, v) for v in variants]
        try:
            r = Row(*case)
            if os.environ.get("PROBE_ONCE") == "1":  # each side once, then Tri Dao's, SiLU on (for a profiler)
                s = r.sets[0]
                for name, e, v in sides:
                    call(e, v, 1, s["x"], s["w"], s["b"], s["y"], r.dims)
                if tridao is not None:  # his kernel beside ours in the same profile
                    tridao.causal_conv1d_fwd(s["x"], s["w"], s["b"], None, None, s["y"], None, True)
                torch.cuda.synchronize()
                continue
            for silu in silus:
                time_row(r, sides, tridao, silu)
            del r
        except Exception as ex:  # noqa: BLE001 (the other rows still run)
            print(f"{case} | ERROR {ex}", flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
