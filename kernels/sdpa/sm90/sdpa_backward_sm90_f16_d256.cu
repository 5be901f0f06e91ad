#include "sdpa/sm90/sdpa_backward_sm90.cuh"

BARACUDA_SDPA_SM90_BACKWARD(__half, 256);
