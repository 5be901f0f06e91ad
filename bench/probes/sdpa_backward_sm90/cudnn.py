"""cuDNN's attention backward through PyTorch on the probe's bf16 rows, timed
by bench/torch_sdpa.py's own function (run from the staged tree's root).
Arguments: the rows to time as B,H,S,D (default: every row of the probe)."""
import sys

sys.path.insert(0, "bench")
from torch_sdpa import time_row  # noqa: E402
import torch  # noqa: E402

rows = [tuple(int(x) for x in a.split(",")) for a in sys.argv[1:]] or [
    (4, 32, 4096, 128), (2, 32, 8192, 128), (16, 16, 1024, 64), (8, 16, 2048, 256)]
for B, H, S, D in rows:
    for causal in (False, True):
        ms = time_row("cudnn", torch.bfloat16, B, H, S, D, causal, True)
        flops = 2.5 * 4.0 * B * H * S * S * D / (2 if causal else 1)
        tflops = f"{flops / ms / 1e9:6.1f}" if ms else "  n/a"
        print(f"cuDNN B{B} H{H} S{S} D{D} {'causal' if causal else 'full':6s} {ms or 0:7.3f} ms {tflops}", flush=True)
