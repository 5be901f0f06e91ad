// Stores of the backward's dw/db partial sums, which the reduction
// (conv1d_side_kernels.cuh) reads right after the pass.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace baracuda::kernels::conv1d {

// *partial = v, kept in L2 ahead of the operands streaming past it (L2
// evict-last): the reduction's reads then mostly hit L2 instead of going to
// DRAM behind gigabytes of x, dy and dx. Session 23 (H100, bf16 x with f32
// weights, against the same without the hint): channels-last [64,2048,512]
// W2 159.3 -> 154.7 us, [8,4096,4096] W2 298.2 -> 293.3, f32 [64,2048,512]
// W2 300.5 -> 296.1; the [B,C,L] rows level.
template <class A>
__device__ __forceinline__ void store_partial(A *partial, A v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (sizeof(A) == 4) {
    uint64_t policy;
    asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
    asm volatile("st.global.L2::cache_hint.f32 [%0], %1, %2;" ::"l"(partial), "f"(v), "l"(policy) : "memory");
    return;
  }
#endif
  *partial = v;
}

}  // namespace baracuda::kernels::conv1d
