"""cuDNN through PyTorch on the probe's bf16 rows, then the probe's own timing (a subprocess, so that both
sides run in one call), then cuDNN again, then the bf16 GEMM rate (cuBLAS 8192^3 through torch.matmul).
Run from the repository root: python3 bench/probes/sdpa_forward_sm90/compare.py <probe binary> [seconds for the probe]."""
import subprocess
import sys

sys.path.insert(0, "bench")
from report import median_ms  # noqa: E402
from torch_sdpa import time_row  # noqa: E402
import torch  # noqa: E402

ROWS = [(4, 32, 4096, 128), (2, 32, 8192, 128), (16, 16, 1024, 64), (8, 16, 2048, 256), (8, 16, 4096, 64),
        (1, 8, 2048, 128), (2, 8, 1024, 64), (1, 16, 1024, 256)]


def cudnn_pass(tag):
    for B, H, S, D in ROWS:
        for causal in (False, True):
            ms = time_row("cudnn", torch.bfloat16, B, H, S, D, causal, False)
            flops = 4.0 * B * H * S * S * D / (2 if causal else 1)
            print(f"cuDNN{tag} B{B} H{H} S{S} D{D} {'causal' if causal else 'full':6s} {ms or 0:7.4f} ms "
                  f"{flops / ms / 1e9 if ms else 0:6.1f} TF", flush=True)


cudnn_pass("1")
print("--- probe time", flush=True)
subprocess.run([sys.argv[1], "time"], timeout=float(sys.argv[2]) if len(sys.argv) > 2 else 12)
cudnn_pass("2")
a, b = (torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16) for _ in range(2))
ms = median_ms(lambda: torch.matmul(a, b), 10)
print(f"GEMM bf16 8192^3 {ms:.4f} ms {2 * 8192 ** 3 / ms / 1e9:.1f} TF", flush=True)
