#include "pad/pad_backward_impl.cuh"

BARACUDA_PAD_BACKWARD_ENTRY(bf16, __nv_bfloat16)
