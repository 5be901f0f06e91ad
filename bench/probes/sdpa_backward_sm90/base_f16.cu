// The baseline tree's sm_80 backward, f16 (see probe_api.h).
#include "probe_api.h"
#include "sdpa/sdpa_backward_f16.cu"
#include "sdpa/sdpa_backward_f16_h64.cu"
#include "sdpa/sdpa_backward_f16_h128.cu"
#include "sdpa/sdpa_backward_f16_h256.cu"

int base_backward_f16(const void *problem, void *ws, size_t ws_bytes, cudaStream_t s) {
  return baracuda::kernels::sdpa_backward_sm80_f16(*static_cast<const baracuda::kernels::SdpaProblem *>(problem), ws,
                                                    ws_bytes, s);
}
