#include "sdpa/sdpa_kernels.h"
#include "sdpa/sdpa_simt_forward.cuh"

namespace baracuda::kernels {
int sdpa_forward_simt_f64(const SdpaProblem &p, cudaStream_t stream) { return sdpa_simt::forward<double>(p, stream); }
}  // namespace baracuda::kernels
