#include "sdpa/sm90/sdpa_forward_sm90.cuh"

BARACUDA_SDPA_SM90_FORWARD(__nv_bfloat16, 128);
