#include "sdpa/sm90/sdpa_backward_sm90.cuh"

BARACUDA_SDPA_SM90_BACKWARD(__half, 128, baracuda::kernels::sdpa_sm90_backward_shape(128).block_m,
                            baracuda::kernels::kSdpaSm90BackwardDecoupled);
