"""The causal conv1d update of several trees (libupdate_probe.so's entries
probe_update_<name>, the first the baseline) beside Tri Dao's
causal_conv1d_update, GPU time per call by CUDA-graph replay, the sides'
replays interleaved, median over the replays.

    python3 run.py <libupdate_probe.so> <tridao folder or -> base tree [more...]

Each row first runs every side once from the same state: y and the state
bit-equal to the baseline's (check "bits" / "DIFF"); the baseline's against
the benchmark's float64 reference (y within its tolerance, the batch rows'
states equal: "ref ok"); and beside Tri Dao's (W <= 4) y within the
tolerance and the states equal."""
import ctypes
import os
import sys
import time
import types

import torch

# The benchmark's float64 reference and graph capture (its module wants the bindings only for its plans).
sys.modules.setdefault("baracuda", types.ModuleType("baracuda"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from tridao_conv1d_update import CALLS, captured, reference  # noqa: E402

REPLAYS = 15
DT = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32, "f64": torch.float64}
CODE = {("bf16", "f32"): 0, ("bf16", "bf16"): 1, ("f16", "f32"): 2, ("f32", "f32"): 3, ("f64", "f64"): 4}
TOLERANCE = {"bf16": 1e-2, "f16": 2e-3, "f32": 1e-5, "f64": 1e-12}


def rows():
    """(x, weights, B, C, W, n, S (0: W-1, shifted), pooled) per row."""
    r = [("bf16", "f32", b, 5376, 4, 1, 16, pool) for pool in (False, True) for b in (1, 4, 16, 64, 128, 256, 512)]
    r += [("bf16", "f32", b, c, 4, 1, 0, False) for b, c in ((16, 5376), (64, 2048), (512, 8192))]
    r += [("bf16", "f32", b, 5376, 4, n, s, False) for s in (16, 0) for n in (2, 4, 8) for b in (64, 256)]
    r += [("bf16", "f32", b, 5376, 4, 2, s, False) for s in (16, 0) for b in (1, 16)]
    r += [("bf16", "f32", b, 5376, w, 1, s, False) for w in (6, 8) for s in (16, 0) for b in (64, 256)]
    r += [(x, wt, b, 4096, 4, 1, 16, False) for x, wt in (("f32", "f32"), ("f16", "f32"), ("bf16", "bf16"))
          for b in (64, 512)]
    r += [("bf16", "f32", 256, 5376, 4, 1, 8, False), ("f64", "f64", 64, 2048, 4, 1, 4, False)]
    r += [("f64", "f64", 64, 2048, w, n, s, pool) for w, n, s, pool in ((2, 1, 2, False), (8, 3, 8, True), (5, 2, 0, False))]
    # without the SiLU (silu 0)
    r += [("bf16", "f32", b, 5376, 4, 1, s, pool, 0) for b, s, pool in ((256, 16, False), (256, 16, True), (64, 0, False))]
    r += [("f32", "f32", 64, 4096, 4, 2, 16, False, 0), ("bf16", "f32", 256, 5376, 6, 1, 16, False, 0)]
    return r


class Row:
    def __init__(self, x, wt, B, C, W, n, S, pooled, silu=1):
        gen = torch.Generator(device="cuda").manual_seed(B * 7919 + C * 31 + W * 7 + n)
        dt, wdt = DT[x], DT[wt]
        self.circular = S > 0
        self.S = S if S else W - 1
        self.P = 2 * B if pooled else B
        rnd = lambda *shape, d=dt: torch.randn(*shape, device="cuda", generator=gen).to(d)
        self.x = rnd(B, C, n)
        self.w, self.bias = rnd(C, W, d=wdt), rnd(C, d=wdt)
        self.state = rnd(self.P, C, self.S)
        self.indices = torch.randperm(self.P, device="cuda", generator=gen)[:B].to(torch.int32) if pooled else None
        self.seqlens = (torch.randint(0, 1000, (B,), device="cuda", generator=gen, dtype=torch.int32)
                        if self.circular else None)
        self.code, self.dims = CODE[(x, wt)], (B, C, n, W, self.S, self.P)
        self.silu = silu
        self.name = (f"{x}/{wt} B{B} C{C} W{W} n{n} " + (f"circ{S}" if S else f"shift{W - 1}") +
                     (" pool" if pooled else "") + ("" if silu else " nosilu"))

    def ours(self, entry, state, y):
        ptr = lambda t: ctypes.c_void_p(t.data_ptr() if t is not None else 0)
        B, C, n, W, S, P = self.dims
        args = (self.code, ptr(self.x), ptr(self.w), ptr(self.bias), ptr(y), ptr(state), ptr(self.seqlens),
                ptr(self.indices), B, C, n, W, S, P, self.silu)

        def call():
            status = entry(*args, ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
            if status != 0:
                raise RuntimeError(f"status {status}")
        call.tensors = (state, y)  # the call writes them through raw pointers: they live as long as it
        return call

    def theirs(self, tridao, state, y):
        return lambda: tridao.causal_conv1d_update(self.x, state, self.w, self.bias, y, bool(self.silu), self.seqlens,
                                                   self.indices)


def graph(call):
    """call captured CALLS times, and call (whose tensors the graph writes: they live as long as it)."""
    return captured(call), call


def bits(t):
    return t.view(torch.int16 if t.element_size() == 2 else torch.int32 if t.element_size() == 4 else torch.int64)


def main():
    lib = ctypes.CDLL(sys.argv[1])
    tridao = None
    if sys.argv[2] != "-":
        sys.path.insert(0, sys.argv[2])
        import causal_conv1d_cuda as tridao
    names = [n for n in sys.argv[3:] if hasattr(lib, f"probe_update_{n}")]
    entries = []
    for n in names:
        e = getattr(lib, f"probe_update_{n}")
        e.restype = ctypes.c_int
        e.argtypes = [ctypes.c_int] + [ctypes.c_void_p] * 7 + [ctypes.c_int64] * 3 + [ctypes.c_int32] + \
            [ctypes.c_int64] * 2 + [ctypes.c_int32, ctypes.c_void_p]
        entries.append(e)
    print(f"# {torch.cuda.get_device_name()}; us per call (graph replay of {CALLS}, median of {REPLAYS}); "
          f"sides: {' '.join(names)}" + (" tridao" if tridao else ""))
    head = " | ".join(names[1:])
    print(f"row | {names[0]} | {head} (x {names[0]}) | tridao | best vs tridao | check")
    deadline = time.time() + float(os.environ.get("PROBE_SECONDS", "1e9"))  # rows starting past it are skipped
    for spec in rows():
        if time.time() > deadline:
            print(f"{spec} | skipped (time)", flush=True)
            continue
        try:
            time_row(spec, entries, tridao)
        except Exception as e:  # noqa: BLE001 (the other rows still run)
            print(f"{spec} | ERROR {e}", flush=True)


def time_row(spec, entries, tridao):
    """One row: the checks, then the timings, printed as one line."""
    r = Row(*spec)
    with_tridao = tridao is not None and spec[4] <= 4 and spec[0] != "f64"  # its widths and dtypes
    # Checks: every side once from the same state.
    outs, sides = [], []  # a side whose entry does not serve the row's dtype (status 3) sits it out
    for e in entries:
        st, y = r.state.clone(), torch.zeros_like(r.x)
        try:
            r.ours(e, st, y)()
        except RuntimeError:
            sides.append(None)
            continue
        outs.append((st, y))
        sides.append(e)
    torch.cuda.synchronize()
    check = "bits" if all(torch.equal(bits(outs[0][0]), bits(s)) and torch.equal(bits(outs[0][1]), bits(y))
                          for s, y in outs[1:]) else "DIFF"
    if r.silu:  # (the benchmark's reference applies the SiLU; without it, Tri Dao's is the check)
        ref_y, ref_state = reference(r.x, r.state, r.w, r.bias, r.seqlens, r.indices)
        base_state = outs[0][0][r.indices.long()] if r.indices is not None else outs[0][0]
        err = (outs[0][1].double() - ref_y).abs().max().item() / max(ref_y.abs().max().item(), 1e-30)
        ok = err <= TOLERANCE[spec[0]] and torch.equal(base_state, ref_state.to(base_state.dtype))
        check += f", ref {'ok' if ok else 'DIFF'} (y {err:.1e})"
    if with_tridao:
        st, y = r.state.clone(), torch.zeros_like(r.x)
        r.theirs(tridao, st, y)()
        ref = outs[0][1].double()
        err = (y.double() - ref).abs().max().item() / max(ref.abs().max().item(), 1e-30)
        ok = err <= TOLERANCE[spec[0]] and torch.equal(st, outs[0][0])
        check += f", tridao {'ok' if ok else 'DIFF'} (y {err:.1e})"
    # Timing: each side on its own state, replays interleaved.
    graphs = [graph(r.ours(e, r.state.clone(), torch.empty_like(r.x))) for e in sides if e]
    if with_tridao:
        graphs.append(graph(r.theirs(tridao, r.state.clone(), torch.empty_like(r.x))))
    times = [[] for _ in graphs]
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(2 * len(graphs) * REPLAYS)]
    k = 0
    for _ in range(REPLAYS):
        for i, g in enumerate(graphs):
            ev[k].record()
            g[0].replay()
            ev[k + 1].record()
            times[i].append((ev[k], ev[k + 1]))
            k += 2
    torch.cuda.synchronize()
    med = [sorted(a.elapsed_time(b) * 1000 / CALLS for a, b in t)[REPLAYS // 2] for t in times]
    ours = iter(med)
    med_of = [next(ours) if e else None for e in sides]  # per entry, None where it sat out
    base = med_of[0]
    cols = " | ".join(f"{m:.2f} ({base / m:.3f}x)" if m else "-" for m in med_of[1:])
    if with_tridao:
        best = min(m for m in med_of[1:] if m) if any(med_of[1:]) else base
        td = f"{med[-1]:.2f} | {med[-1] / best:.3f}x (base {med[-1] / base:.3f}x)"
    else:
        td = "- | -"
    print(f"{r.name} | {base:.2f} | {cols} | {td} | {check}", flush=True)


if __name__ == "__main__":
    main()
