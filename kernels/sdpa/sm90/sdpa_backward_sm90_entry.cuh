// The Hopper backward end to end for one dtype: the compiled head-size tile
// that holds D and Dv, the tensor maps, and the passes around the main
// kernel (delta, the f32 dQ accumulator and its conversion:
// sdpa_backward_entry.cuh's). Views that TMA cannot read (rows off 16 bytes)
// and a workspace off 16 bytes go to the sm_80 backward, which serves any
// layout: the plan chosen at select runs whatever views it is given. The
// main kernels come from the per-tile files.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "sdpa/sdpa_backward_entry.cuh"
#include "sdpa/sdpa_kernels.h"
#include "sdpa/sm90/sdpa_backward_sm90_order.h"
#include "sdpa/sm90/sdpa_backward_sm90_params.cuh"

namespace baracuda::kernels {

// The main kernel for one dtype and head-size tile (sdpa_backward_sm90.cuh),
// instantiated each in its own .cu file (sdpa_backward_sm90_<dtype>_d<tile>.cu)
// so the build compiles them in parallel. Returns 0 or a negated CUDA error.
template <class T, int HeadDimTile>
int sdpa_backward_sm90_launch(const SdpaProblem &p, const sm90::BackwardParams &bp, cudaStream_t stream);

template <class T>
int sdpa_backward_sm90_run(const SdpaProblem &p, void *workspace, size_t workspace_bytes, cudaStream_t stream) {
  constexpr bool kBf16 = std::is_same_v<T, __nv_bfloat16>;
  if (p.batch == 0 || p.heads_q == 0) return 0;
  const int tile = sdpa_backward_head_tile(p.head_dim, p.head_dim_v);
  if (sdpa_sm90_backward_extents_refusal(p.batch, p.heads_kv, p.queries, p.keys) != nullptr)
    return 3;  // UNSUPPORTED: the plan layer refuses these at select
  sm90::BackwardParams bp;
  // The dQ accumulator's tensor map needs it on 16 bytes (its offset in the workspace is a multiple of 256).
  if (!sm90::backward_params(bp, p, kBf16, tile) || reinterpret_cast<uintptr_t>(workspace) % 16 != 0)
    return kBf16 ? sdpa_backward_sm80_bf16(p, workspace, workspace_bytes, stream)
                 : sdpa_backward_sm80_f16(p, workspace, workspace_bytes, stream);
  return sdpa::sdpa_backward_passes<T>(p, workspace, workspace_bytes, stream,
                                       [&](const float *delta, float *dq, int *turns) {
    // The workspace holds a counter per 64-row query tile (sdpa_backward_workspace_layout):
    // as many as this kernel's query tiles or more.
    static_assert(sdpa_sm90_backward_shape(64).block_m % kSdpaBackwardQueryTile == 0 &&
                  sdpa_sm90_backward_shape(128).block_m % kSdpaBackwardQueryTile == 0 &&
                  sdpa_sm90_backward_shape(256).block_m % kSdpaBackwardQueryTile == 0);
    bp.delta = delta;
    bp.dq = dq;
    bp.turns = turns;
    bp.order = sdpa_sm90_backward_order(p, sdpa_sm90_backward_shape(tile));
    if (!sm90::encode_dq_accumulator(bp, p, dq)) return 3;  // UNSUPPORTED
    return tile == 64    ? sdpa_backward_sm90_launch<T, 64>(p, bp, stream)
           : tile == 128 ? sdpa_backward_sm90_launch<T, 128>(p, bp, stream)
                         : sdpa_backward_sm90_launch<T, 256>(p, bp, stream);
  });
}

}  // namespace baracuda::kernels
