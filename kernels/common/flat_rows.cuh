// The device side of a flat walk (flat_rows.h): where a vector's elements
// lie, and a flat index split into row, column and outer coordinates.
#pragma once

#include <cstdint>

#include "common/flat_rows.h"

namespace baracuda::kernels {

#ifdef __CUDACC__

// n / d: the fast divisor of d where every index fits 31 bits.
template <bool Narrow>
__device__ __forceinline__ int64_t flat_divide(int64_t n, int64_t d, FastDivisor f) {
  if constexpr (Narrow) {
    return fast_divide(static_cast<uint32_t>(n), f);
  } else {
    return n / d;
  }
}

// Vector v's first element and how many it holds (0 past the end).
template <int V>
__device__ __forceinline__ int32_t vector_span(const FlatRows &f, int64_t v, int64_t &e0) {
  const int64_t begin = v == 0 ? 0 : f.head + (v - 1) * V;
  const int64_t end = v == 0 ? f.head : begin + V;
  e0 = begin;
  if (v >= f.vectors) return 0;
  return static_cast<int32_t>((end < f.elements ? end : f.elements) - begin);
}

// Flat element e of the output as its row (the index over the outer axes)
// and column.
struct RowColumn {
  int64_t row, col;
};
template <bool Narrow>
__device__ __forceinline__ RowColumn split_flat(const RowsProblem &p, const FlatRows &f, int64_t e) {
  const int inner = p.rank - 1;
  const int64_t w = p.out_extent[inner];
  const int64_t row = flat_divide<Narrow>(e, w, f.extent[inner]);
  return {row, e - row * w};
}

// Row g's coordinate along each outer axis. Unrolled over the largest rank,
// so that a caller's coord array stays in registers.
template <bool Narrow>
__device__ __forceinline__ void flat_row_coords(const RowsProblem &p, const FlatRows &f, int64_t g,
                                                int64_t (&coord)[kMaxRank - 1]) {
  const int inner = p.rank - 1;
#pragma unroll
  for (int d = kMaxRank - 2; d >= 1; --d) {
    if (d >= inner) continue;
    const int64_t q = flat_divide<Narrow>(g, p.out_extent[d], f.extent[d]);
    coord[d] = g - q * p.out_extent[d];
    g = q;
  }
  coord[0] = g;
}

#endif  // __CUDACC__

}  // namespace baracuda::kernels
