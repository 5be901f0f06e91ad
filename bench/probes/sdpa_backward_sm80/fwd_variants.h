// Forward tile variants for fwd_variant.cu (-DPROBE_FWD_VARIANT=n): the head
// tile PROBE_FWD_TILE and the SdpaTcConfig (the tree's sdpa_tc_traits.h).
#pragma once
#if PROBE_FWD_VARIANT == 1
// D 64: FlashAttention-2's 128-key tiles, two stages, copies among S's products.
#define PROBE_FWD_TILE 64
constexpr SdpaTcConfig kProbeForwardConfig{4, 2, 128, 2, 1, kAmong};
#elif PROBE_FWD_VARIANT == 2
// D 64: 128-key tiles, copies before S, the exponentials among P V's products.
#define PROBE_FWD_TILE 64
constexpr SdpaTcConfig kProbeForwardConfig{4, 2, 128, 2, 1, kBefore, kInPv};
#elif PROBE_FWD_VARIANT == 3
// D 256: 32-key tiles in a ring of three (160 KiB).
#define PROBE_FWD_TILE 256
constexpr SdpaTcConfig kProbeForwardConfig{8, 1, 32, 3, 1, kBefore, kInPv};
#elif PROBE_FWD_VARIANT == 4
// D 256: 128-key tiles, FlashAttention-2's one K and one V slot (192 KiB).
#define PROBE_FWD_TILE 256
constexpr SdpaTcConfig kProbeForwardConfig{8, 1, 128, 1, 1, kBefore, kInSoftmax};
#elif PROBE_FWD_VARIANT == 5
// D 64: 128-key tiles in a ring of three (112 KiB), copies before S, the
// exponentials among P V's products.
#define PROBE_FWD_TILE 64
constexpr SdpaTcConfig kProbeForwardConfig{4, 2, 128, 3, 1, kBefore, kInPv};
#elif PROBE_FWD_VARIANT == 6
// D 64: 128-key tiles, two stages, copies before S, the exponentials in the softmax.
#define PROBE_FWD_TILE 64
constexpr SdpaTcConfig kProbeForwardConfig{4, 2, 128, 2, 1, kBefore, kInSoftmax};
#endif
