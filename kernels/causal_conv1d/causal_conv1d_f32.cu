#include "causal_conv1d/causal_conv1d_impl.cuh"

BARACUDA_CAUSAL_CONV1D_ENTRIES(kCausalConv1dF32, float, float);
