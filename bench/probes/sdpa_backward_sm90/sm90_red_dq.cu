// The Hopper backward with dQ added by red.global.add from registers (the
// library's entry adds it by TMA reductions), bf16, for the probe to time.
#include "probe_api.h"
#include "sdpa/sm90/sdpa_backward_sm90.cuh"
#include "sdpa/sm90/sdpa_backward_sm90_entry.cuh"

BARACUDA_SDPA_SM90_BACKWARD(__nv_bfloat16, 64, false);
BARACUDA_SDPA_SM90_BACKWARD(__nv_bfloat16, 128, false);

int sm90_red_dq_backward_bf16(const void *problem, void *ws, size_t ws_bytes, cudaStream_t s) {
  return baracuda::kernels::sdpa_backward_sm90_run<__nv_bfloat16, false>(
      *static_cast<const baracuda::kernels::SdpaProblem *>(problem), ws, ws_bytes, s);
}
