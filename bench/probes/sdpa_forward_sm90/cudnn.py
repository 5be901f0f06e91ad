"""cuDNN's attention forward through PyTorch on the probe's bf16 rows, timed by
bench/torch_sdpa.py's own function (run from the staged tree's root), then
the probe's decoding rows (GQA through enable_gqa; K and V read once), then
the D 128 rows on bench_ops' data, and the rows of few tiles timed over 20
calls back to back: arguments `rows`, `decode` (`decode-new`: its last four
rows), `bits`, `small`, or none for all."""
import sys

sys.path.insert(0, "bench")
from report import median_ms  # noqa: E402
from torch_sdpa import time_row  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

ROWS = [(4, 32, 4096, 128), (2, 32, 8192, 128), (16, 16, 1024, 64), (8, 16, 2048, 256), (8, 16, 4096, 64),
        (1, 8, 2048, 128), (2, 8, 1024, 64), (1, 16, 1024, 256)]
DECODE = [(8, 32, 4, 1, 4096, 128), (8, 32, 4, 1, 16384, 128), (8, 32, 4, 1, 32768, 128), (8, 32, 4, 4, 4096, 128),
          (8, 32, 4, 4, 32768, 128), (8, 32, 4, 16, 4096, 128), (8, 32, 4, 16, 32768, 128),
          (1, 32, 4, 1, 32768, 128), (8, 32, 4, 1, 16384, 64), (8, 32, 4, 1, 16384, 256), (8, 32, 4, 16, 16384, 256),
          (8, 32, 32, 1, 4096, 128), (8, 32, 32, 64, 4096, 128)]


def decode_ms(B, Hq, Hkv, Q, K, D):
    q = torch.randn(B, Hq, Q, D, device="cuda", dtype=torch.bfloat16)
    k, v = (torch.randn(B, Hkv, K, D, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    try:
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            return median_ms(lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True), 25)
    except RuntimeError as e:
        print(f"cuDNN decode refused: {str(e).splitlines()[0]}", flush=True)
        return None


def bits_ms(B, H, S, D, causal):
    """The forward on bench_ops' data (random bits under 0x3F7F: finite, below 1, mostly tiny)."""
    q, k, v = ((torch.randint(0, 1 << 16, (B, H, S, D), device="cuda", dtype=torch.int32) & 0x3F7F)
               .to(torch.int16).view(torch.bfloat16) for _ in range(3))
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        return median_ms(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal), 25)


def batched_ms(B, H, S, D, causal, n=20):
    """ms a call over n calls back to back: no host time between calls counts."""
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))

    def calls():
        for _ in range(n):
            F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        return median_ms(calls, 15) / n


which = set(sys.argv[1:]) or {"all"}
if which & {"rows", "all"}:
    for B, H, S, D in ROWS:
        for causal in (False, True):
            ms = time_row("cudnn", torch.bfloat16, B, H, S, D, causal, False)
            flops = 4.0 * B * H * S * S * D / (2 if causal else 1)
            tflops = f"{flops / ms / 1e9:6.1f}" if ms else "  n/a"
            print(f"cuDNN B{B} H{H} S{S} D{D} {'causal' if causal else 'full':6s} {ms or 0:7.4f} ms {tflops} TF",
                  flush=True)
if which & {"decode", "decode-new", "all"}:
    for B, Hq, Hkv, Q, K, D in DECODE if which & {"decode", "all"} else DECODE[9:]:
        ms = decode_ms(B, Hq, Hkv, Q, K, D)
        gbs = f"{2 * B * Hkv * K * D * 2 / ms / 1e6:5.0f}" if ms else "  n/a"
        print(f"cuDNN decode B{B} Hq{Hq} Hkv{Hkv} Q{Q} K{K} D{D} {ms or 0:7.4f} ms {gbs} GB/s", flush=True)
if which & {"bits", "all"}:
    for B, H, S, D in ROWS[:1]:
        for causal in (False, True):
            ms = bits_ms(B, H, S, D, causal)
            flops = 4.0 * B * H * S * S * D / (2 if causal else 1)
            print(f"cuDNN bits B{B} H{H} S{S} D{D} {'causal' if causal else 'full':6s} {ms:7.4f} ms "
                  f"{flops / ms / 1e9:6.1f} TF", flush=True)
if which & {"small", "all"}:
    for B, H, S, D in ROWS[5:]:
        for causal in (False, True):
            ms = batched_ms(B, H, S, D, causal)
            flops = 4.0 * B * H * S * S * D / (2 if causal else 1)
            print(f"cuDNN x20 B{B} H{H} S{S} D{D} {'causal' if causal else 'full':6s} {ms:7.4f} ms "
                  f"{flops / ms / 1e9:6.1f} TF", flush=True)
