// Elementwise math on a 16-byte vector in the arithmetic's type. 16-bit
// types go back two at a time: one packing conversion per pair instead of a
// conversion per element and a byte permute to merge them (same rounding,
// nearest-even, either way).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "common/accumulate.cuh"
#include "common/element_words.cuh"

namespace baracuda::kernels::alibi {

// Two floats, rounded to nearest-even, as one word of two 16-bit elements.
template <class T>
__device__ __forceinline__ uint32_t pack_pair(float lo, float hi) {
  static_assert(std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>, "a 16-bit float type");
  uint32_t w;
  if constexpr (std::is_same_v<T, __half>) {
    const __half2 pair = __floats2half2_rn(lo, hi);
    memcpy(&w, &pair, sizeof(w));
  } else {
    const __nv_bfloat162 pair = __floats2bfloat162_rn(lo, hi);
    memcpy(&w, &pair, sizeof(w));
  }
  return w;
}

// v.elem[e] = f(element e in the arithmetic's type, e) for every element.
template <class T, class F>
__device__ __forceinline__ void transform_elems(Pack16<T> &v, F f) {
  constexpr int W = Pack16<T>::kCount;
  if constexpr (sizeof(T) == 2) {
    uint32_t w[W / 2];
#pragma unroll
    for (int q = 0; q < W / 2; ++q)
      w[q] = pack_pair<T>(f(Accum<T>::load(v.elem[2 * q]), 2 * q), f(Accum<T>::load(v.elem[2 * q + 1]), 2 * q + 1));
    v.vector = make_uint4(w[0], w[1], w[2], w[3]);
  } else {
#pragma unroll
    for (int e = 0; e < W; ++e) v.elem[e] = Accum<T>::store(f(Accum<T>::load(v.elem[e]), e));
  }
}

}  // namespace baracuda::kernels::alibi
