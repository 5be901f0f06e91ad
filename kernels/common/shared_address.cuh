// The 32-bit shared-window address of a pointer into shared memory, as
// ldmatrix, cp.async, mbarriers and the copy engine name shared memory.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace baracuda::kernels {

__device__ __forceinline__ uint32_t shared_address(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

}  // namespace baracuda::kernels
