#include "causal_conv1d/causal_conv1d_impl.cuh"

BARACUDA_CAUSAL_CONV1D_ENTRIES(kCausalConv1dBf16, __nv_bfloat16, __nv_bfloat16);
