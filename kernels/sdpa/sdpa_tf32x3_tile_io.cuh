// Moving [rows][head_dim_tile] f32 tiles from global into shared memory,
// rows `pitch` floats apart (sdpa_tf32x3_heuristics.h), and reading operand
// fragments back out of them.
#pragma once

#include <cstdint>

#include "sdpa/sdpa_forward_tc_tile_io.cuh"
#include "sdpa/sdpa_tc_primitives.cuh"

namespace baracuda::kernels::sdpa_tc {

__device__ __forceinline__ float2 ld_shared_f2(uint32_t addr) {
  float2 v;
  asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];\n" : "=f"(v.x), "=f"(v.y) : "r"(addr));
  return v;
}
__device__ __forceinline__ float ld_shared_f1(uint32_t addr) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(v) : "r"(addr));
  return v;
}

// Rows [0, Rows) of a tile whose row 0 is at g, rows_left of them real, zero
// past row rows_left or column cols (the MMAs take the whole tile, the zeros
// adding nothing). Aligned rows go through cp.async (the caller commits the
// group), the others through plain loads. A thread keeps one 4-float chunk
// column and steps down the rows.
template <int Rows, int HeadDim, int Pitch, int Threads>
__device__ __forceinline__ void load_tile_f32(uint32_t s_tile, const float *g, int64_t row_stride, int64_t rows_left,
                                              int cols, bool aligned) {
  constexpr int kChunksPerRow = HeadDim / 4;
  constexpr int kRowStep = Threads / kChunksPerRow;
  static_assert(Threads % kChunksPerRow == 0 && Rows % kRowStep == 0, "every thread copies whole columns");
  const int row0 = static_cast<int>(threadIdx.x) / kChunksPerRow, chunk = static_cast<int>(threadIdx.x) % kChunksPerRow;
  const bool real_col = chunk * 4 < cols;
  const int64_t step = row_stride * kRowStep;
  const float *src = g + row0 * row_stride + chunk * 4;
  const uint32_t dst = s_tile + static_cast<uint32_t>(row0 * Pitch + chunk * 4) * 4u;
  constexpr uint32_t kDstStep = kRowStep * Pitch * 4;
#pragma unroll
  for (int k = 0; k < Rows / kRowStep; ++k, src += step) {
    const bool real = real_col && row0 + k * kRowStep < rows_left;
    if (aligned) {
      cp_async_16(dst + k * kDstStep, real ? src : g, real ? 16 : 0);
    } else {
      const uint4 v = real ? make_uint4(__float_as_uint(src[0]), __float_as_uint(src[1]), __float_as_uint(src[2]),
                                        __float_as_uint(src[3]))
                           : make_uint4(0, 0, 0, 0);
      st_shared_16(dst + k * kDstStep, v);
    }
  }
}

}  // namespace baracuda::kernels::sdpa_tc
