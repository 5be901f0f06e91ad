// Standard-normal tensors on the GPU, as torch.randn draws them, so that a
// row timed here and its PyTorch twin (bench/torch_sdpa.py) run on data of
// one distribution: the attention kernels' time depends on their data (the
// sm_80 forward ran 309 TFLOP/s on bench_ops' random bits and 336 on
// randn-like data, bench/NOTES.md session 18). Deterministic: element i of
// a tensor is a function of (seed, i) alone.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "baracuda/baracuda.h"
#include "bench_checks.hpp"

namespace bench_normal {

// splitmix64's finalizer: every bit of the counter moves every bit of the result.
__device__ __forceinline__ uint64_t mix64(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Box-Muller on two 32-bit uniforms of one hash: u1 in (0, 1] (its log is
// finite), u2 in [0, 1); one of the pair's two normals.
__device__ __forceinline__ double normal_at(uint64_t seed, uint64_t i) {
  const uint64_t h = mix64(seed * 0x9e3779b97f4a7c15ull + i);
  const double u1 = (static_cast<double>(h >> 32) + 1.0) * 0x1p-32;
  const double u2 = static_cast<double>(h & 0xffffffffu) * 0x1p-32;
  return sqrt(-2.0 * log(u1)) * cospi(2.0 * u2);
}

template <class T>
__device__ __forceinline__ T from_double(double x) {
  if constexpr (sizeof(T) == 8) return x;
  else return static_cast<T>(static_cast<float>(x));  // rounded to nearest, as torch.randn's cast is
}

template <class T>
__global__ void fill_normal(T *p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = from_double<T>(normal_at(seed, i));
}

}  // namespace bench_normal

// Fills the n elements of dtype dt at p with standard-normal values.
inline void fill_standard_normal(void *p, baracuda_dtype_t dt, size_t n, uint64_t seed) {
  using namespace bench_normal;
  switch (dt) {
    case BARACUDA_DTYPE_BF16: fill_normal<<<1024, 256>>>(static_cast<__nv_bfloat16 *>(p), n, seed); break;
    case BARACUDA_DTYPE_F16: fill_normal<<<1024, 256>>>(static_cast<__half *>(p), n, seed); break;
    case BARACUDA_DTYPE_F32:
    case BARACUDA_DTYPE_F32_STRICT: fill_normal<<<1024, 256>>>(static_cast<float *>(p), n, seed); break;
    case BARACUDA_DTYPE_F64: fill_normal<<<1024, 256>>>(static_cast<double *>(p), n, seed); break;
    default: std::fprintf(stderr, "fill_standard_normal: dtype %d\n", static_cast<int>(dt)); std::exit(1);
  }
  cuda(cudaGetLastError(), "fill_standard_normal");
}
