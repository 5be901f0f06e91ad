#include "sdpa/sdpa_forward_tc.cuh"

BARACUDA_SDPA_TC_FORWARD(kSm80, __half, 128);
