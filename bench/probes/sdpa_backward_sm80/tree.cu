// One tree's sm_80 attention backward (bf16) at one head tile (PROBE_TILE)
// behind C entries PROBE_ENTRY (run) and PROBE_ENTRY_ws (workspace bytes),
// its namespace renamed on the command line so that several trees link into
// one library. The head tile's kernels as the tree's launch picks them
// (wide where the device's blocks hold them, narrow in the deterministic
// mode where the wide keys differ); with PROBE_VARIANT, variants.h's tiles
// of that number instead (atomic mode only). A tree whose passes hand the
// main kernel a fourth argument (the counters by which it converts dq)
// gets it through `done...`, the baseline's passes none.
#include <cuda_bf16.h>

#include <type_traits>

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
  void *none[10] = {};
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
  if (p.deterministic || smem_optin < ProbeTraits::kSmemBytes) return 3;
  return sdpa_backward_passes<T>(p, ptrs[kPws], ws_bytes, s, [&](const float *delta, float *dq, int *turns, auto... done) -> int {
    return baracuda::kernels::sdpa::sdpa_backward_launch_tiles<T, ProbeTraits, false>(p, delta, dq, turns, done...,
                                                                                aligned, s);
  });
#else
  return sdpa_backward_passes<T>(p, ptrs[kPws], ws_bytes, s, [&](const float *delta, float *dq, int *turns, auto... done) -> int {
    return baracuda::kernels::sdpa::sdpa_backward_launch_main<T, PROBE_TILE>(p, delta, dq, turns, done..., aligned,
                                                                        smem_optin, s);
  });
#endif
}

#ifdef PROBE_ENTRY_pass
// The same kernels with dq converted by the pass after them (a main of
// three arguments: a tree whose main kernel can convert dq is told not to):
// the launch with a null dq_done where it takes one.
template <class Launch, class P>
auto launch_without_conversion(Launch launch, const P &p, const float *delta, float *dq, int *turns, bool aligned,
                               int smem_optin, cudaStream_t s, int)
    -> decltype(launch(p, delta, dq, turns, nullptr, aligned, smem_optin, s)) {
  return launch(p, delta, dq, turns, nullptr, aligned, smem_optin, s);
}
template <class Launch, class P>
int launch_without_conversion(Launch launch, const P &p, const float *delta, float *dq, int *turns, bool aligned,
                              int smem_optin, cudaStream_t s, long) {
  return launch(p, delta, dq, turns, aligned, smem_optin, s);
}
extern "C" size_t PROBE_ENTRY_pass_ws(const int64_t *dims) { return PROBE_ENTRY_ws(dims); }
extern "C" int PROBE_ENTRY_pass(const int64_t *dims, void *const *ptrs, size_t ws_bytes, void *stream) {
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
  auto *launch = &baracuda::kernels::sdpa::sdpa_backward_launch_main<T, PROBE_TILE>;
  return sdpa_backward_passes<T>(p, ptrs[kPws], ws_bytes, s, [&](const float *delta, float *dq, int *turns) -> int {
    return launch_without_conversion(launch, p, delta, dq, turns, aligned, smem_optin, s, 0);
  });
}
#endif
