// The Hopper backward's entry points (sdpa_backward_sm90_entry.cuh), dQ
// added by TMA reductions.
#include "sdpa/sdpa_kernels.h"
#include "sdpa/sm90/sdpa_backward_sm90_entry.cuh"

namespace baracuda::kernels {

bool sdpa_backward_sm90_built() { return true; }
int sdpa_backward_sm90_f16(const SdpaProblem &p, void *workspace, size_t workspace_bytes, cudaStream_t stream) {
  return sdpa_backward_sm90_run<__half>(p, workspace, workspace_bytes, stream);
}
int sdpa_backward_sm90_bf16(const SdpaProblem &p, void *workspace, size_t workspace_bytes, cudaStream_t stream) {
  return sdpa_backward_sm90_run<__nv_bfloat16>(p, workspace, workspace_bytes, stream);
}

}  // namespace baracuda::kernels
