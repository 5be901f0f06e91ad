// One tree's sm_80 attention backward (bf16) at one head tile (PROBE_TILE)
// behind C entries PROBE_ENTRY (run) and PROBE_ENTRY_ws (workspace bytes),
// its namespace renamed on the command line so that several trees link into
// one library. The head tile's kernels as the tree's launch picks them
// (wide where the device's blocks hold them, narrow in the deterministic
// mode where the wide keys differ); with PROBE_VARIANT, variants.h's tiles
// of that number instead (atomic mode only).
#include <cuda_bf16.h>

#include "probe_entry.h"
#include "sdpa/sdpa_backward_entry.cuh"
#include "sdpa/sdpa_backward_heuristics.h"
#include "sdpa/sdpa_backward_launch.cuh"
#ifdef PROBE_VARIANT
#include "variants.h"
#endif

using baracuda::kernels::SdpaProblem;

// A tree without sdpa_backward_takes_turns (the baseline's) runs the mode
// it is told; the staged tree's own function (found by argument-dependent
// lookup, and preferred to this template) sends atomic runs past its grid's
// key tiles to the deterministic kernels, as its sdpa_backward_run does.
template <class Problem>
bool sdpa_backward_takes_turns(const Problem &p) {
  return p.deterministic;
}

extern "C" size_t PROBE_ENTRY_ws(const int64_t *dims) {
  void *none[kPslopes + 1] = {};
  return baracuda::kernels::sdpa_backward_workspace_layout(probe_problem<SdpaProblem>(dims, none)).bytes;
}

// 0, a status (3: this entry does not serve the problem) or a negated CUDA error.
extern "C" int PROBE_ENTRY(const int64_t *dims, void *const *ptrs, size_t ws_bytes, void *stream) {
  using namespace baracuda::kernels;
  using namespace baracuda::kernels::sdpa;
  using T = __nv_bfloat16;
  SdpaProblem p = probe_problem<SdpaProblem>(dims, ptrs);
  p.deterministic = sdpa_backward_takes_turns(p);
  if (sdpa_backward_head_tile(p.head_dim, p.head_dim_v) != PROBE_TILE) return 3;
  if (!sdpa_backward_grid_fits(p, PROBE_TILE)) return 3;
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  int device = 0, smem_optin = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess)
    return -1;
  const bool aligned = rows_are_16_byte_aligned(p.q.data, p.q.stride, 2) &&
                       rows_are_16_byte_aligned(p.k.data, p.k.stride, 2) &&
                       rows_are_16_byte_aligned(p.v.data, p.v.stride, 2) &&
                       rows_are_16_byte_aligned(p.dout.data, p.dout.stride, 2);
#ifdef PROBE_VARIANT
  // The deterministic mode where the variant's key tiles are the narrow tile's (the counters' order).
  constexpr bool kServesTurns = ProbeTraits::kKeys == SdpaBackwardTraits<PROBE_TILE>::kKeys;
  if ((p.deterministic && !kServesTurns) || smem_optin < ProbeTraits::kSmemBytes) return 3;
  return sdpa_backward_passes<T>(p, ptrs[kPws], ws_bytes, s, [&](const float *delta, float *dq, int *turns) {
    if (turns != nullptr) return sdpa_backward_launch_tiles<T, ProbeTraits, true>(p, delta, dq, turns, aligned, s);
    return sdpa_backward_launch_tiles<T, ProbeTraits, false>(p, delta, dq, turns, aligned, s);
  });
#else
  return sdpa_backward_passes<T>(p, ptrs[kPws], ws_bytes, s, [&](const float *delta, float *dq, int *turns) {
    return sdpa_backward_launch_main<T, PROBE_TILE>(p, delta, dq, turns, aligned, smem_optin, s);
  });
#endif
}
