#include "sdpa/sdpa_forward_tc.cuh"

BARACUDA_SDPA_TC_FORWARD(kSm89, __half, 128);
