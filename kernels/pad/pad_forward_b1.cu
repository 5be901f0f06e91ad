#include "pad/pad_forward_impl.cuh"

BARACUDA_PAD_FORWARD_ENTRY(1)
