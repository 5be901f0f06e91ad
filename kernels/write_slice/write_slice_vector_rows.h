// write_slice's copy of whole 16-byte vectors: where the window's rows and the
// source's rows (the innermost axis) are unit-stride, whole vectors long and
// 16-byte aligned, as a KV-cache append's are, every thread copies vectors
// straight, with no per-block row set-up and no element path. Small appends
// were latency-bound on the row kernel's set-up and its few blocks (a block
// took ~15 short rows): 11.5 us for a 128 KB append beside 7.2 for a copy.
// Plain C++, host-includable: the plan fills it and the CPU tests check it.
#pragma once

#include <cstdint>

#include "common/fast_divisor.h"
#include "common/rows_problem.h"

namespace baracuda::kernels {

struct VectorRowsCopy {
  int32_t outer = 0;  // axes above the row
  int64_t extent[kMaxRank - 1] = {};
  int64_t out_stride[kMaxRank - 1] = {}, in_stride[kMaxRank - 1] = {};  // in vectors
  int64_t row_vectors = 0;
  FastDivisor row_div;   // of row_vectors, where vectors < 2^31
  int64_t vectors = 0;  // in all
  void *out = nullptr;
  const void *in = nullptr;
};

// Threads per block, and the vectors a thread copies (loads all, then stores
// all) once a copy is larger than kOneVectorUpTo; a smaller one takes a
// vector a thread, so that its few bytes spread over every SM. Measured on
// the H200 with the bound at 2^18: one vector a thread ran 2^17 (a 16-token
// bf16 append, 1024 blocks) at 84% of a copy, where 2^15 and less ran at
// 94-103%.
struct VectorRowsTraits {
  static constexpr int kThreads = 128;
  static constexpr int kVectorsPerThread = 4;
  static constexpr int64_t kOneVectorUpTo = int64_t{1} << 15;
};

inline int vector_rows_per_thread(int64_t vectors) {
  return vectors > VectorRowsTraits::kOneVectorUpTo ? VectorRowsTraits::kVectorsPerThread : 1;
}

// p (map Copy) as whole vectors of elements of elem_bytes, in v; false where
// a row is not unit-stride or whole vectors, or a pointer or an outer stride
// is not a multiple of 16 bytes.
inline bool as_vector_rows(const RowsProblem &p, int elem_bytes, VectorRowsCopy &v) {
  const int32_t inner = p.rank - 1;
  if (inner < 1 || p.out_stride[inner] != 1 || p.in_stride[inner] != 1) return false;
  if (reinterpret_cast<uintptr_t>(p.out) % 16 != 0 || reinterpret_cast<uintptr_t>(p.in) % 16 != 0) return false;
  auto vectors_of = [&](int64_t elements, int64_t &out) {
    const int64_t bytes = elements * elem_bytes;
    out = bytes / 16;
    return bytes % 16 == 0;
  };
  if (!vectors_of(p.out_extent[inner], v.row_vectors)) return false;
  v.outer = inner;
  v.vectors = v.row_vectors;
  for (int32_t d = 0; d < inner; ++d) {
    if (!vectors_of(p.out_stride[d], v.out_stride[d]) || !vectors_of(p.in_stride[d], v.in_stride[d])) return false;
    v.extent[d] = p.out_extent[d];
    v.vectors *= p.out_extent[d];
  }
  v.row_div = fast_divisor(v.vectors < INT32_MAX ? v.row_vectors : 0);
  v.out = p.out;
  v.in = p.in;
  return true;
}

}  // namespace baracuda::kernels
