#include "sdpa/sdpa_kernels.h"
#include "sdpa/sdpa_simt_forward.cuh"

namespace baracuda::kernels {
int sdpa_forward_simt_f32(const SdpaProblem &p, cudaStream_t stream) { return sdpa_simt::forward<float>(p, stream); }
}  // namespace baracuda::kernels
