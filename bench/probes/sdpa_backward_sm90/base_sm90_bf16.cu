// The baseline tree's Hopper backward, bf16 (see probe_api.h); its fallback
// for views TMA cannot read is base_bf16.cu's sm_80 backward. Built again
// for each variant (build.sh: -DPROBE_VARIANT, its own namespace and entry
// name), whose fallback is never reached: every view of the probe is
// TMA-readable.
#include "probe_api.h"
#include "sdpa/sm90/sdpa_backward_sm90_entry.cuh"
#include "sdpa/sm90/sdpa_backward_sm90_bf16_d128.cu"
#include "sdpa/sm90/sdpa_backward_sm90_bf16_d64.cu"
#if defined(PROBE_SKIP_D256)  // a variant of the D 64 / 128 tiles: the 256 tile refuses (UNSUPPORTED)
template <>
int baracuda::kernels::sdpa_backward_sm90_launch<__nv_bfloat16, 256>(const SdpaProblem &, const sm90::BackwardParams &,
                                                                       cudaStream_t) {
  return 3;
}
#elif __has_include("sdpa/sm90/sdpa_backward_sm90_bf16_d256.cu")  // the trees that have the 256 tile
#include "sdpa/sm90/sdpa_backward_sm90_bf16_d256.cu"
#endif

#ifdef PROBE_VARIANT
int baracuda::kernels::sdpa_backward_sm80_bf16(const SdpaProblem &, void *, size_t, cudaStream_t) {
  return 3;  // UNSUPPORTED
}
#else
#define PROBE_SM90_ENTRY base_backward_sm90_bf16
#endif

int PROBE_SM90_ENTRY(const void *problem, void *ws, size_t ws_bytes, cudaStream_t s) {
  return baracuda::kernels::sdpa_backward_sm90_run<__nv_bfloat16>(
      *static_cast<const baracuda::kernels::SdpaProblem *>(problem), ws, ws_bytes, s);
}
