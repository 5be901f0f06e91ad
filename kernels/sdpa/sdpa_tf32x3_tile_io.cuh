// Moving [rows][head_dim_tile] f32 tiles from global into shared memory,
// rows `Pitch` floats apart (sdpa_tf32x3_heuristics.h).
#pragma once

#include <cstdint>

#include "sdpa/sdpa_tc_primitives.cuh"

namespace baracuda::kernels::sdpa_tc {

// Rows [0, Rows) of a tile whose row 0 is at g, rows_left of them real, zero
// past row rows_left or column cols (the MMAs take the whole tile, the zeros
// adding nothing). Aligned rows go through cp.async (the caller commits the
// group), the others through plain loads. A thread keeps one 4-float chunk
// column and steps down the rows.
template <int Rows, int HeadDim, int Pitch, int Threads>
__device__ __forceinline__ void load_tile_f32(unsigned char *s_tile, const float *g, int64_t row_stride,
                                              int64_t rows_left, int cols, bool aligned) {
  constexpr int kChunksPerRow = HeadDim / 4;
  constexpr int kRowStep = Threads / kChunksPerRow;
  static_assert(Threads % kChunksPerRow == 0 && Rows % kRowStep == 0, "every thread copies whole columns");
  const int row0 = static_cast<int>(threadIdx.x) / kChunksPerRow, chunk = static_cast<int>(threadIdx.x) % kChunksPerRow;
  const bool real_col = chunk * 4 < cols;
  const int64_t step = row_stride * kRowStep;
  const float *src = g + row0 * row_stride + chunk * 4;
  float *dst = reinterpret_cast<float *>(s_tile) + row0 * Pitch + chunk * 4;
  constexpr int kDstStep = kRowStep * Pitch;
#pragma unroll
  for (int k = 0; k < Rows / kRowStep; ++k, src += step) {
    const bool real = real_col && row0 + k * kRowStep < rows_left;
    if (aligned) {
      cp_async_16(dst + k * kDstStep, real ? src : g, real);
    } else {
      *reinterpret_cast<float4 *>(dst + k * kDstStep) =
          real ? make_float4(src[0], src[1], src[2], src[3]) : make_float4(0.f, 0.f, 0.f, 0.f);
    }
  }
}

}  // namespace baracuda::kernels::sdpa_tc
