#include "sdpa/sm90/sdpa_backward_sm90.cuh"

BARACUDA_SDPA_SM90_BACKWARD(__nv_bfloat16, 256);
