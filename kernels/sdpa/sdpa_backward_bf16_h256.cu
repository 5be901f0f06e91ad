#include "sdpa/sdpa_backward_launch.cuh"

BARACUDA_SDPA_BACKWARD_TILE(__nv_bfloat16, 256);
