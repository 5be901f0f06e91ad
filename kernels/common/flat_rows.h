// A rows problem whose output is dense (row-major, no gaps) walked as one
// flat run of 16-byte vectors instead of row by row: where rows are short,
// a row kernel pays a block's set-up for every few rows and stores a
// partial vector at every row end, while a flat walk gives each warp 512
// contiguous bytes to store whatever the row length, and finds each
// vector's row and column by multiply-shift divisions. Host-only, no CUDA;
// the device side is flat_rows.cuh.
#pragma once

#include <cstdint>

#include "common/fast_divisor.h"
#include "common/rows_problem.h"

namespace baracuda::kernels {

// Vector 0 holds the output's elements before its first 16-byte boundary
// (head of them, possibly none); vector v >= 1 holds elements
// [head + (v - 1) * V, head + v * V) with V = 16 / element bytes, the last
// one cut at the end of the output.
struct FlatRows {
  int64_t elements;
  int64_t vectors;
  int32_t head;
  // Every flat index fits 31 bits: divisions by the output extents are the
  // fast divisors below, else plain 64-bit ones.
  bool narrow;
  FastDivisor extent[kMaxRank];  // of each output axis
};

// The output has no gaps: unit-stride rows, each axis's stride the size of
// the axes inside it.
inline bool dense_output(const RowsProblem &p) {
  int64_t size = 1;
  for (int d = p.rank - 1; d >= 0; --d) {
    if (p.out_extent[d] != 1 && p.out_stride[d] != size) return false;
    size *= p.out_extent[d];
  }
  return true;
}

// A flat walk serves a problem whose output is dense, whose input rows are
// unit-stride (the vectors' loads), whose rows hold at least one vector's
// bytes (a vector then spans at most two rows), and whose output is aligned
// to its elements (up to 16 bytes: the vectors' stores).
inline bool flat_walk_serves(const RowsProblem &p, int elem_bytes) {
  const int inner = p.rank - 1;
  const uintptr_t align = static_cast<uintptr_t>(elem_bytes < 16 ? elem_bytes : 16);
  return dense_output(p) && p.in_stride[inner] == 1 && p.out_extent[inner] * elem_bytes >= 16 &&
         reinterpret_cast<uintptr_t>(p.out) % align == 0;
}

inline FlatRows make_flat_rows(const RowsProblem &p, int elem_bytes) {
  FlatRows f{};
  f.elements = 1;
  for (int d = 0; d < p.rank; ++d) f.elements *= p.out_extent[d];
  const int64_t vec = 16 / elem_bytes;
  const uint32_t mis = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p.out) & 15u);
  const int64_t head = mis == 0 ? 0 : (16 - mis) / elem_bytes;
  f.head = static_cast<int32_t>(head < f.elements ? head : f.elements);
  f.vectors = 1 + (f.elements - f.head + vec - 1) / vec;
  f.narrow = f.elements < (int64_t{1} << 31);
  for (int d = 0; d < p.rank; ++d) f.extent[d] = fast_divisor(p.out_extent[d]);
  return f;
}

}  // namespace baracuda::kernels
