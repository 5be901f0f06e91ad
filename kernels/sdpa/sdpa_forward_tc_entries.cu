// The tensor-core forward's entry points: each picks the compiled head-size
// tile that holds D and Dv and calls that instantiation's launch.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "sdpa/sdpa_forward_tc_launch.h"
#include "sdpa/sdpa_kernels.h"
#include "sdpa/sdpa_tc_heuristics.h"

namespace baracuda::kernels {
namespace {

template <SdpaTcVariant Variant, class T>
int forward_tc(const SdpaProblem &p, cudaStream_t stream) {
  switch (sdpa_tc_head_dim_tile(p.head_dim, p.head_dim_v)) {
    case 64:
      return sdpa_forward_tc_launch<Variant, T, 64>(p, stream);
    case 128:
      return sdpa_forward_tc_launch<Variant, T, 128>(p, stream);
    default:
      return sdpa_forward_tc_launch<Variant, T, 256>(p, stream);
  }
}

}  // namespace

int sdpa_forward_sm80_f16(const SdpaProblem &p, cudaStream_t stream) {
  return forward_tc<SdpaTcVariant::kSm80, __half>(p, stream);
}
int sdpa_forward_sm80_bf16(const SdpaProblem &p, cudaStream_t stream) {
  return forward_tc<SdpaTcVariant::kSm80, __nv_bfloat16>(p, stream);
}
int sdpa_forward_sm89_f16(const SdpaProblem &p, cudaStream_t stream) {
  return forward_tc<SdpaTcVariant::kSm89, __half>(p, stream);
}
int sdpa_forward_sm89_bf16(const SdpaProblem &p, cudaStream_t stream) {
  return forward_tc<SdpaTcVariant::kSm89, __nv_bfloat16>(p, stream);
}

}  // namespace baracuda::kernels
