"""cuDNN's forward through PyTorch (its own cuDNN, 9.19 on the GPU machine) on
the probe's grid past D 128 (main.cu's time_grid: D 256 f16 and bf16, D 192
bf16, both causal modes; causal rows only where Q = K, since PyTorch's mask
is top-left and the probe's bottom-right), then the probe's own grid in the
same call: python3 grid.py <probe binary> [seconds]. Run from the repository root."""
import subprocess
import sys
import time

sys.path.insert(0, "bench")
from report import median_ms  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

POINTS = [(1, 16, 1024, 1024), (8, 16, 1024, 1024), (32, 16, 1024, 1024), (1, 16, 2048, 2048), (4, 16, 2048, 2048),
          (16, 16, 2048, 2048), (1, 16, 4096, 4096), (4, 16, 4096, 4096), (1, 8, 8192, 8192), (2, 16, 8192, 8192),
          (2, 16, 1024, 4096), (1, 16, 2048, 8192)]
budget = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
start = time.time()
for D, dtype in ((256, torch.bfloat16), (256, torch.float16), (192, torch.bfloat16)):
    for causal in (False, True):
        for B, H, Q, K in POINTS:
            if causal and Q != K:
                continue
            if time.time() - start > budget:
                break
            q = torch.randn(B, H, Q, D, device="cuda", dtype=dtype)
            k, v = (torch.randn(B, H, K, D, device="cuda", dtype=dtype) for _ in range(2))
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                ms = median_ms(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal), 11)
            pairs = Q * K - Q * (Q - 1) / 2 if causal else Q * K
            name = f"{'bf16' if dtype == torch.bfloat16 else 'f16'} D{D} {'causal' if causal else 'full'} BH{B * H} Q{Q} K{K}"
            print(f"torch-cudnn {name:34s} | {ms:.4f} ms {4.0 * B * H * D * pairs / ms / 1e9:5.1f} TF", flush=True)
            del q, k, v
print("--- probe grid", flush=True)
subprocess.run([sys.argv[1], "grid"], timeout=20)
