// The sm_80 forward of one tree (bf16) behind a plain function, compiled with
// -Dbaracuda=baracuda_sm80, so that the probe times it beside the Hopper
// forward on the same problems (the decoding rows, where select chooses
// between them).
#include <cuda_bf16.h>

#include "sdpa/sdpa_forward_tc.cuh"
#include "sdpa/sdpa_tc_heuristics.h"

using namespace baracuda::kernels;

BARACUDA_SDPA_TC_FORWARD(kSm80, __nv_bfloat16, 64);
BARACUDA_SDPA_TC_FORWARD(kSm80, __nv_bfloat16, 128);
BARACUDA_SDPA_TC_FORWARD(kSm80, __nv_bfloat16, 256);

// 0 or a negated CUDA error.
int probe_forward_sm80(const void *problem, cudaStream_t stream) {
  const SdpaProblem &p = *static_cast<const SdpaProblem *>(problem);
  switch (sdpa_tc_head_dim_tile(p.head_dim, p.head_dim_v)) {
    case 64:
      return sdpa_forward_tc_launch<SdpaTcVariant::kSm80, __nv_bfloat16, 64>(p, stream);
    case 128:
      return sdpa_forward_tc_launch<SdpaTcVariant::kSm80, __nv_bfloat16, 128>(p, stream);
    default:
      return sdpa_forward_tc_launch<SdpaTcVariant::kSm80, __nv_bfloat16, 256>(p, stream);
  }
}
