// The launch of the main backward kernel for one dtype and head tile,
// instantiated by sdpa_backward_<dtype>_h<tile>.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "sdpa/sdpa_backward_kernel.cuh"
#include "sdpa/sdpa_backward_traits.h"
#include "sdpa/sm90/sdpa_backward_sm90_params.cuh"

namespace baracuda::kernels::sdpa {

// sdpa_backward_launch_tiles' answer where the driver encodes no tensor map
// for dQ's bulk reductions: the caller launches tiles without them.
constexpr int kSdpaBackwardNoDqMap = 1 << 20;

// The grid is (kv heads, key tiles, batch) in the atomic mode, (key tiles,
// kv heads, batch) in the deterministic one unless it takes its key tiles by
// rank (sdpa_backward_kernel.cuh's key_tile_of_block).
template <class T, class Tr, bool Deterministic>
int sdpa_backward_launch_tiles(const SdpaProblem &p, const float *delta, float *dq, int *turns, bool aligned,
                               cudaStream_t stream) {
  const unsigned key_tiles = static_cast<unsigned>((p.keys + Tr::kKeys - 1) / Tr::kKeys);
  const unsigned heads = static_cast<unsigned>(p.heads_kv), batch = static_cast<unsigned>(p.batch);
  auto kernel =
      aligned ? sdpa_backward_kernel<T, Tr, true, Deterministic> : sdpa_backward_kernel<T, Tr, false, Deterministic>;
  cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Tr::kSmemBytes);
  if (err != cudaSuccess) return -static_cast<int>(err);
  const bool key_major =
      Deterministic && !deterministic_by_rank(band_of(p), key_tiles, (p.queries + Tr::kQueries - 1) / Tr::kQueries);
  const dim3 grid = key_major ? dim3(key_tiles, heads, batch) : dim3(heads, key_tiles, batch);
  CUtensorMap dq_map{};
  if constexpr (Tr::kDqBulk && !Deterministic) {
    // The box's row coordinate is 32-bit.
    if (p.queries >= INT32_MAX || !sm90::encode_dq_rows(dq_map, p, dq, 16)) return kSdpaBackwardNoDqMap;
  }
  kernel<<<grid, Tr::kThreads, Tr::kSmemBytes, stream>>>(p, delta, dq, turns, dq_map);
  return -static_cast<int>(cudaGetLastError());
}

// turns: the deterministic mode's counters (zeroed), else null; aligned:
// every row of q, k, v and dout starts on 16 bytes (cp.async); smem_optin:
// the shared memory a block of the device may take (the wide tiles where
// they fit).
template <class T, int HeadTile>
int sdpa_backward_launch_main(const SdpaProblem &p, const float *delta, float *dq, int *turns, bool aligned,
                              int smem_optin, cudaStream_t stream) {
  using Narrow = SdpaBackwardTraits<HeadTile>;
  using Wide = typename SdpaBackwardWide<HeadTile>::Traits;
  static_assert(Wide::kKeys % Narrow::kKeys == 0 && Wide::kQueries % Narrow::kQueries == 0,
                "the wide grid no larger than the narrow one (sdpa_backward_grid_fits checks that), the "
                "deterministic counters (one per query tile of the narrow height) enough for both");
  constexpr bool kWide = !std::is_same_v<Wide, Narrow>;
  const bool wide_fits = smem_optin >= Wide::kSmemBytes;
  if (turns == nullptr) {
    if constexpr (kWide) {
      if (wide_fits) {
        const int status = sdpa_backward_launch_tiles<T, Wide, false>(p, delta, dq, turns, aligned, stream);
        if (status != kSdpaBackwardNoDqMap) return status;
      }
    }
    return sdpa_backward_launch_tiles<T, Narrow, false>(p, delta, dq, turns, aligned, stream);
  }
  // Other key tiles would add other dq parts: the deterministic mode keeps
  // the narrow tiles' bits on every device.
  if constexpr (kWide && Wide::kKeys == Narrow::kKeys) {
    if (wide_fits) return sdpa_backward_launch_tiles<T, Wide, true>(p, delta, dq, turns, aligned, stream);
  }
  return sdpa_backward_launch_tiles<T, Narrow, true>(p, delta, dq, turns, aligned, stream);
}

}  // namespace baracuda::kernels::sdpa

#define BARACUDA_SDPA_BACKWARD_TILE(T, TILE)                                                     \
  template int baracuda::kernels::sdpa::sdpa_backward_launch_main<T, TILE>(                      \
      const baracuda::kernels::SdpaProblem &, const float *, float *, int *, bool, int, cudaStream_t)
