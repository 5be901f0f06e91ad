#include "sdpa/sdpa_backward_launch.cuh"

BARACUDA_SDPA_BACKWARD_TILE(__half, 64);
