"""The causal conv1d backward of several trees (libconv1d_bwd_probe.so's
entries probe_bwd_<tree>_<d>, the first tree of a set the baseline) beside
Tri Dao's causal_conv1d_bwd, bias, SiLU on or off, f32 weights beside
16-bit x (as bench/tridao_conv1d_grid.py runs them), [B, C, L] or
channels-last, in one process.

    python3 run.py <libconv1d_bwd_probe.so> <tridao folder> set=base,tree,... [set=...]

(sets: rows() below; PROBE_SECONDS: rows starting past it are skipped;
PROBE_MODE=--check: the checks alone.) Each row first runs every side once
on the same tensors: dx, dw and db bit-equal to the baseline's ("bits") or
not ("DIFF" with, per output, "=" or the largest difference relative to the
largest baseline value); on rows of at most 2^25 elements every side's
error against a float64 PyTorch reference (max |err| / max |ref| per
output). Then each side as a CUDA graph of many calls cycling through
tensor sets past L2, the sides' replays interleaved, median of REPEATS
replays, us per call, (Tri Dao's / ours) and [baseline's / ours]."""
import ctypes
import math
import os
import statistics
import sys
import time
import types

import torch
import torch.nn.functional as F

# The grid benchmark's graph capture (its module wants the bindings only for its plans); the staged
# probe carries a copy of it beside this file.
sys.modules.setdefault("baracuda", types.ModuleType("baracuda"))
sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),
                os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")]
from tridao_conv1d_grid import captured_graph as graph, grid_cases  # noqa: E402

REPEATS = int(os.environ.get("PROBE_REPEATS", "7"))
L2_BYTES = 60 << 20
DT = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32, "f64": torch.float64}
CODE = {"bf16": 0, "f16": 2, "f32": 3, "f64": 4}  # PROBE_DTYPE (bench/probes/common/conv1d_probe_view.h; 4: variant.cu)
CAP_BYTES = 10 << 30  # the grid's: x, dy and dx of one set


def grid_rows():
    """bench/tridao_conv1d_grid.py's [B, C, L] cases (bias + SiLU, f32 weights): (dtype, B, C, L, W)."""
    r = [("bf16", 8, 4096, 8192, 4), ("f32", 8, 4096, 8192, 4), ("f16", 2, 1536, 16384, 3)]
    for L in (128, 512, 1024, 4096, 32768):
        for B in (1, 8, 64, 128):
            C = 2048 if 3 * B * 2048 * L * 2 <= CAP_BYTES else 768
            r.append(("bf16", B, C, L, 4))
    r += [("bf16", B, C, L, 4) for B, L in ((8, 4096), (64, 512)) for C in (768, 4096, 8192)]
    r += [(d, B, C, L, W) for B, C, L in ((8, 4096, 4096), (64, 2048, 512)) for d in ("bf16", "f16", "f32")
          for W in (2, 3, 4)]
    out = []
    for row in r:
        d, B, C, L, _ = row
        if row not in out and 3 * B * C * L * torch.finfo(DT[d]).bits // 8 <= CAP_BYTES:
            out.append(row)
    return out


def rows(which):
    """(dtype, B, C, L, W, silu, layout) per row of set `which`: grid (the grid's [B, C, L] rows, SiLU),
    nosilu (a subset without the SiLU), cl (channels-last rows), wide (widths 5-8: bits and float64 errors),
    f32 (the f32 rows, [B, C, L])."""
    if which == "grid":
        return [r + (1, 0) for r in grid_rows()]
    if which in ("gridall", "gridncl", "gridcl"):  # every backward row of bench/tridao_conv1d_grid.py, in its order
        layouts = {"gridall": ("ncl", "cl"), "gridncl": ("ncl",), "gridcl": ("cl",)}[which]
        return [(d, B, C, L, W, 1, int(lay == "cl")) for d, lay, B, C, L, W in grid_cases(False) if lay in layouts]
    if which == "nosilu":
        return [r + (0, 0) for r in (("bf16", 8, 4096, 4096, 4), ("f16", 8, 4096, 4096, 3), ("bf16", 8, 2048, 1024, 4),
                                     ("bf16", 64, 2048, 512, 4), ("bf16", 8, 2048, 32768, 4), ("f32", 8, 4096, 4096, 4),
                                     ("f32", 64, 2048, 512, 4), ("bf16", 1, 2048, 4096, 4), ("bf16", 1, 2048, 2048, 4),
                                     ("f32", 1, 2048, 1024, 2))]
    if which == "cl":
        return [r + (s, 1) for s in (1, 0) for r in (("bf16", 8, 2048, 1024, 4), ("bf16", 8, 4096, 8192, 4),
                                                      ("bf16", 64, 2048, 512, 4), ("f32", 8, 4096, 4096, 4),
                                                      ("f16", 8, 4096, 4096, 3), ("bf16", 1, 2048, 128, 4))]
    if which == "seq":  # channels-last with packed sequences (SEQ_IDX), Tri Dao's too
        return [r + (s, 1, n) for s in (1, 0) for r, n in ((("bf16", 8, 2048, 1024, 4), 4), (("bf16", 8, 4096, 4096, 4), 8),
                                                            (("bf16", 1, 2048, 4096, 3), 3), (("f32", 8, 2048, 2048, 4), 4),
                                                            (("f16", 4, 1536, 2048, 4), 5))]
    if which == "part":  # rows of part tiles (L not a multiple of the register tile), widths 2-8
        return [r + (1, 0) for r in (("bf16", 8, 2048, 1536, 4), ("bf16", 8, 2048, 3072, 4), ("bf16", 4, 2048, 5120, 4),
                                     ("bf16", 8, 2048, 1000, 4), ("bf16", 2, 1024, 6000, 3), ("bf16", 8, 4096, 3072, 2),
                                     ("f16", 8, 2048, 3072, 4), ("bf16", 2, 100, 3000, 7), ("bf16", 3, 64, 1536, 8),
                                     ("bf16", 1, 300, 2040, 5), ("f32", 8, 2048, 3072, 4), ("f32", 8, 2048, 1000, 3),
                                     ("f32", 2, 64, 4100, 5), ("f32", 8, 2048, 4608, 4), ("f32", 1, 100, 700, 2))] + \
            [r + (0, 0) for r in (("bf16", 8, 2048, 3072, 4), ("f32", 8, 2048, 3072, 2), ("bf16", 2, 100, 3000, 6))]
    if which == "mid":  # rows of two warp runs of the register rows (16-bit L 2048, f32 L 1024), and of one
        return [r + (s, 0) for s in (1, 0) for r in (("bf16", 1, 2048, 2048, 4), ("bf16", 8, 2048, 2048, 4),
                                                      ("bf16", 64, 2048, 2048, 4), ("f16", 8, 4096, 2048, 3),
                                                      ("bf16", 3, 1000, 2048, 2), ("f32", 1, 2048, 1024, 4),
                                                      ("f32", 8, 2048, 1024, 4), ("f32", 64, 2048, 1024, 2),
                                                      ("f32", 8, 4096, 512, 4), ("f32", 3, 1000, 512, 3))]
    if which == "issue":  # session 23: the grid's rows the issue asks about, then guards (rows of 1, 2, 8 tiles)
        ncl = [("bf16", 64, 768, 32768, 4), ("bf16", 8, 2048, 32768, 4)]
        cl = [("bf16", 8, 4096, 4096, 2), ("bf16", 64, 2048, 512, 2), ("f32", 64, 2048, 512, 2), ("bf16", 1, 2048, 128, 4)]
        guards = [("bf16", 1, 2048, 32768, 4), ("bf16", 8, 4096, 8192, 4), ("bf16", 1, 2048, 4096, 4),
                  ("f32", 8, 4096, 8192, 4), ("bf16", 8, 4096, 4096, 4), ("bf16", 64, 2048, 4096, 4)]
        return [r + (1, 0) for r in ncl] + [r + (1, 1) for r in cl] + [r + (1, 0) for r in guards]
    if which.startswith("s24"):  # session 24: rows of several register tiles a block, the reduction's blocks, guards
        many = [("bf16", 64, 768, 32768, 4), ("bf16", 8, 2048, 32768, 4), ("bf16", 8, 4096, 8192, 4),
                ("bf16", 1, 2048, 32768, 4), ("f16", 2, 1536, 16384, 3), ("f32", 8, 2048, 32768, 4),
                ("f32", 8, 4096, 8192, 4), ("bf16", 2, 512, 32768, 4), ("f32", 64, 2048, 4096, 4)]
        one = [("bf16", 8, 4096, 4096, 4), ("bf16", 64, 2048, 4096, 4), ("bf16", 1, 2048, 4096, 4),
               ("f16", 8, 4096, 4096, 3), ("bf16", 128, 2048, 4096, 4)]
        cl = [("bf16", 64, 2048, 512, 2), ("f16", 64, 2048, 512, 2), ("f32", 64, 2048, 512, 2),
              ("bf16", 8, 4096, 4096, 2), ("bf16", 1, 2048, 128, 4), ("bf16", 8, 4096, 8192, 4)]
        part = {"s24many": [r + (1, 0) for r in many], "s24one": [r + (1, 0) for r in one],
                "s24cl": [r + (1, 1) for r in cl]}
        return part.get(which, part["s24many"] + part["s24cl"] + part["s24one"])
    if which == "sizes":  # session 23 round 1: the same bytes in fewer slots, fewer bytes in as many
        return [r + (1, 0) for r in (("bf16", 8, 6144, 32768, 4), ("bf16", 16, 768, 32768, 4))]
    if which == "f32":
        return [r + (1, 0) for r in (("f32", 8, 4096, 4096, 4), ("f32", 8, 4096, 4096, 2), ("f32", 8, 4096, 8192, 4),
                                     ("f32", 8, 2048, 1024, 4), ("f32", 1, 2048, 4096, 4), ("f32", 64, 2048, 4096, 4),
                                     ("f32", 8, 2048, 2048, 4), ("f32", 8, 2048, 32768, 4), ("f32", 64, 2048, 512, 4),
                                     ("f32", 64, 2048, 512, 2), ("f32", 8, 2048, 512, 4), ("f32", 1, 2048, 512, 3))]
    if which == "wide":
        return [r + (s, 0) for s in (1, 0) for r in [("bf16", 2, 100, 4096, w) for w in (5, 6, 7, 8)] +
                [("f16", 2, 64, 8192, 6), ("f32", 3, 64, 1024, 5), ("f16", 1, 70, 8192, 8), ("bf16", 3, 50, 1024, 7),
                 ("bf16", 5, 33, 1024, 3), ("f16", 1, 40, 1024, 8), ("bf16", 3, 41, 2048, 8), ("bf16", 1, 77, 2048, 6),
                 ("f32", 3, 41, 1024, 5), ("f32", 1, 77, 512, 5), ("f32", 2, 30, 2048, 4), ("f32", 2, 30, 8192, 5)]]
    if which == "wide2":  # rows of two tiles a block (16-bit, W 2-4, SiLU: 32768 rows of two tiles), W 5-8 and SiLU off beside
        return [("bf16", 8, 4096, 8192, w, s, 0) for s in (1, 0) for w in (5, 6, 7, 8)] + \
            [(d, 8, 4096, 8192, w, 1, 0) for d in ("f16", "bf16") for w in (2, 3, 4)] + \
            [("bf16", 8, 2048, 32768, 4, 0, 0), ("bf16", 2, 16384, 8192, 3, 1, 0)]
    if which == "f64":  # f64 weights: the float64 reference's errors (checks only)
        return [("f64", B, C, L, w, s, lay) for s in (1, 0) for lay in (0, 1) for B, C, L, w in
                ((2, 64, 4096, 4), (3, 40, 1024, 2), (1, 33, 777, 8), (2, 16, 1024, 5), (2, 24, 64, 3))]
    raise ValueError(which)


def reference(s, W, silu):
    """dx, dw, db in float64 through autograd."""
    x = s["x"].double().requires_grad_()
    w = s["w"].double().requires_grad_()
    b = s["b"].double().requires_grad_()
    L = x.shape[2]
    y = F.conv1d(x, w.unsqueeze(1), b, padding=W - 1, groups=x.shape[1])[..., :L]
    y = F.silu(y) if silu else y
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
    deadline = time.time() + float(os.environ.get("PROBE_SECONDS", "1e9"))
    print(f"{torch.cuda.get_device_name()}; us per call, median of {REPEATS} interleaved replays; "
          "(x): Tri Dao's / ours")
    for group in sys.argv[3:]:  # set=tree,tree,...
        which, trees = group.split("=")
        trees = trees.split(",")
        print(f"## {which}: trees {trees}", flush=True)
        if which == "ends":
            row_ends(lib, trees)
            continue
        for row in rows(which):
            if time.time() > deadline:
                print(f"{row}: skipped (time)", flush=True)
                continue
            try:
                run_row(lib, tridao, trees, *row)
            except Exception as e:  # noqa: BLE001 (the next rows still run)
                print(f"{row}: FAILED {type(e).__name__}: {e}", flush=True)
            torch.cuda.empty_cache()


def row_ends(lib, trees):
    """The row ends (DINITIAL_STATES, DFINAL_STATES' dx) of every tree on the same tensors: bits against the first's."""
    ptr = lambda t: ctypes.c_void_p(t.data_ptr() if t is not None else 0)
    for dt in ("bf16", "f16", "f32", "f64"):
        entries = {}
        for t in trees:
            e = getattr(lib, f"probe_bwd_{t}_{CODE[dt]}_row_ends", None)
            if e is not None:
                e.restype = ctypes.c_int
                e.argtypes = [ctypes.c_void_p] * 9 + [ctypes.c_int64] * 3 + [ctypes.c_int32] * 2 + [ctypes.c_void_p]
                entries[t] = e
        if len(entries) < 2:
            continue
        wdt = torch.float64 if dt == "f64" else torch.float32
        diffs = []
        for W in range(2, 9):
            for silu in (0, 1):
                for seq in (False, True):
                    B, C, L = 3, 37, 11 + W
                    gen = torch.Generator(device="cuda").manual_seed(W * 10 + silu * 2 + seq)
                    rnd = lambda *shape, d=DT[dt]: torch.randn(*shape, device="cuda", generator=gen).to(d)
                    x, dy, init, dfinal = rnd(B, C, L), rnd(B, C, L), rnd(B, C, W - 1), rnd(B, C, W - 1)
                    w, b = rnd(C, W, d=wdt), rnd(C, d=wdt)
                    ids = (torch.randint(0, 3, (B, L), device="cuda", generator=gen).sort(dim=1).values.to(torch.int32)
                           if seq else None)
                    outs = []
                    for t, e in entries.items():
                        dx = torch.zeros(B, C, L, device="cuda", dtype=DT[dt])
                        dinit = torch.full((B, C, W - 1), float("nan"), device="cuda", dtype=DT[dt])
                        rc = e(ptr(x), ptr(w), ptr(b), ptr(dy), ptr(dx), ptr(init), ptr(dinit), ptr(dfinal), ptr(ids),
                               B, C, L, W, silu, ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
                        torch.cuda.synchronize()
                        outs.append((rc, dx, dinit))
                    for (rc, dx, di) in outs[1:]:
                        if rc != outs[0][0] or not torch.equal(dx, outs[0][1]) or not torch.equal(di, outs[0][2]):
                            diffs.append(f"W{W} silu{silu} seq{int(seq)} rc {rc}/{outs[0][0]}")
        print(f"row ends {dt} {list(entries)}: 56 cases, " + (f"DIFF {diffs}" if diffs else "bits"), flush=True)


def make(dt, layout, *shape, gen):
    """Random [B, C, L] (never zeros), channels-last memory where layout is 1."""
    B, C, L = shape
    if layout:
        return torch.randn(B, L, C, device="cuda", generator=gen).to(DT[dt]).transpose(1, 2)
    return torch.randn(B, C, L, device="cuda", generator=gen).to(DT[dt])


def run_row(lib, tridao, trees, dt, B, C, L, W, silu, layout, seqs=0):
    ptr = lambda t: ctypes.c_void_p(t.data_ptr() if t is not None else 0)
    name = f"{dt} {'cl' if layout else ''}[{B},{C},{L}] W{W}{'' if silu else ' nosilu'}{f' seq{seqs}' if seqs else ''}"
    entries = {}
    for t in trees:
        try:
            e = getattr(lib, f"probe_bwd_{t}_{CODE[dt]}")
            ws = getattr(lib, f"probe_bwd_{t}_{CODE[dt]}_workspace")
        except AttributeError:
            continue
        e.restype, ws.restype = ctypes.c_int, ctypes.c_int64
        e.argtypes = [ctypes.c_void_p] * 7 + [ctypes.c_int64] * 3 + [ctypes.c_int32, ctypes.c_void_p,
                                                                    ctypes.c_int64, ctypes.c_void_p,
                                                                    ctypes.c_int32, ctypes.c_int32, ctypes.c_void_p]
        ws.argtypes = [ctypes.c_int64] * 3 + [ctypes.c_int32]
        entries[t] = (e, torch.empty(max(ws(B, C, L, W), 1), dtype=torch.uint8, device="cuda"))
    x_bytes = B * C * L * torch.finfo(DT[dt]).bits // 8
    nsets = max(1, min(8, math.ceil(2 * L2_BYTES / (3 * x_bytes))))
    calls = max(3, min(100, int(1.5e-3 * 3e12 / (3 * x_bytes) + 1)))
    gen = torch.Generator(device="cuda").manual_seed(B * 131 + C * 7 + L + W)
    wdt = torch.float64 if dt == "f64" else torch.float32
    # seqs > 0: packed sequences, about seqs a row, ids ascending (sorted random cuts), no padding
    ids = None
    if seqs:
        cuts = torch.sort(torch.randint(1, L, (B, seqs - 1), device="cuda", generator=gen), dim=1).values
        ids = (torch.arange(L, device="cuda")[None, None, :] >= cuts[:, :, None]).sum(1).to(torch.int32).contiguous()
    sets = []
    for _ in range(nsets):
        x = make(dt, layout, B, C, L, gen=gen)
        sets.append({"x": x, "dy": make(dt, layout, B, C, L, gen=gen),
                     "w": (torch.randn(C, W, device="cuda", generator=gen) / W).to(wdt),
                     "b": torch.randn(C, device="cuda", generator=gen).to(wdt), "dx": torch.empty_like(x),
                     "dw": torch.empty(C, W, device="cuda", dtype=wdt), "db": torch.empty(C, device="cuda", dtype=wdt)})

    def ours(t, sums=True):
        e, workspace = entries[t]

        def call(s):
            rc = e(ptr(s["x"]), ptr(s["w"]), ptr(s["b"]), ptr(s["dy"]), ptr(s["dx"]),
                   ptr(s["dw"] if sums else None), ptr(s["db"] if sums else None), B, C, L, W, ptr(workspace),
                   workspace.numel(), ctypes.c_void_p(torch.cuda.current_stream().cuda_stream), silu, layout,
                   ptr(ids))
            if rc != 0:
                raise RuntimeError(f"{t}: status {rc}")
        return call

    def his(s):
        s["dw"].zero_()
        s["db"].zero_()
        tridao.causal_conv1d_bwd(s["x"], s["w"], s["b"], s["dy"], ids, None, None, s["dx"], s["dw"], s["db"],
                                 None, bool(silu))

    # correctness on set 0
    s0 = sets[0]
    outs = {}
    for t in list(entries):
        for k in ("dx", "dw", "db"):  # (what a side leaves unwritten shows as NaN)
            s0[k].fill_(float("nan"))
        try:
            ours(t)(s0)
        except RuntimeError as e:
            print(f"    {e}")
            del entries[t]
            continue
        torch.cuda.synchronize()
        outs[t] = (s0["dx"].clone(), s0["dw"].clone(), s0["db"].clone())
    if W <= 4 and dt != "f64":  # (Tri Dao's kernels serve widths 2-4)
        his(s0)
        torch.cuda.synchronize()
        outs["tridao"] = (s0["dx"].clone(), s0["dw"].clone(), s0["db"].clone())
    ref = reference(s0, W, silu) if B * C * L <= (1 << 25) and not seqs else None
    base = trees[0] if trees[0] in outs else None
    notes = []
    for t, o in outs.items():
        if base and t != base and t != "tridao":
            same = [torch.equal(a, b) for a, b in zip(o, outs[base])]
            notes.append(f"{t}: " + ("bits" if all(same) else "DIFF " + "/".join(
                "=" if eq else f"{rel(a, b.double()):.1e}" for eq, a, b in zip(same, o, outs[base]))))
        if ref is not None and t != "tridao":
            notes.append(f"{t} err " + "/".join(f"{rel(a, r):.1e}" for a, r in zip(o, ref)))
    del ref, outs
    torch.cuda.empty_cache()
    if "--check" in os.environ.get("PROBE_MODE", "") or dt == "f64":
        print(f"{name}: {'; '.join(notes)}", flush=True)
        return
    # timing
    sides = {}
    for t in entries:
        sides[t] = graph(ours(t), sets, calls)
    if W <= 4 and dt != "f64":
        sides["tridao"] = graph(his, sets, calls)
    alone = os.environ.get("PROBE_KERNEL_ALONE", "")  # trees timed without the dw/db reduction too ("1": every tree)
    if alone:
        for t in (t for t in entries if alone == "1" or t in alone.split(",")):
            sides[t + "-k"] = graph(ours(t, sums=False), sets, calls)
    after = os.environ.get("PROBE_AFTER")  # each side also after an unrelated kernel (the grid's --after-kernel)
    if after:
        pad = torch.empty(4096, device="cuda")

        def behind(call):
            return lambda s: (pad.zero_(), call(s))
        for k in list(sides):
            call = his if k == "tridao" else ours(k)
            sides[k + "-a"] = graph(behind(call), sets, calls)
        sides["lone"] = graph(lambda s: pad.zero_(), sets, calls)
    if os.environ.get("PROBE_COPY"):  # a device copy of x's bytes (in pieces of 2^26 elements): % of copy
        n = B * C * L
        src, dst = torch.randn(n, device="cuda").to(DT[dt]), torch.empty(n, device="cuda", dtype=DT[dt])
        piece = 1 << 26

        def copy(s):
            for o in range(0, n, piece):
                dst[o:o + piece].copy_(src[o:o + piece])
        sides["copy"] = graph(copy, [None], calls)
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
    if "lone" in med:  # after-kernel columns: minus the unrelated kernel's own time
        lone = med.pop("lone")
        for k in [k for k in med if k.endswith("-a")]:
            med[k] -= lone
    hisus = med.get("tridao")
    basus = med.get(trees[0])
    hisa, basa = med.get("tridao-a"), med.get(trees[0] + "-a")

    def col(k, v):
        if k == "copy":
            return f"copy {v:.1f}"
        his_, base_ = (hisa, basa) if k.endswith("-a") else (hisus, basus)
        return f"{k} {v:.1f}" + ("" if not his_ or k.startswith("tridao") else f" ({his_ / v:.3f}x)") + \
            ("" if not base_ or k.split("-")[0] in (trees[0], "tridao") else f" [{base_ / v:.3f}]")
    cols = " ".join(col(k, v) for k, v in med.items())
    if "copy" in med:  # the backward moves 3 x's bytes, the copy 2
        cols += " | % of copy: " + " ".join(f"{k} {150 * med['copy'] / v:.0f}" for k, v in med.items()
                                               if k != "copy" and not k.endswith("-a"))
    if os.environ.get("PROBE_ONE_LINE"):
        print(f"{name}: {cols} || {'; '.join(notes)}", flush=True)
    else:
        print(f"{name}: {cols}")
        print(f"    {'; '.join(notes)}", flush=True)
    del sides, sets


if __name__ == "__main__":
    main()
