// A tree's sm_80 forward (bf16) at the 64, 128 and 256 tiles, as its plan
// runs them on an H200 (a tree before session 22: the wide 256 tile),
// behind a C entry PROBE_ENTRY (probe_entry.h's arrays; out and lse
// written): run.py times it beside FlashAttention-2's forward on every
// timing row, and on the benchmark's old and new data.
#include <cuda_bf16.h>

#include "probe_entry.h"
#include "sdpa/sdpa_forward_sm80_bf16_d128.cu"
#include "sdpa/sdpa_forward_sm80_bf16_d64.cu"
#if __has_include("sdpa/sdpa_forward_sm80wide_bf16_d256.cu")
#include "sdpa/sdpa_forward_sm80wide_bf16_d256.cu"
#define PROBE_SM80_256 kSm80Wide
#else
#include "sdpa/sdpa_forward_sm80_bf16_d256.cu"
#define PROBE_SM80_256 kSm80
#endif

extern "C" int PROBE_ENTRY(const int64_t *dims, void *const *ptrs, void *stream) {
  using namespace baracuda::kernels;
  const SdpaProblem p = probe_problem<SdpaProblem>(dims, ptrs);
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (sdpa_tc_head_dim_tile(p.head_dim, p.head_dim_v)) {
    case 64:
      return sdpa_forward_tc_launch<SdpaTcVariant::kSm80, __nv_bfloat16, 64>(p, s);
    case 128:
      return sdpa_forward_tc_launch<SdpaTcVariant::kSm80, __nv_bfloat16, 128>(p, s);
    default:
      return sdpa_forward_tc_launch<SdpaTcVariant::PROBE_SM80_256, __nv_bfloat16, 256>(p, s);
  }
}
