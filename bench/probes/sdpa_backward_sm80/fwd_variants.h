// Forward tile variants for fwd_variant.cu (-DPROBE_FWD_VARIANT=n): row n's
// head tile and SdpaTcConfig (the tree's sdpa_tc_traits.h; session 22 on, a tree without
// SdpaTcConfig::copies).
#pragma once

struct ProbeForwardVariant {
  int tile;
  SdpaTcConfig config;
};
constexpr ProbeForwardVariant kProbeForwardVariants[] = {
    {0, {}},
    // 1. D 64: FlashAttention-2's 128-key tiles, two stages, copies among S's products (session 21).
    {0, {}},  // (retired with SdpaTcCopies)
    // 2. D 64: 128-key tiles, copies before S, the exponentials among P V's products.
    {64, {4, 2, 128, 2, 1, kInPv}},
    // 3. D 256: 32-key tiles in a ring of three (160 KiB).
    {256, {8, 1, 32, 3, 1, kInPv}},
    // 4. D 256: 128-key tiles, FlashAttention-2's one K and one V slot (192 KiB).
    {256, {8, 1, 128, 1, 1, kInSoftmax}},
    // 5. D 64: as 2 in a ring of three (112 KiB).
    {64, {4, 2, 128, 3, 1, kInPv}},
    // 6. D 64: as 2 with the exponentials in the softmax.
    {64, {4, 2, 128, 2, 1, kInSoftmax}},
    // 7. D 256: FlashAttention-2's H100 tile: 4 warps x 64 keys, one K and one V slot (96 KiB, two blocks an SM).
    {256, {4, 1, 64, 1, 2, kInSoftmax}},
    // 8. D 256: as 7 with the exponentials among P V.
    {256, {4, 1, 64, 1, 2, kInPv}},
    // 9. D 256: the 99 KiB sm80 tile (A100's): 4 warps x 32 keys, two stages, two blocks an SM.
    {256, {4, 1, 32, 2, 2, kInSoftmax, true}},
    // 10. D 256: FlashAttention-2's A100 tile: 8 warps x 64 keys, one K and one V slot (128 KiB).
    {256, {8, 1, 64, 1, 1, kInSoftmax}},
    // 11. D 256: 4 warps x 80 keys, one K and one V slot (112 KiB, two blocks an SM).
    {256, {4, 1, 80, 1, 2, kInPv}},
    {0, {}},  // 12, 13: warp pairs (session 22, round 2; retired with the knob)
    {0, {}},
    // 14. D 256: 4 warps x 48 keys, one K and one V slot (80 KiB), the exponentials among P V.
    {256, {4, 1, 48, 1, 2, kInPv}},
    // 15. D 256: 4 warps x 32 keys in a two-stage ring (96 KiB), the exponentials among P V, a kernel per alignment.
    {256, {4, 1, 32, 2, 2, kInPv}},
    // 16. D 256: the 256 tile (FA2's H100 tile) reading the views' alignment at run time (one kernel for both).
    {256, {4, 1, 64, 1, 2, kInPv, true}},
    // 17. D 256: 16 with slack 0: a warp whose rows all kept their max skips O's rescale.
    {256, {4, 1, 64, 1, 2, kInPv, true, 0}},
    // 18. D 128: the 128 tile with slack 0.
    {128, {4, 2, 64, 2, 1, kInPv, false, 0}},
};
#define PROBE_FWD_TILE (kProbeForwardVariants[PROBE_FWD_VARIANT].tile)
constexpr SdpaTcConfig kProbeForwardConfig = kProbeForwardVariants[PROBE_FWD_VARIANT].config;
