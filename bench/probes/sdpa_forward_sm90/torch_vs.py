"""The probe's Hopper forwards (libprobe.so: torch_entry.cu and the variants'
objects) beside PyTorch's cuDNN attention (cuDNN 9.19) in one process, bf16,
on the same standard-normal tensors: calls launched in turn round by round,
every other round in reverse order (the first of two kernels timed in turn
at the power cap runs ahead), each between CUDA events and waited for,
median of 25 after 3. Arguments: libprobe.so, the variants' names, then
B,H,S,D rows (`;`-separated). Prints TFLOP/s (causal halved) and each
variant against cuDNN; its O against cuDNN's (max |diff|)."""
import ctypes
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

lib = ctypes.CDLL(sys.argv[1])
lib.probe_torch_run.argtypes = [ctypes.c_char_p] + [ctypes.c_void_p] * 5 + [ctypes.c_int64] * 4 + [ctypes.c_int]
lib.probe_torch_run.restype = ctypes.c_int
names = sys.argv[2].split(",")
rows = [tuple(int(x) for x in r.split(",")) for r in sys.argv[3].split(";")]
rounds = 28

for B, H, S, D in rows:
    for causal in (False, True):
        torch.manual_seed(0)
        q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        outs = {n: torch.empty_like(q) for n in names}
        lse = torch.empty(B, H, S, device="cuda", dtype=torch.float32)

        def ours(n):
            def call():
                rc = lib.probe_torch_run(n.encode(), q.data_ptr(), k.data_ptr(), v.data_ptr(), outs[n].data_ptr(),
                                         lse.data_ptr(), B, H, S, D, int(causal))
                if rc != 0:
                    raise RuntimeError(f"{n}: probe_torch_run returned {rc}")
            return call

        ref = {}

        def cudnn():
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                ref["o"] = F.scaled_dot_product_attention(q, k, v, is_causal=causal)

        calls = [(n, ours(n)) for n in names] + [("cudnn", cudnn)]
        try:
            for _, c in calls:
                c()
        except RuntimeError as e:
            print(f"B{B} H{H} S{S} D{D} {'causal' if causal else 'full'}: {str(e).splitlines()[0]}", flush=True)
            continue
        torch.cuda.synchronize()
        times = {n: [] for n, _ in calls}
        for r in range(rounds):
            order = calls if r % 2 == 0 else calls[::-1]
            for n, c in order:
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                c()
                b.record()
                b.synchronize()
                if r >= 3:
                    times[n].append(a.elapsed_time(b))
        flops = 4.0 * B * H * S * S * D / (2 if causal else 1)
        ms = {n: statistics.median(t) for n, t in times.items()}
        line = f"torch B{B} H{H} S{S} D{D} {'causal' if causal else 'full':6s} | cuDNN 9.19 {flops / ms['cudnn'] / 1e9:6.1f} TF"
        for n in names:
            diff = (outs[n].float() - ref["o"].float()).abs().max().item()
            line += f" | {n} {flops / ms[n] / 1e9:6.1f} TF {ms['cudnn'] / ms[n]:.3f}x (O diff {diff:.1e})"
        print(line, flush=True)
