// The launch of the main backward kernel for one dtype and head tile,
// instantiated by sdpa_backward_<dtype>_h<tile>.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "sdpa/sdpa_backward_kernel.cuh"
#include "sdpa/sdpa_backward_traits.h"

namespace baracuda::kernels::sdpa {

// The grid is (kv heads, key tiles, batch): sdpa_backward_kernel.cuh's key_tile_of_block.
template <class T, class Tr>
int sdpa_backward_launch_tiles(const SdpaProblem &p, const float *delta, float *dq, int *turns, bool aligned,
                               cudaStream_t stream) {
  const int64_t key_tiles = (p.keys + Tr::kKeys - 1) / Tr::kKeys;
  auto kernel = aligned ? sdpa_backward_kernel<T, Tr, true> : sdpa_backward_kernel<T, Tr, false>;
  cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Tr::kSmemBytes);
  if (err != cudaSuccess) return -static_cast<int>(err);
  const dim3 grid(static_cast<unsigned>(p.heads_kv), static_cast<unsigned>(key_tiles), static_cast<unsigned>(p.batch));
  kernel<<<grid, Tr::kThreads, Tr::kSmemBytes, stream>>>(p, delta, dq, turns);
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
  if constexpr (!std::is_same_v<Wide, Narrow>) {
    // Other key tiles would add other dq parts: the deterministic mode keeps
    // the narrow tiles' bits on every device.
    if (smem_optin >= Wide::kSmemBytes && (Wide::kKeys == Narrow::kKeys || turns == nullptr))
      return sdpa_backward_launch_tiles<T, Wide>(p, delta, dq, turns, aligned, stream);
  }
  return sdpa_backward_launch_tiles<T, Narrow>(p, delta, dq, turns, aligned, stream);
}

}  // namespace baracuda::kernels::sdpa

#define BARACUDA_SDPA_BACKWARD_TILE(T, TILE)                                                     \
  template int baracuda::kernels::sdpa::sdpa_backward_launch_main<T, TILE>(                      \
      const baracuda::kernels::SdpaProblem &, const float *, float *, int *, bool, int, cudaStream_t)
