"""Ours against FlashAttention-2 in turn, with the clock and the energy each side ran at: at the H200's power cap
the clock, not the cycles, may decide a row, so each timing carries NVML's SM clock, power and joules a call.

    python3 clocked.py <libsdpa80_probe.so> <bench dir> <fwd side,...> <bwd side,...> [--heads=256,128,64] [--checks]

Per row and pass (forward: probe_fwd_<side>; backward: the tree's whole backward, probe_bwd_<side>_h*), every
side and FA2's call captured in a CUDA graph; blocks of replays about BLOCK_MS long, the sides in turn, the order
reversed every round (A B, B A, ...), ROUNDS rounds after a warm-up round. A sampler thread reads NVML's SM clock
and power every 2 ms while a block runs. Printed per side: median
ms a call over its blocks (and the medians of its blocks run first and run second in a round), TFLOP/s, mean SM
MHz, mean W, mJ a call (mean W x ms: NVML's energy counter moves too coarsely for blocks this short). The sides' outputs are checked against the first side's before timing (out / lse for the
forward, dK / dV bits and dQ error for the backward). BUDGET_S bounds the whole run.
"""
import os
import sys
import threading
import time

START = time.time()
BUDGET_S = float(os.environ.get("BUDGET_S", "30"))
BLOCK_MS = float(os.environ.get("BLOCK_MS", "120"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, sys.argv[2])
import run  # noqa: E402
import torch_sdpa  # noqa: E402
from gpu_time import fa2_backward_on  # noqa: E402 (its argv layout is ours: argv[2] the bench dir)

try:
    import pynvml
    pynvml.nvmlInit()
    NVML = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
except Exception as e:  # noqa: BLE001 (timings still count without the clock)
    print(f"(no NVML: {e})")
    NVML = None


def left():
    return BUDGET_S - (time.time() - START)


class Sampler:
    """SM clock (MHz) and power (W) every 2 ms while running; the energy counter (mJ) at start and stop."""

    def __init__(self):
        self.on, self.clock, self.power, self.mj = False, [], [], 0.0

    def _loop(self):
        while self.on:
            self.clock.append(pynvml.nvmlDeviceGetClockInfo(NVML, pynvml.NVML_CLOCK_SM))
            self.power.append(pynvml.nvmlDeviceGetPowerUsage(NVML) / 1000.0)
            time.sleep(0.002)

    def __enter__(self):
        if NVML is not None:
            self.e0 = pynvml.nvmlDeviceGetTotalEnergyConsumption(NVML)
            self.on = True
            self.thread = threading.Thread(target=self._loop)
            self.thread.start()
        return self

    def __exit__(self, *exc):
        if NVML is not None:
            self.on = False
            self.thread.join()
            self.mj = float(pynvml.nvmlDeviceGetTotalEnergyConsumption(NVML) - self.e0)


def block(graph, n):
    """ms a call over n replays, and the block's (MHz, W, mJ)."""
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    with Sampler() as s:
        a.record()
        for _ in range(n):
            graph.replay()
        b.record()
        torch.cuda.synchronize()
    mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")  # noqa: E731
    return a.elapsed_time(b) / n, mean(s.clock), mean(s.power), s.mj / n


def med(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else float("nan")


def in_turn(names, graphs, flops, label):
    """Blocks of each graph in turn, the order reversed every round; one line a side."""
    one = []
    for g in graphs:  # the call's length sets the block's replays
        ms, *_ = block(g, 2)
        one.append(ms)
    reps = [max(2, int(BLOCK_MS / m)) for m in one]
    order = list(range(len(graphs)))
    for i in order:  # warm-up round
        block(graphs[i], reps[i])
    got = {i: [] for i in order}
    for r in range(ROUNDS):
        seq = order if r % 2 == 0 else order[::-1]
        for pos, i in enumerate(seq):
            got[i].append((pos,) + block(graphs[i], reps[i]))
    cells = []
    for i, n in enumerate(names):
        rows = got[i]
        ms = med([x[1] for x in rows])
        first = med([x[1] for x in rows if x[0] == 0])
        later = med([x[1] for x in rows if x[0] > 0])
        mhz = sum(x[2] for x in rows) / len(rows)
        w = sum(x[3] for x in rows) / len(rows)
        cells.append(f"{n} {flops / ms / 1e9:6.1f} ({ms:.3f} ms; first {first:.3f} later {later:.3f}; "
                     f"{mhz:4.0f} MHz {w:3.0f} W {w * ms:6.1f} mJ)")
    fa2 = med([x[1] for x in got[len(names) - 1]])
    xs = " ".join(f"{n} x{fa2 / med([x[1] for x in got[i]]):.3f}" for i, n in enumerate(names[:-1]))
    print(f"{label:27s} | " + " | ".join(cells) + f" | vs FA2: {xs}", flush=True)


def forward_row(lib, sides, B, H, S, D, causal, stream):
    p = run.Problem(B, H, H, S, S, D, D, causal)
    gen = torch.Generator(device="cuda").manual_seed(B * H + S + D + 1)
    for t in (p.q, p.k, p.v):
        t.copy_(torch.randn(t.shape, device="cuda", generator=gen))
    p.ws = torch.empty(256, device="cuda", dtype=torch.uint8)
    dims, ptrs = p.dims(False), p.ptrs()
    entries = [(n, run.forward_entry(lib, n)) for n in sides]
    entries = [(n, f) for n, f in entries if f is not None]
    notes, base, served = [], None, []
    for n, f in entries:
        p.out.fill_(float("nan"))
        status = f(dims, ptrs, torch.cuda.current_stream().cuda_stream)
        if status == 3:  # a tile variant of another head size
            continue
        if status != 0:
            raise RuntimeError(f"{n}: forward status {status}")
        served.append((n, f))
        torch.cuda.synchronize()
        if base is None:
            base = (p.out.clone(), p.lse.clone())
        else:
            ob = int((run.bits(p.out) != run.bits(base[0])).sum())
            lb = int((p.lse.view(torch.int32) != base[1].view(torch.int32)).sum())
            eo, el = run.rel_err(p.out, base[0].double()), run.rel_err(p.lse, base[1].double())
            notes.append(f"{n} out-bits {ob} lse-bits {lb} (max rel {eo:.1e} / {el:.1e})"
                         + (" FAIL" if not (eo < 2e-2 and el < 1e-5) else ""))
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        ref = F.scaled_dot_product_attention(p.q, p.k, p.v, is_causal=causal)
    err = run.rel_err(base[0], ref.double())
    notes.append(f"{entries[0][0]} vs FA2 out {err:.1e}" + (" FAIL" if not err < 2e-2 else ""))
    entries = served

    def call(f):
        return lambda: f(dims, ptrs, torch.cuda.current_stream().cuda_stream)

    def fa2():
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            F.scaled_dot_product_attention(p.q, p.k, p.v, is_causal=causal)
    fns = [call(f) for _, f in entries] + [fa2]
    graphs = [torch_sdpa.capture(f, stream) for f in fns]
    flops = 4.0 * B * H * S * S * D / (2 if causal else 1)
    in_turn([n for n, _ in entries] + ["FA2"], graphs, flops, f"fwd B{B} H{H} S{S} D{D} {'causal' if causal else 'full'}")
    print("    " + "; ".join(notes), flush=True)


def backward_row(lib, sides, B, H, S, D, causal, stream):
    p = run.Problem(B, H, H, S, S, D, D, causal)
    gen = torch.Generator(device="cuda").manual_seed(B * H + S + D)
    for t in (p.q, p.k, p.v, p.dout):
        t.copy_(torch.randn(t.shape, device="cuda", generator=gen))
    run.flash_forward(p)
    runs = [(s.name, p.call(s)) for s in sides]
    runs = [(n, r) for n, r in runs if r is not None]
    g0, notes = p.grads(runs[0][1]), []
    for n, r in runs[1:]:
        g = p.grads(r)
        kv = int((run.bits(g[1]) != run.bits(g0[1])).sum() + (run.bits(g[2]) != run.bits(g0[2])).sum())
        dq = ((g[0].double() - g0[0].double()).abs().max() / g0[0].double().abs().max()).item()
        notes.append(f"{n}: kv-bits {kv} dq {dq:.1e}" + (" FAIL" if kv or not dq < 1e-2 else ""))
    fa2 = fa2_backward_on(p, stream)
    fns = [r for _, r in runs] + [fa2]
    graphs = [torch_sdpa.capture(f, stream) for f in fns]
    flops = 2.5 * 4.0 * B * H * S * S * D / (2 if causal else 1)
    in_turn([n for n, _ in runs] + ["FA2"], graphs, flops, f"bwd B{B} H{H} S{S} D{D} {'causal' if causal else 'full'}")
    if notes:
        print("    " + "; ".join(notes), flush=True)


def main():
    import ctypes
    lib = ctypes.CDLL(sys.argv[1])
    fwd_sides = [n for n in sys.argv[3].split(",") if n]
    bwd_sides = [s for s in (run.Side(lib, n) for n in sys.argv[4].split(",") if n) if s.run]
    heads = [int(d) for a in sys.argv if a.startswith("--heads=") for d in a[8:].split(",")]
    rows = [r for h in heads for r in run.ROWS if r[3] == h] if heads else run.ROWS
    passes = [a[9:] for a in sys.argv if a.startswith("--passes=")] or ["bwd,fwd"]
    if "--checks" in sys.argv:  # run.py's: float64 gradients, atomic dK/dV and deterministic bits against the first side
        run.checks(bwd_sides)
    print(f"\n== in turn with the clock: bf16 TFLOP/s (ms a call, median of {ROUNDS} blocks of ~{BLOCK_MS:.0f} ms; "
          "first / later = blocks run first / after the other side in a round), mean SM clock, power, energy a call ==",
          flush=True)
    stream = torch.cuda.Stream()
    for B, H, S, D in rows:
        for causal in (False, True):
            for what in passes[0].split(","):
                if left() < 3:
                    print("(time: rows stopped)", flush=True)
                    return
                try:
                    if what == "bwd" and bwd_sides:
                        backward_row(lib, bwd_sides, B, H, S, D, causal, stream)
                    if what == "fwd" and fwd_sides:
                        forward_row(lib, fwd_sides, B, H, S, D, causal, stream)
                except Exception as e:  # noqa: BLE001 (the other rows still run)
                    print(f"{what} B{B} H{H} S{S} D{D} causal={causal}: ERROR {type(e).__name__} {e}", flush=True)
                torch.cuda.synchronize()
                torch.cuda.empty_cache()
    print(f"# clocked done in {time.time() - START:.1f} s", flush=True)


if __name__ == "__main__":
    main()
