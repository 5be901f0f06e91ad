// The Hopper backward's variants beside the library's choice, bf16, for the
// probe to time: the consumers in step (each step's dQ at once; the library
// decouples them), and the 64 tile with 128 query rows a step.
#include "probe_api.h"
#include "sdpa/sm90/sdpa_backward_sm90.cuh"
#include "sdpa/sm90/sdpa_backward_sm90_entry.cuh"

namespace bk = baracuda::kernels;
BARACUDA_SDPA_SM90_BACKWARD(__nv_bfloat16, 64, bk::sdpa_sm90_backward_shape(64).block_m, !bk::kSdpaSm90BackwardDecoupled);
BARACUDA_SDPA_SM90_BACKWARD(__nv_bfloat16, 128, bk::sdpa_sm90_backward_shape(128).block_m,
                            !bk::kSdpaSm90BackwardDecoupled);
BARACUDA_SDPA_SM90_BACKWARD(__nv_bfloat16, 64, 128, bk::kSdpaSm90BackwardDecoupled);

int sm90_in_step_backward_bf16(const void *problem, void *ws, size_t ws_bytes, cudaStream_t s) {
  return bk::sdpa_backward_sm90_run<__nv_bfloat16, !bk::kSdpaSm90BackwardDecoupled>(
      *static_cast<const bk::SdpaProblem *>(problem), ws, ws_bytes, s);
}
int sm90_m128_backward_bf16(const void *problem, void *ws, size_t ws_bytes, cudaStream_t s) {
  return bk::sdpa_backward_sm90_run<__nv_bfloat16, bk::kSdpaSm90BackwardDecoupled, 128>(
      *static_cast<const bk::SdpaProblem *>(problem), ws, ws_bytes, s);
}
