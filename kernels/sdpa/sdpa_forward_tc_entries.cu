// The tensor-core forwards' entry points: each picks the compiled head-size
// tile that holds D and Dv and calls that instantiation's launch.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <type_traits>

#include "sdpa/sdpa_forward_params.cuh"
#include "sdpa/sdpa_forward_tc_launch.h"
#include "sdpa/sdpa_kernels.h"
#include "sdpa/sdpa_tc_heuristics.h"
#include "sdpa/sdpa_tf32x3_heuristics.h"

namespace baracuda::kernels {
namespace {

// launch(std::integral_constant<int, Tile>{}) for the compiled head-size tile that holds D and Dv.
template <class Launch>
int with_head_dim_tile(const SdpaProblem &p, Launch &&launch) {
  switch (sdpa_tc_head_dim_tile(p.head_dim, p.head_dim_v)) {
    case 64:
      return launch(std::integral_constant<int, 64>{});
    case 128:
      return launch(std::integral_constant<int, 128>{});
    default:
      return launch(std::integral_constant<int, 256>{});
  }
}

template <SdpaTcVariant Variant, class T>
int forward_tc(const SdpaProblem &p, cudaStream_t stream) {
  return with_head_dim_tile(
      p, [&](auto tile) { return sdpa_forward_tc_launch<Variant, T, decltype(tile)::value>(p, stream); });
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
// The f32 kernel, its wide tiles at the 128 tile where this device's
// blocks hold them (sdpa_tf32x3_traits.h).
int sdpa_forward_tf32x3_f32(const SdpaProblem &p, cudaStream_t stream) {
  if (sdpa_tc_head_dim_tile(p.head_dim, p.head_dim_v) == 128) {
    const int smem_limit = sdpa_tc::device_smem_per_block();
    if (smem_limit < 0) return smem_limit;
    if (sdpa_tf32x3_smem_bytes(p.head_dim, p.head_dim_v, true) <= static_cast<size_t>(smem_limit))
      return sdpa_forward_tf32x3_launch<128, true>(p, stream);
  }
  return with_head_dim_tile(
      p, [&](auto tile) { return sdpa_forward_tf32x3_launch<decltype(tile)::value, false>(p, stream); });
}

}  // namespace baracuda::kernels
