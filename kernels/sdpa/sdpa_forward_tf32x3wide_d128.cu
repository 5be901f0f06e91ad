#include "sdpa/sdpa_forward_tf32x3.cuh"

BARACUDA_SDPA_TF32X3_FORWARD(128, true);
