#include "sdpa/sdpa_backward_entry.cuh"
#include "sdpa/sdpa_kernels.h"

namespace baracuda::kernels {

int sdpa_backward_sm80_f16(const SdpaProblem &p, void *workspace, size_t workspace_bytes, cudaStream_t stream) {
  return sdpa::sdpa_backward_run<__half>(p, workspace, workspace_bytes, stream);
}

}  // namespace baracuda::kernels
