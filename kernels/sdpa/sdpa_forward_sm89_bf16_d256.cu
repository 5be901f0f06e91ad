#include "sdpa/sdpa_forward_tc.cuh"

BARACUDA_SDPA_TC_FORWARD(kSm89, __nv_bfloat16, 256);
