"""The sm_80 attention backward of several trees (libsdpa80_probe.so's entries
probe_bwd_<tree>_h<tile>, the first tree the baseline) beside PyTorch's
FlashAttention-2 backward, in one process on the same data.

    python3 run.py <libsdpa80_probe.so> base staged [variant ...] [--standalone] [--data]

1. Checks, small shapes (bf16, masks, GQA, D != Dv): each side's dQ, dK, dV
   against float64 gradients (max |err| / max |ref|); dK/dV bits of the
   atomic mode and every bit of the deterministic mode against the
   baseline's; the deterministic mode's repeat.
2. Timing rows (the attention table of baselines-h200.md, bf16, both
   causal modes): torch.randn q, k, v, dout as bench/torch_sdpa.py draws
   them, out and lse from PyTorch's flash forward; every side's launches
   interleaved round by round, CUDA events, median; TFLOP/s as torch_sdpa.py
   counts them (2.5 x 4 B H S^2 D, causal halved). The rows' dK/dV bits
   (atomic) and deterministic bits against the baseline's.
3. Forward rows: the baseline's sm_80 forward beside FlashAttention-2's (a
   library built with PROBE_FORWARD=1); with --standalone the second side's
   backward and FlashAttention-2's timed as bench_ops and torch_sdpa.py time
   them, one at a time, each call waited for.
4. With --data: the baseline's forward and backward and FlashAttention-2's on
   torch.randn data, on bench_ops' new standard-normal fill and on its old
   random bits (the kernels' time depends on their data)."""
import ctypes
import math
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from report import median_ms  # noqa: E402 (bench/: the benchmarks' own timing, for the bench-style rows)

REPS = 15
TILES = (64, 128, 256)


def head_tile(D, Dv):
    d = max(D, Dv)
    return 64 if d <= 64 else 128 if d <= 128 else 256


class Side:
    """One tree's (or variant's) entries by head tile."""

    def __init__(self, lib, name):
        self.name, self.run, self.ws = name, {}, {}
        for t in TILES:
            sym = f"probe_bwd_{name}_h{t}"
            if hasattr(lib, sym):
                f, w = getattr(lib, sym), getattr(lib, sym + "_ws")
                f.restype, f.argtypes = ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                                                       ctypes.c_void_p]
                w.restype, w.argtypes = ctypes.c_size_t, [ctypes.c_void_p]
                self.run[t], self.ws[t] = f, w


class Problem:
    """Dense bf16 tensors of one problem and the arrays the entries take."""

    def __init__(self, B, Hq, Hkv, Q, K, D, Dv, causal=False, br=False, wl=-1, wr=-1, softcap=0.0, alibi=0):
        self.B, self.Hq, self.Hkv, self.Q, self.K, self.D, self.Dv = B, Hq, Hkv, Q, K, D, Dv
        self.causal, self.br, self.wl, self.wr = causal, br, wl, wr
        self.softcap, self.alibi = softcap, alibi  # the forward entries' alone
        self.slopes = torch.linspace(-0.5, 0.25, Hq, device="cuda", dtype=torch.float32)
        dev, bf = "cuda", torch.bfloat16
        self.q = torch.empty(B, Hq, Q, D, device=dev, dtype=bf)
        self.k = torch.empty(B, Hkv, K, D, device=dev, dtype=bf)
        self.v = torch.empty(B, Hkv, K, Dv, device=dev, dtype=bf)
        self.dout = torch.empty(B, Hq, Q, Dv, device=dev, dtype=bf)
        self.out = torch.empty(B, Hq, Q, Dv, device=dev, dtype=bf)
        self.lse = torch.empty(B, Hq, Q, device=dev, dtype=torch.float32)
        self.dq, self.dk, self.dv = torch.empty_like(self.q), torch.empty_like(self.k), torch.empty_like(self.v)
        self.ws, self.old_ws = None, []

    def dims(self, det, passes_only=False):
        """passes_only: K = 0, so that the entry runs the passes around the main kernel alone."""
        d = [self.B, self.Hq, self.Hkv, self.Q, 0 if passes_only else self.K, self.D, self.Dv, int(self.causal),
             int(self.br), self.wl, self.wr, int(det), int(round(self.softcap * 1000)), self.alibi]
        return (ctypes.c_int64 * len(d))(*d)

    def ptrs(self):
        ts = [self.q, self.k, self.v, self.out, self.dout, self.lse, self.dq, self.dk, self.dv, self.ws, self.slopes]
        return (ctypes.c_void_p * len(ts))(*[t.data_ptr() if t is not None else None for t in ts])

    def call(self, side, det=False, passes_only=False):
        """A function running side's backward (None when side has no entry for the problem)."""
        t = head_tile(self.D, self.Dv)
        if t not in side.run:
            return None
        dims = self.dims(det, passes_only)
        need = max(side.ws[t](self.dims(False)), side.ws[t](self.dims(True)))
        if self.ws is None or self.ws.numel() < need:
            self.old_ws.append(self.ws)  # earlier runs hold its address
            self.ws = torch.empty(max(need, 256), device="cuda", dtype=torch.uint8)
        ptrs, n, f = self.ptrs(), self.ws.numel(), side.run[t]

        def run():
            status = f(dims, ptrs, n, torch.cuda.current_stream().cuda_stream)
            if status != 0:
                raise RuntimeError(f"{side.name}: status {status}")
        # A tile variant serves the atomic mode alone (status 3 otherwise).
        if det and f(dims, ptrs, n, torch.cuda.current_stream().cuda_stream) == 3:
            return None
        return run

    def grads(self, run):
        for t in (self.dq, self.dk, self.dv):
            t.fill_(float("nan"))
        run()
        torch.cuda.synchronize()
        return self.dq.clone(), self.dk.clone(), self.dv.clone()


def bits(t):
    return t.view(torch.int16)


def reference(p):
    """float64 forward (out rounded to bf16, lse) and gradients."""
    g = p.Hq // p.Hkv
    q, k, v = (t.double().requires_grad_() for t in (p.q, p.k, p.v))
    kk, vv = k.repeat_interleave(g, 1), v.repeat_interleave(g, 1)
    s = q @ kk.transpose(-1, -2) / math.sqrt(p.D)
    i = torch.arange(p.Q, device="cuda")[:, None] + (p.K - p.Q if p.br else 0)
    j = torch.arange(p.K, device="cuda")[None, :]
    vis = torch.ones(p.Q, p.K, dtype=torch.bool, device="cuda")
    if p.causal:
        vis &= j <= i
    if p.wr >= 0:
        vis &= j <= i + p.wr
    if p.wl >= 0:
        vis &= j >= i - p.wl
    s = s.masked_fill(~vis, -math.inf)
    lse = torch.logsumexp(s, -1)
    # A row that sees no key: P = 0 (out 0, no gradient), as the kernels give it, not softmax's NaN.
    seen = vis.any(-1, keepdim=True)
    o = (torch.softmax(s.masked_fill(~seen, 0.0), -1) * seen) @ vv
    o.backward(p.dout.double())
    p.out.copy_(o.detach())
    p.lse.copy_(lse.detach())
    return q.grad, k.grad, v.grad


def rel_err(got, ref):
    g = got.double()
    if not torch.isfinite(g).all():
        return math.inf
    return ((g - ref).abs().max() / ref.abs().max().clamp_min(1e-30)).item()


CASES = [  # name, B, Hq, Hkv, Q, K, D, Dv, causal, bottom_right, window_left, window_right
    ("D128 GQA2 causal Q=K=200", 2, 4, 2, 200, 200, 128, 128, True, False, -1, -1),
    ("D128 Q77 K130 br-causal", 1, 2, 2, 77, 130, 128, 128, True, True, -1, -1),
    ("D128 Q130 K77 tl-causal", 1, 2, 1, 130, 77, 128, 128, True, False, -1, -1),
    ("D128 B4 H8 Q=K=520 causal", 4, 8, 8, 520, 520, 128, 128, True, False, -1, -1),
    ("D128 Q=K=700 causal left100", 1, 2, 2, 700, 700, 128, 128, True, False, 100, -1),
    ("D80/Dv48 GQA4 Q100 K190 right7", 1, 4, 1, 100, 190, 80, 48, False, False, -1, 7),
    ("D64 B2 H40 Q=K=256 causal", 2, 40, 40, 256, 256, 64, 64, True, False, -1, -1),
    ("D64 Q=K=256", 1, 2, 2, 256, 256, 64, 64, False, False, -1, -1),
    ("D64 B3 H5 Q300 K333 br-causal", 3, 5, 5, 300, 333, 64, 64, True, True, -1, -1),
    ("D256 GQA2 causal Q=K=200", 2, 4, 2, 200, 200, 256, 256, True, False, -1, -1),
    ("D256 B3 H10 Q250 K300 br-causal", 3, 10, 10, 250, 300, 256, 256, True, True, -1, -1),
    ("D256/Dv128 Q190 K100 tl-causal", 1, 2, 2, 190, 100, 256, 128, True, False, -1, -1),
    # Rows that see no key (dq = 0 there), GQA: the kv head's last block converts every row of its query heads.
    ("D64 GQA2 Q200 K77 br-causal", 2, 4, 2, 200, 77, 64, 64, True, True, -1, -1),
    ("D32/Dv96 Q70 K300 left20", 1, 3, 1, 70, 300, 32, 96, False, False, 20, -1),
    # Head sizes short of their tile, past a 32-column dQ chunk's start (dQ's rows staged 128 bytes at a time).
    ("D200/Dv136 Q150 K210 causal", 1, 3, 3, 150, 210, 200, 136, True, False, -1, -1),
    ("D40/Dv64 GQA2 Q300 K260 br-causal", 2, 4, 2, 300, 260, 40, 64, True, True, -1, -1),
    # One key past 65535 key tiles of 64: the staged tree's atomic run takes the deterministic kernels.
    ("D64 Q64 K4194305", 1, 1, 1, 64, 65535 * 64 + 1, 64, 64, False, False, -1, -1),
]


def checks(sides):
    print("== checks: max|err|/max|ref| of dq dk dv against float64; bits: atomic dK/dV and deterministic "
          "dQ/dK/dV against the baseline's (differing elements), det repeat ==")
    failures = 0
    for case, (name, *args) in enumerate(CASES):
        try:
            failures += check_case(sides, case, name, args)
        except Exception as e:  # noqa: BLE001 (the other cases still run)
            print(f"{name}: ERROR {e}", flush=True)
            failures += 1
    print(f"checks: {failures} case(s) failed", flush=True)
    return failures


def check_case(sides, case, name, args):
    base = sides[0]
    if head_tile(args[5], args[6]) not in base.run:  # a library built for other head tiles
        return 0
    p = Problem(*args)
    gen = torch.Generator(device="cuda").manual_seed(1000 + case)
    for t in (p.q, p.k, p.v, p.dout):
        t.copy_(torch.randn(t.shape, device="cuda", generator=gen))
    ref = reference(p)
    line, ok = [f"{name:34s}"], True
    base_runs = {det: p.call(base, det) for det in (False, True)}
    base_g = {det: p.grads(r) for det, r in base_runs.items() if r}
    base_err = [rel_err(x, r) for x, r in zip(base_g[False], ref)]
    line.append("base " + " ".join(f"{e:.2e}" for e in base_err))
    for side in sides[1:]:
        run = p.call(side)
        if run is None:
            continue
        try:
            g = p.grads(run)
        except RuntimeError as e:  # a tile variant refuses what it does not serve (status 3)
            if "status 3" not in str(e):
                raise
            continue
        err = [rel_err(x, r) for x, r in zip(g, ref)]
        kv = int((bits(g[1]) != bits(base_g[False][1])).sum() + (bits(g[2]) != bits(base_g[False][2])).sum())
        # dQ's atomics add in any order: its error may move a little; dK/dV keep the base's sums.
        good = all(e <= 1.25 * b + 1e-6 for e, b in zip(err, base_err))
        msg = f"| {side.name} " + " ".join(f"{e:.2e}" for e in err) + f" kv-bits {kv}"
        if p.K > 65535 * 64 and True in base_g:  # the atomic run takes turns: the deterministic bits
            msg += " atomic-vs-base-det-bits " + str(sum(int((bits(a) != bits(b)).sum()) for a, b in zip(g, base_g[True])))
        det_run = p.call(side, True)
        if det_run is not None and True in base_g:
            gd, gd2 = p.grads(det_run), p.grads(det_run)
            diff = sum(int((bits(a) != bits(b)).sum()) for a, b in zip(gd, base_g[True]))
            rep = sum(int((bits(a) != bits(b)).sum()) for a, b in zip(gd, gd2))
            msg += f" det-bits {diff} rep {rep}"
            good = good and diff == 0 and rep == 0
        line.append(msg + ("" if good else " FAIL"))
        ok = ok and good
    print(" ".join(line), flush=True)
    return 0 if ok else 1


def timed(fns, reps=REPS, warm=2):
    """Median ms of each function, launches interleaved round by round. Each round opens on a spin kernel, so
    that the host enqueues the first function's launch before the GPU reaches it (after the round's
    synchronize an idle GPU would wait for it between the events: 10-15 us, 6% of a D 64 forward)."""
    ev = [[(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in fns]
          for _ in range(reps + warm)]
    for r in range(reps + warm):
        torch.cuda._sleep(200000)
        for f, (a, b) in zip(fns, ev[r]):
            a.record()
            f()
            b.record()
        torch.cuda.synchronize()
    ms = [sorted(ev[r][i][0].elapsed_time(ev[r][i][1]) for r in range(warm, reps + warm)) for i in range(len(fns))]
    return [m[len(m) // 2] for m in ms]


def flash_forward(p):
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        r = torch.ops.aten._scaled_dot_product_flash_attention(p.q, p.k, p.v, 0.0, p.causal, False)
    p.out.copy_(r[0])
    p.lse.copy_(r[1].reshape(p.B, p.Hq, -1)[..., :p.Q])


def fa2_backward(p):
    q, k, v = (t.detach().clone().requires_grad_() for t in (p.q, p.k, p.v))
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        out = F.scaled_dot_product_attention(q, k, v, is_causal=p.causal)
    return lambda: torch.autograd.grad(out, (q, k, v), p.dout, retain_graph=True)


ROWS = [(4, 32, 4096, 128), (2, 32, 8192, 128), (16, 16, 1024, 64), (8, 16, 2048, 256)]


def timing(sides):
    names = [s.name for s in sides]
    print(f"\n== timing: bf16 TFLOP/s (ms median of {REPS}, launches interleaved); x = / {names[0]}; "
          "checks: atomic dK/dV bits and deterministic bits against the baseline's ==")
    for B, H, S, D in ROWS:
        for causal in (False, True):
            try:
                timing_row(sides, B, H, S, D, causal)
            except Exception as e:  # noqa: BLE001 (the other rows still run)
                print(f"B{B} H{H} S{S} D{D} causal={causal}: ERROR {e}", flush=True)
            torch.cuda.empty_cache()


def timing_row(sides, B, H, S, D, causal):
    p = Problem(B, H, H, S, S, D, D, causal)
    gen = torch.Generator(device="cuda").manual_seed(B * H + S + D)
    for t in (p.q, p.k, p.v, p.dout):
        t.copy_(torch.randn(t.shape, device="cuda", generator=gen))
    flash_forward(p)
    flops = 2.5 * 4.0 * B * H * S * S * D / (2 if causal else 1)
    row = f"B{B} H{H} S{S} D{D} {'causal' if causal else 'full'}"
    runs = [(s.name, p.call(s)) for s in sides]
    runs = [(n, r) for n, r in runs if r is not None]
    dets = [(s.name + " det", p.call(s, True)) for s in sides] if S <= 4096 else []
    dets = [(n, r) for n, r in dets if r is not None]
    # Checks before timing: the gradients' bits.
    g0 = p.grads(runs[0][1])
    notes = []
    for n, r in runs[1:]:
        g = p.grads(r)
        kv = int((bits(g[1]) != bits(g0[1])).sum() + (bits(g[2]) != bits(g0[2])).sum())
        dq = ((g[0].double() - g0[0].double()).abs().max() / g0[0].double().abs().max()).item()
        notes.append(f"{n}: kv-bits {kv} dq {dq:.1e}")
    if dets:
        a = p.grads(dets[0][1])
        for n, r in dets[1:]:
            b = p.grads(r)
            notes.append(f"{n}-bits " + str(sum(int((bits(x) != bits(y)).sum()) for x, y in zip(a, b))))
    fns = [r for _, r in runs] + [r for _, r in dets] + [p.call(sides[0], passes_only=True), fa2_backward(p)]
    labels = [n for n, _ in runs] + [n for n, _ in dets] + ["passes", "FA2"]
    ms = timed(fns)
    base_ms = ms[0]
    cells = [f"{lab} {flops / m / 1e9:6.1f} ({m:.3f}" + (")" if i == 0 else f", x{base_ms / m:.3f})")
             for i, (lab, m) in enumerate(zip(labels, ms))]
    best = min(ms[:len(runs)])
    print(f"{row:28s} | " + " | ".join(cells) + f" | best/FA2 {ms[-1] / best:.3f} | " + "; ".join(notes),
          flush=True)


def standalone_rows(sides):
    """bench_ops' and torch_sdpa.py's way (report.median_ms): one side at a time, each call waited for, so that
    a call's host work before its kernels start is in its time; the last tree against FlashAttention-2."""
    ours = sides[1] if len(sides) > 1 else sides[0]
    print(f"\n== one side at a time, each call waited for (as bench_ops and torch_sdpa.py time): {ours.name} and FA2 ==")
    for B, H, S, D in ROWS:
        for causal in (False, True):
            p = Problem(B, H, H, S, S, D, D, causal)
            for t in (p.q, p.k, p.v, p.dout):
                t.copy_(torch.randn(t.shape, device="cuda", dtype=torch.bfloat16))
            flash_forward(p)
            flops = 2.5 * 4.0 * B * H * S * S * D / (2 if causal else 1)
            ms = [median_ms(f, 10) for f in (p.call(ours), fa2_backward(p))]
            print(f"B{B} H{H} S{S} D{D} {'causal' if causal else 'full':6s} | {ours.name} {flops / ms[0] / 1e9:6.1f} "
                  f"| FA2 {flops / ms[1] / 1e9:6.1f} | x{ms[1] / ms[0]:.3f}", flush=True)
            del p
            torch.cuda.empty_cache()


def forward_entry(lib, name):
    fwd = getattr(lib, f"probe_fwd_{name}", None)
    if fwd is not None:
        fwd.restype, fwd.argtypes = ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    return fwd


# Forward cases for bit checks against the baseline's forward: (B, Hq, Hkv, Q, K, D, Dv, causal, br, wl, wr,
# softcap, alibi).
FORWARD_CASES = [
    (2, 4, 4, 300, 300, 256, 256, False, False, -1, -1, 0.0, 0),
    (2, 4, 2, 257, 389, 256, 256, True, False, -1, -1, 0.0, 0),
    (1, 8, 1, 389, 257, 256, 256, True, True, -1, -1, 0.0, 0),
    (1, 4, 4, 500, 500, 256, 256, False, False, 70, 33, 0.0, 0),
    (1, 4, 4, 200, 333, 256, 256, True, True, -1, -1, 30.0, 0),
    (1, 4, 4, 333, 200, 256, 256, False, False, -1, -1, 0.0, 1),
    (1, 4, 2, 270, 270, 256, 256, True, False, -1, -1, 0.0, 2),
    (1, 3, 3, 130, 170, 192, 192, True, False, -1, -1, 0.0, 0),
    (1, 3, 3, 150, 150, 256, 136, False, False, -1, -1, 0.0, 0),
    (1, 3, 3, 150, 150, 136, 248, True, True, -1, -1, 0.0, 0),
    (1, 2, 2, 1, 700, 256, 256, False, False, -1, -1, 0.0, 0),
    (1, 2, 2, 90, 1, 256, 256, False, False, -1, -1, 0.0, 0),
    (1, 2, 2, 64, 40, 256, 256, True, False, -1, -1, 0.0, 0),
    (2, 16, 16, 1024, 1024, 256, 256, True, False, -1, -1, 0.0, 0),
]


def forward_checks(lib, variants):
    """Each variant's out and lse against the baseline's forward, bit for bit (differing elements), and both
    against float64 (max |err| / max |ref|), on FORWARD_CASES: masks, windows, softcap, ALiBi, GQA, D != Dv,
    Q != K, rows that see no key; a NaN left in out or lse counts as differing."""
    fwd = forward_entry(lib, "base")
    extra = [(n, forward_entry(lib, n)) for n in variants]
    extra = [(n, f) for n, f in extra if f is not None]
    if fwd is None or not extra:
        return 0
    print("\n== forward checks: out / lse bits against the baseline's (differing elements); err vs float64 ==")
    failed = 0
    for B, Hq, Hkv, Q, K, D, Dv, causal, br, wl, wr, cap, alibi in FORWARD_CASES:
        p = Problem(B, Hq, Hkv, Q, K, D, Dv, causal, br, wl, wr, cap, alibi)
        gen = torch.Generator(device="cuda").manual_seed(Q * 7 + K + D)
        for t in (p.q, p.k, p.v):
            t.copy_(torch.randn(t.shape, device="cuda", generator=gen))
        p.ws = torch.empty(256, device="cuda", dtype=torch.uint8)
        dims, ptrs = p.dims(False), p.ptrs()
        s = torch.cuda.current_stream().cuda_stream
        p.out.fill_(float("nan"))
        p.lse.fill_(float("nan"))
        if fwd(dims, ptrs, s) != 0:
            print(f"  case {B},{Hq},{Hkv},{Q},{K},{D},{Dv}: base status != 0")
            failed += 1
            continue
        torch.cuda.synchronize()
        base_out, base_lse = p.out.clone(), p.lse.clone()
        ref_out, ref_lse = forward_reference(p)
        err = rel_err(base_out, ref_out)
        cells = [f"base err {err:.1e}"]
        for n, f in extra:
            p.out.fill_(float("nan"))
            p.lse.fill_(float("nan"))
            st = f(dims, ptrs, s)
            if st == 3:
                continue
            torch.cuda.synchronize()
            ob = int((bits(p.out) != bits(base_out)).sum())
            lb = int((p.lse.view(torch.int32) != base_lse.view(torch.int32)).sum())
            e = rel_err(p.out, ref_out)
            el = lse_err(p.lse, ref_lse)
            # Bits tell whether a variant keeps the baseline's arithmetic; the errors whether it is right.
            bad = st != 0 or not (e <= 1.25 * err + 2e-4 and el <= 1e-5)
            failed += bad
            cells.append(f"{n} status {st} out-bits {ob} lse-bits {lb} err {e:.1e} lse {el:.0e}" + (" FAIL" if bad else ""))
        name = (f"B{B} H{Hq}/{Hkv} Q{Q} K{K} D{D}/{Dv}" + (" br" if br else " tl") * causal +
                (" causal" if causal else "") + (f" win{wl},{wr}" if wl >= 0 else "") +
                (f" cap{cap:g}" if cap else "") + (f" alibi{alibi}" if alibi else ""))
        print(f"  {name:44s} " + " | ".join(cells), flush=True)
        del p
    print(f"forward checks: {failed} failed")
    return failed


def lse_err(got, ref):
    """max |got - ref| / max |ref| over rows that see a key; inf where a row that sees none is not -inf."""
    g, seen = got.double(), torch.isfinite(ref)
    if not bool((g[~seen] == -math.inf).all()) or not bool(torch.isfinite(g[seen]).all()):
        return math.inf
    if not bool(seen.any()):
        return 0.0
    return ((g[seen] - ref[seen]).abs().max() / ref[seen].abs().max().clamp_min(1e-30)).item()


def forward_reference(p):
    """float64 out (and lse) of p's forward, masks, softcap and ALiBi included."""
    g = p.Hq // p.Hkv
    q = p.q.double()
    k = p.k.double().repeat_interleave(g, 1)
    v = p.v.double().repeat_interleave(g, 1)
    s = q @ k.transpose(-1, -2) / math.sqrt(p.D)
    if p.softcap:
        s = p.softcap * torch.tanh(s / p.softcap)
    i = torch.arange(p.Q, device="cuda").view(-1, 1) + (p.K - p.Q if p.br else 0)
    j = torch.arange(p.K, device="cuda").view(1, -1)
    if p.alibi:
        d = (j - i).double()
        s = s + p.slopes.double().view(1, -1, 1, 1) * (d if p.alibi == 1 else -d.abs())
    vis = torch.ones(p.Q, p.K, dtype=torch.bool, device="cuda")
    if p.causal:
        vis &= j <= i
    if p.wl >= 0:
        vis &= j >= i - p.wl
    if p.wr >= 0:
        vis &= j <= i + p.wr
    s = s.masked_fill(~vis, float("-inf"))
    lse = torch.logsumexp(s, -1)
    pr = torch.exp(s - lse.unsqueeze(-1)).nan_to_num(0.0)
    return pr @ v, lse


def forward_rows(lib, variants=(), rows=None):
    """The baseline's sm_80 forward beside FlashAttention-2's (and forward tile variants, probe_fwd_<name>, on the
    rows of their head size: out and lse against the baseline's first), torch.randn data."""
    fwd = forward_entry(lib, "base")
    if fwd is None:
        return
    extra = [(n, forward_entry(lib, n)) for n in variants]
    extra = [(n, f) for n, f in extra if f is not None]
    print(f"\n== forward: the baseline's sm_80 forward, variants and FA2's, bf16 TFLOP/s (ms median of {REPS}, "
          "interleaved); x = FA2 / sm80; variants: max |out - base's| / max |base's|, lse likewise ==")
    for B, H, S, D in rows or ROWS:
        for causal in (False, True):
            p = Problem(B, H, H, S, S, D, D, causal)
            for t in (p.q, p.k, p.v):
                t.copy_(torch.randn(t.shape, device="cuda", dtype=torch.bfloat16))
            p.ws = torch.empty(256, device="cuda", dtype=torch.uint8)
            dims, ptrs = p.dims(False), p.ptrs()

            def call(f):
                def run():
                    if f(dims, ptrs, torch.cuda.current_stream().cuda_stream) != 0:
                        raise RuntimeError("forward")
                return run

            p.out.fill_(float("nan"))
            call(fwd)()
            base_out, base_lse = p.out.clone(), p.lse.clone()
            fns, names, notes = [call(fwd)], ["sm80"], []
            for n, f in extra:
                p.out.fill_(float("nan"))
                if f(dims, ptrs, torch.cuda.current_stream().cuda_stream) == 3:
                    continue
                torch.cuda.synchronize()
                eo = rel_err(p.out, base_out.double())
                el = rel_err(p.lse, base_lse.double())
                notes.append(f"{n} out {eo:.1e} lse {el:.1e}" + (" FAIL" if not (eo < 2e-2 and el < 1e-5) else ""))
                fns.append(call(f))
                names.append(n)
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                ms = timed(fns + [lambda: F.scaled_dot_product_attention(p.q, p.k, p.v, is_causal=causal)])
            flops = 4.0 * B * H * S * S * D / (2 if causal else 1)
            cells = [f"{n} {flops / m / 1e9:6.1f} ({m:.3f}, x{ms[-1] / m:.3f})" for n, m in zip(names, ms)]
            print(f"B{B} H{H} S{S} D{D} {'causal' if causal else 'full':6s} | " + " | ".join(cells) +
                  f" | FA2 {flops / ms[-1] / 1e9:6.1f} ({ms[-1]:.3f}) | " + "; ".join(notes), flush=True)
            del p
            torch.cuda.empty_cache()


def data_rows(lib, base):
    fwd = getattr(lib, "probe_fwd_base", None)
    if fwd is None:
        print("\n(no forward entry: data rows skipped)")
        return
    fwd.restype, fwd.argtypes = ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    fill_bits, fill_normal = lib.probe_fill_bits, lib.probe_fill_normal_bf16
    fill_bits.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint32]
    fill_normal.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint64]
    print("\n== data: the baseline's sm_80 forward / backward and FA2's, TFLOP/s, on three inputs ==")
    for B, H, S, D, causal in ((4, 32, 4096, 128, False), (4, 32, 4096, 128, True), (8, 16, 2048, 256, False),
                               (8, 16, 2048, 256, True)):
        p = Problem(B, H, H, S, S, D, D, causal)
        flops = 4.0 * B * H * S * S * D / (2 if causal else 1)
        row = f"B{B} H{H} S{S} D{D} {'causal' if causal else 'full'}"
        for data in ("randn", "normal fill", "bench bits"):
            for i, t in enumerate((p.q, p.k, p.v, p.dout)):
                if data == "randn":
                    t.copy_(torch.randn(t.shape, device="cuda", dtype=torch.bfloat16))
                elif data == "normal fill":
                    fill_normal(t.data_ptr(), t.numel(), 15 + i)
                else:
                    fill_bits(t.data_ptr(), t.numel() * 2, t.numel() * 2)
            torch.cuda.synchronize()
            st = [float(x) for x in (p.q.float().mean(), p.q.float().std())]
            bwd = p.call(base)  # the workspace first: ptrs holds its address
            dims, ptrs = p.dims(False), p.ptrs()

            def ours_fwd():
                if fwd(dims, ptrs, torch.cuda.current_stream().cuda_stream) != 0:
                    raise RuntimeError("forward")

            ours_fwd()
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                fa2_fwd = (lambda: F.scaled_dot_product_attention(p.q, p.k, p.v, is_causal=causal))
                ms = timed([ours_fwd, fa2_fwd, bwd, fa2_backward(p)])
            print(f"{row:28s} {data:11s} (q mean {st[0]:+.3f} std {st[1]:.3f}) | fwd ours {flops / ms[0] / 1e9:6.1f} "
                  f"FA2 {flops / ms[1] / 1e9:6.1f} | bwd ours {2.5 * flops / ms[2] / 1e9:6.1f} "
                  f"FA2 {2.5 * flops / ms[3] / 1e9:6.1f}", flush=True)
        del p
        torch.cuda.empty_cache()


def main():
    lib = ctypes.CDLL(sys.argv[1])
    sides = [Side(lib, n) for n in sys.argv[2:] if not n.startswith("--")]
    sides = [s for s in sides if s.run]
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}; sides: "
          + ", ".join(f"{s.name} (tiles {sorted(s.run)})" for s in sides), flush=True)
    checks(sides)
    timing(sides)
    forward_rows(lib)
    if "--standalone" in sys.argv:
        standalone_rows(sides)
    if "--data" in sys.argv:
        data_rows(lib, sides[0])


if __name__ == "__main__":
    main()
