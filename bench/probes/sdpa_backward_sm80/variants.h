// Tile variants of the staged tree's backward (tree.cu with -DPROBE_VARIANT=n
// and -DPROBE_TILE at the variant's head tile), named for run.py in build.sh.
#pragma once

#include "sdpa/sdpa_backward_traits.h"

namespace probe_variants {
using namespace baracuda::kernels;
using Pf = SdpaBackwardPrefetch;
using Ba = SdpaBackwardBarriers;
using Pr = SdpaBackwardProbabilities;
using Dr = SdpaBackwardDqReductions;
#if PROBE_VARIANT == 1
// D 256: dQ in 64-row warp tiles (4 row atoms), 64 columns a warp.
using Traits = SdpaBackwardShape<256, 8, 1, 4, 2, 1, 4, 32, Pf::kDq, Ba::kFour, 128, Pr::kAmongProducts>;
#elif PROBE_VARIANT == 2
// D 256: 16-key warp rows in two column groups (64 own queries a warp).
using Traits = SdpaBackwardShape<256, 8, 1, 2, 1, 1, 2, 32, Pf::kDq, Ba::kFour, 128, Pr::kAmongProducts>;
#elif PROBE_VARIANT == 3
// D 64: the narrow tile (64 keys, 4 warps, 3 blocks an SM) in the atomic mode.
using Traits = SdpaBackwardTraits<64>;
#elif PROBE_VARIANT == 4
// D 256: 64-query tiles in two stages (209 KB), loads among the scores, one
// middle barrier, dQ (64 columns a warp, one chunk) reduced among dK's products.
using Traits = SdpaBackwardShape<256, 8, 1, 4, 2, 2, 2, 64, Pf::kScores, Ba::kTwo, 64, Pr::kAmongProducts,
                                 Dr::kAmongDkProducts>;
#elif PROBE_VARIANT == 5
// D 256: as 4 with 32-row dQ warp tiles of 32 columns... (4 row atoms, 32 columns a warp).
using Traits = SdpaBackwardShape<256, 8, 1, 4, 2, 2, 4, 32, Pf::kScores, Ba::kTwo, 64, Pr::kAmongProducts,
                                 Dr::kAmongDkProducts>;
#elif PROBE_VARIANT == 6
// D 128: the narrow tile (S^T a step ahead, two stages, 161 KB) with dQ added by
// tensor-map bulk reductions from 32 KB of staging buffers of its own (193 KB).
using Traits = SdpaBackwardShape<128, 8, 1, 2, 2, 2, 2, 32, Pf::kScoresAhead, Ba::kTwo, 64, Pr::kAmongProducts,
                                 Dr::kAmongDkProducts, false, true>;
#elif PROBE_VARIANT == 7
// D 128: as 6 with three Q/dO stages (the loads two steps ahead; 225.5 KB).
using Traits = SdpaBackwardShape<128, 8, 1, 2, 2, 3, 2, 32, Pf::kScoresAhead, Ba::kTwo, 64, Pr::kAmongProducts,
                                 Dr::kAmongDkProducts, false, true>;
#endif
}  // namespace probe_variants
using ProbeTraits = probe_variants::Traits;
