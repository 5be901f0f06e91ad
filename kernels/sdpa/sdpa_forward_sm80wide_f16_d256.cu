#include "sdpa/sdpa_forward_tc.cuh"

BARACUDA_SDPA_TC_FORWARD(kSm80Wide, __half, 256);
