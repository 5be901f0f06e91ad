"""Session 20's rounds: the sm_80 backward of several trees (run.py's library
and checks) beside PyTorch's FlashAttention-2, every side timed by GPU time.

    python3 gpu_time.py <libsdpa80_probe.so> <bench dir> base staged [variant ...] [--torch-sdpa] [--profile]

1. run.py's checks (float64 gradients, bits against the baseline's).
2. Timing rows: each side's whole backward (passes and main kernel) and
   FA2's backward call (autograd's, on a forward made once) captured into
   CUDA graphs, the graphs replayed in turn round by round between CUDA
   events (median); the passes alone of the first two sides; deterministic
   sides at S <= 4096. Bits of the rows against the baseline's.
3. --forward: the baseline's sm_80 forward beside FA2's (run.py's rows),
   with --fwd=a,b forward tile variants (build.sh's PROBE_FWD_VARIANTS)
   beside them, with --fwd-heads=64,256 those head sizes' rows alone, with
   --fwd-checks the variants' out and lse bits against the baseline's first
   (run.py's FORWARD_CASES: masks, softcap, ALiBi, GQA, D != Dv);
   --forward-first: before the backward's timing rows.
4. --profile: each kernel's GPU time (torch.profiler) in one backward of
   the first and second sides and of FA2, and in one forward of FA2.
5. --torch-sdpa: bench/torch_sdpa.py's FA2 rows timed both ways in this
   process: call by call, each waited for (its old timing, host work
   included), and by graph replay (its new one).
--heads=64,256: the timing rows of those head sizes alone, in that order.
Sections stop once BUDGET_S seconds have passed (the device kills the run at 35).
"""
import ctypes
import os
import sys
import time

START = time.time()
BUDGET_S = float(os.environ.get("BUDGET_S", "31"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, sys.argv[2])  # bench/: torch_sdpa.py and report.py
import run  # noqa: E402
import torch_sdpa  # noqa: E402

REPS = 12


def left():
    return BUDGET_S - (time.time() - START)


def fa2_backward_on(p, stream):
    """FA2's backward call on a forward made on `stream` (autograd runs a backward on its forward's stream)."""
    q, k, v = (t.detach().clone().requires_grad_() for t in (p.q, p.k, p.v))
    with torch.cuda.stream(stream), sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        out = F.scaled_dot_product_attention(q, k, v, is_causal=p.causal)
    torch.cuda.current_stream().wait_stream(stream)
    return lambda: torch.autograd.grad(out, (q, k, v), p.dout, retain_graph=True)


def timing_row(sides, B, H, S, D, causal, stream):
    p = run.Problem(B, H, H, S, S, D, D, causal)
    gen = torch.Generator(device="cuda").manual_seed(B * H + S + D)
    for t in (p.q, p.k, p.v, p.dout):
        t.copy_(torch.randn(t.shape, device="cuda", generator=gen))
    run.flash_forward(p)
    flops = 2.5 * 4.0 * B * H * S * S * D / (2 if causal else 1)
    row = f"B{B} H{H} S{S} D{D} {'causal' if causal else 'full'}"
    runs = [(s.name, p.call(s)) for s in sides]
    runs = [(n, r) for n, r in runs if r is not None]
    dets = [(s.name + " det", p.call(s, True)) for s in sides[:2]] if S <= 4096 else []
    dets = [(n, r) for n, r in dets if r is not None]
    g0 = p.grads(runs[0][1])
    notes = []
    for n, r in runs[1:]:
        g = p.grads(r)
        kv = int((run.bits(g[1]) != run.bits(g0[1])).sum() + (run.bits(g[2]) != run.bits(g0[2])).sum())
        dq = ((g[0].double() - g0[0].double()).abs().max() / g0[0].double().abs().max()).item()
        notes.append(f"{n}: kv-bits {kv} dq {dq:.1e}")
    if len(dets) > 1:
        a, b = p.grads(dets[0][1]), p.grads(dets[1][1])
        notes.append("det-bits " + str(sum(int((run.bits(x) != run.bits(y)).sum()) for x, y in zip(a, b))))
    passes = [(s.name + " passes", p.call(s, passes_only=True)) for s in sides[:2]]
    passes = [(n, r) for n, r in passes if r is not None]
    fns = runs + dets + passes + [("FA2", fa2_backward_on(p, stream))]
    try:
        graphs = [torch_sdpa.capture(f, stream) for _, f in fns]
        ms = run.timed([g.replay for g in graphs], REPS)
    except RuntimeError as e:  # a call that cannot be captured: its launches interleaved, events around each
        print(f"(no graphs: {str(e).splitlines()[0]}; events around each call)", flush=True)
        torch.cuda.synchronize()
        graphs = []
        fns[-1] = ("FA2", run.fa2_backward(p))
        ms = run.timed([f for _, f in fns], REPS)
    cells = [f"{n} {flops / m / 1e9:6.1f} ({m:.3f}" + (")" if i == 0 else f", x{ms[0] / m:.3f})")
             for i, ((n, _), m) in enumerate(zip(fns, ms))]
    best = min(ms[:len(runs)])
    print(f"{row:26s} | " + " | ".join(cells) + f" | best/FA2 {ms[-1] / best:.3f} | " + "; ".join(notes), flush=True)
    del graphs
    return p


def timing(sides):
    print(f"\n== timing by graph replay: bf16 TFLOP/s (ms median of {REPS}, graphs interleaved); x = / "
          f"{sides[0].name}; passes = memset, delta, dq conversion alone ==", flush=True)
    stream = torch.cuda.Stream()
    heads = [int(d) for a in sys.argv if a.startswith("--heads=") for d in a[8:].split(",")]
    rows = [r for h in heads for r in run.ROWS if r[3] == h] if heads else run.ROWS
    rows = rows * int(os.environ.get("TIMING_REPEAT", "1"))  # passes over the rows show their spread
    for B, H, S, D in rows:
        for causal in (False, True):
            if left() < 4:
                print("(time: timing rows stopped)")
                return
            try:
                p = timing_row(sides, B, H, S, D, causal, stream)
                del p
            except Exception as e:  # noqa: BLE001 (the other rows still run)
                print(f"B{B} H{H} S{S} D{D} causal={causal}: ERROR {type(e).__name__} {e}", flush=True)
            torch.cuda.synchronize()
            torch.cuda.empty_cache()


def torch_sdpa_rows():
    print("\n== bench/torch_sdpa.py's FA2 rows, TFLOP/s: call by call (old) | graph replay (new) ==", flush=True)
    for B, H, S, D in torch_sdpa.SHAPES:
        for causal in (False, True):
            flops = 4.0 * B * H * S * S * D / (2 if causal else 1)
            cells = []
            for backward in (False, True):
                if left() < 3:
                    print("(time: torch_sdpa rows stopped)")
                    return
                old = torch_sdpa.time_row("flash", torch.bfloat16, B, H, S, D, causal, backward, by_graph=False)
                new = torch_sdpa.time_row("flash", torch.bfloat16, B, H, S, D, causal, backward, by_graph=True)
                f = flops * (2.5 if backward else 1)
                if old and new:
                    cells.append(f"{'bwd' if backward else 'fwd'} {f / old / 1e9:6.1f} | {f / new / 1e9:6.1f} "
                                 f"(x{old / new:.3f})")
                else:
                    cells.append(f"{'bwd' if backward else 'fwd'} old {old} new {new}")
            print(f"{torch_sdpa.shape_name(B, H, S, D, causal):28s} | " + " || ".join(cells), flush=True)


def profile(sides):
    """One profiler session over every row; a spin kernel (torch.cuda._sleep) ahead of each timed call marks
    where its kernels start."""
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile as torch_profile
    print("\n== kernels' GPU time (us) in one call, torch.profiler ==", flush=True)
    labels = []
    with torch_profile(activities=[ProfilerActivity.CUDA]) as prof:
        for B, H, S, D in run.ROWS:
            for causal in (False, True):
                if left() < 6:
                    break
                p = run.Problem(B, H, H, S, S, D, D, causal)
                for t in (p.q, p.k, p.v, p.dout):
                    t.copy_(torch.randn(t.shape, device="cuda", dtype=torch.bfloat16))
                run.flash_forward(p)
                calls = [(s.name, p.call(s)) for s in sides[:2]] + [("FA2 bwd", run.fa2_backward(p))]
                calls = [(n, f) for n, f in calls if f is not None]
                def fa2_forward(p=p, causal=causal):
                    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                        F.scaled_dot_product_attention(p.q, p.k, p.v, is_causal=causal)
                calls.append(("FA2 fwd", fa2_forward))
                for _, f in calls:
                    f()
                for name, f in calls:
                    torch.cuda.synchronize()
                    torch.cuda._sleep(1000)
                    labels.append(f"B{B} H{H} S{S} D{D} {'causal' if causal else 'full'} {name}")
                    f()
                torch.cuda.synchronize()
                torch.cuda._sleep(1000)
                labels.append(None)  # the next row's preparation
                del p
    events = sorted((e for e in prof.events() if e.device_type == DeviceType.CUDA), key=lambda e: e.time_range.start)
    segments, current = [], None
    for e in events:
        if "spin" in e.name:
            current = []
            segments.append(current)
        elif current is not None:
            current.append((short(e.name), e.time_range.elapsed_us()))
    for label, ks in zip(labels, segments):
        if label:
            print(f"{label:34s} | " + ", ".join(f"{n} {t:.0f}" for n, t in ks) + f" = {sum(t for _, t in ks):.0f}",
                  flush=True)


def short(name):
    for key, s in (("delta", "delta"), ("dq_kernel", "dq"), ("emset", "memset"), ("sdpa_backward_kernel", "main"),
                   ("dot_do_o", "dot_do_o"), ("convert_dq", "convert_dq"), ("flash_bwd", "fa2_main"),
                   ("flash_fwd", "fa2_fwd"), ("fill", "fill")):
        if key in name:
            return s
    return name[:40]


def main():
    lib = ctypes.CDLL(sys.argv[1])
    args = [a for a in sys.argv[3:] if not a.startswith("--")]
    sides = [s for s in (run.Side(lib, n) for n in args) if s.run]
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}; sides: "
          + ", ".join(f"{s.name} (tiles {sorted(s.run)})" for s in sides), flush=True)
    if "--no-checks" not in sys.argv:
        run.checks(sides)
    def forward():
        if "--forward" in sys.argv and left() > 3:
            variants = [v for a in sys.argv if a.startswith("--fwd=") for v in a[6:].split(",") if v]
            heads = [int(d) for a in sys.argv if a.startswith("--fwd-heads=") for d in a[12:].split(",")]
            if "--fwd-checks" in sys.argv:
                run.forward_checks(lib, variants)
            for _ in range(int(os.environ.get("FWD_REPEAT", "1"))):  # a second pass shows the rows' spread
                if left() > 3:
                    run.forward_rows(lib, variants, [r for r in run.ROWS if not heads or r[3] in heads])
    if "--forward-first" in sys.argv:
        forward()
    if "--no-timing" not in sys.argv:
        timing(sides)
    if "--forward-first" not in sys.argv:
        forward()
    if "--profile" in sys.argv:
        try:
            profile(sides)
        except Exception as e:  # noqa: BLE001 (the rows after it still run)
            print(f"profile: ERROR {type(e).__name__} {e}", flush=True)
    if "--torch-sdpa" in sys.argv:
        torch_sdpa_rows()
    print(f"# done in {time.time() - START:.1f} s", flush=True)


if __name__ == "__main__":
    main()
