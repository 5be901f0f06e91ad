#include "pad/pad_backward_impl.cuh"

BARACUDA_PAD_BACKWARD_ENTRY(f16, __half)
