// Host-side description of a "rows" problem, shared by the pad family and
// write_slice: the output is walked row by row (its innermost axis); each
// output index maps back to an input index per axis through an index map.
// This header is plain C++ so the plan layer can fill it.
#pragma once

#include <cstdint>

struct CUstream_st;  // cudaStream_t is CUstream_st *

namespace baracuda::kernels {

constexpr int kMaxRank = 8;

// How output index j of an axis maps to the input: i = j - pad_low, then
enum class IndexMap : int32_t {
  Constant = 0,   // i if 0 <= i < n, else the fill value
  Reflect = 1,    // mirror, edge not repeated
  Replicate = 2,  // clamp to [0, n-1]
  Circular = 3,   // i mod n
  Copy = 4,       // i itself: a strided copy (no padding anywhere)
};

struct RowsProblem {
  int32_t rank = 0;  // >= 1; axis rank-1 is the row
  IndexMap map = IndexMap::Copy;
  int64_t out_extent[kMaxRank] = {};
  int64_t in_extent[kMaxRank] = {};
  int64_t pad_low[kMaxRank] = {};
  int64_t out_stride[kMaxRank] = {};  // elements (nibbles for S4/U4)
  int64_t in_stride[kMaxRank] = {};
  const void *in = nullptr;
  void *out = nullptr;
  unsigned char fill[16] = {};  // IndexMap::Constant's value, one element
};

// A kernel family's entry point: 0, a status, or a negated CUDA error.
using RowsEntry = int (*)(const RowsProblem &p, CUstream_st *stream);

}  // namespace baracuda::kernels
