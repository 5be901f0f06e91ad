#include "sdpa/sdpa_kernels.h"
#include "sdpa/sdpa_simt_backward.cuh"

namespace baracuda::kernels {
int sdpa_backward_simt_f64(const SdpaProblem &p, void *workspace, size_t workspace_bytes, cudaStream_t stream) {
  return sdpa_simt::backward<double>(p, workspace, workspace_bytes, stream);
}
}  // namespace baracuda::kernels
