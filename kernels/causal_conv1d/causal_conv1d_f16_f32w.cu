// x in f16 with f32 weights, bias and their gradients (as Mamba trains).
#include "causal_conv1d/causal_conv1d_impl.cuh"

BARACUDA_CAUSAL_CONV1D_ENTRIES(kCausalConv1dF16F32w, __half, float);
