#include "write_slice/write_slice_copy_impl.cuh"

BARACUDA_WRITE_SLICE_ENTRY(2)
