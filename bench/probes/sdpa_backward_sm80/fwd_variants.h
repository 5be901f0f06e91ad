// Forward tile variants for fwd_variant.cu (-DPROBE_FWD_VARIANT=n): row n's
// head tile and SdpaTcConfig (the tree's sdpa_tc_traits.h).
#pragma once

struct ProbeForwardVariant {
  int tile;
  SdpaTcConfig config;
};
constexpr ProbeForwardVariant kProbeForwardVariants[] = {
    {0, {}},
    // 1. D 64: FlashAttention-2's 128-key tiles, two stages, copies among S's products.
    {64, {4, 2, 128, 2, 1, kAmong}},
    // 2. D 64: 128-key tiles, copies before S, the exponentials among P V's products.
    {64, {4, 2, 128, 2, 1, kBefore, kInPv}},
    // 3. D 256: 32-key tiles in a ring of three (160 KiB).
    {256, {8, 1, 32, 3, 1, kBefore, kInPv}},
    // 4. D 256: 128-key tiles, FlashAttention-2's one K and one V slot (192 KiB).
    {256, {8, 1, 128, 1, 1, kBefore, kInSoftmax}},
    // 5. D 64: as 2 in a ring of three (112 KiB).
    {64, {4, 2, 128, 3, 1, kBefore, kInPv}},
    // 6. D 64: as 2 with the exponentials in the softmax.
    {64, {4, 2, 128, 2, 1, kBefore, kInSoftmax}},
};
#define PROBE_FWD_TILE (kProbeForwardVariants[PROBE_FWD_VARIANT].tile)
constexpr SdpaTcConfig kProbeForwardConfig = kProbeForwardVariants[PROBE_FWD_VARIANT].config;
