#include "sdpa/sdpa_forward_tc.cuh"

BARACUDA_SDPA_TC_FORWARD(kSm80Wide, __nv_bfloat16, 256);
