"""The calls an ncu pass profiles: each side's backward (and, with fwd, the
baseline's sm_80 forward) beside FlashAttention-2's on one row, inside
cudaProfilerStart/Stop, every call made once before (so that ncu sees no
first-launch work). Run under
    ncu --profile-from-start off -k regex:'sdpa_backward_kernel|flash_bwd_dq_dk_dv|forward_kernel|flash_fwd_kernel' ...

    python3 ncu_calls.py <libsdpa80_probe.so> <bench dir> <B,H,S,D,causal> <what> <side> [side ...]

what: bwd (backward main kernels), fwd (forward kernels) or both; NCU_FWD=base,v7: the
forward entries probe_fwd_<name> profiled (default base).
"""
import ctypes
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, sys.argv[2])
import run  # noqa: E402 (this folder's, found through sys.path[0])


def main():
    lib = ctypes.CDLL(sys.argv[1])
    B, H, S, D, causal = (int(x) for x in sys.argv[3].split(","))
    what = sys.argv[4]
    sides = [s for s in (run.Side(lib, n) for n in sys.argv[5:]) if s.run]
    p = run.Problem(B, H, H, S, S, D, D, bool(causal))
    gen = torch.Generator(device="cuda").manual_seed(B * H + S + D)
    for t in (p.q, p.k, p.v, p.dout):
        t.copy_(torch.randn(t.shape, device="cuda", generator=gen))
    run.flash_forward(p)
    calls = []
    if what in ("bwd", "both"):
        calls += [(s.name, p.call(s)) for s in sides]
        calls.append(("FA2 bwd", run.fa2_backward(p)))
    if what in ("fwd", "both"):
        out = torch.empty_like(p.out)
        saved = p.out
        p.out = out  # the forward writes its own copy; the backward's out stays FA2's
        dims, ptrs = p.dims(False), p.ptrs()
        p.out = saved
        for name in os.environ.get("NCU_FWD", "base").split(","):
            fwd = getattr(lib, f"probe_fwd_{name}", None)
            if fwd is None:
                continue
            fwd.restype, fwd.argtypes = ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
            calls.append((f"{name} fwd", lambda fwd=fwd: fwd(dims, ptrs, torch.cuda.current_stream().cuda_stream)))

        def fa2_fwd():
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                F.scaled_dot_product_attention(p.q, p.k, p.v, is_causal=bool(causal))
        calls.append(("FA2 fwd", fa2_fwd))
    calls = [(n, f) for n, f in calls if f is not None]
    for _, f in calls:
        f()
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    for _, f in calls:
        f()
        torch.cuda.synchronize()
    torch.cuda.profiler.stop()
    print("profiled, in order: " + ", ".join(n for n, _ in calls), flush=True)


if __name__ == "__main__":
    main()
