// The accumulator of each element type: f32 for f32, f16 and bf16, f64 for
// f64, with the conversions in and out (round to nearest-even on the way out).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace baracuda::kernels {

template <class T>
struct Accum {
  using type = float;
  __device__ static float load(T v) { return static_cast<float>(v); }
  __device__ static T store(float v) { return static_cast<T>(v); }
};
template <>
struct Accum<double> {
  using type = double;
  __device__ static double load(double v) { return v; }
  __device__ static double store(double v) { return v; }
};
template <>
struct Accum<__half> {
  using type = float;
  __device__ static float load(__half v) { return __half2float(v); }
  __device__ static __half store(float v) { return __float2half_rn(v); }
};
template <>
struct Accum<__nv_bfloat16> {
  using type = float;
  __device__ static float load(__nv_bfloat16 v) { return __bfloat162float(v); }
  __device__ static __nv_bfloat16 store(float v) { return __float2bfloat16_rn(v); }
};

}  // namespace baracuda::kernels
