// How the row kernels cut a rows problem into thread blocks (see
// rows_tiling.cuh for units and chunks): a plain host function, tested on
// the CPU. Host-only, no CUDA.
#pragma once

#include <cstdint>

#include "common/gather_rows_traits.h"
#include "common/rows_problem.h"

namespace baracuda::kernels {

constexpr int kUnitsPerThread = 4;
constexpr int kMaxRowsPerBlock = 128;

struct RowTiling {
  int64_t num_rows;
  int64_t units_per_row;
  int64_t units_per_chunk;
  int64_t chunks_per_row;
  int32_t rows_per_block;
  int32_t vec;  // elements per full unit
  int64_t blocks;
};

// row_extent: the extents whose outer axes count the rows walked (the output's,
// or the input's for a scatter); threads: the kernel's block size. A block
// walks kUnitsPerThread units per thread at a time, and up to
// chunk_batches (default GatherRowsTraits::kChunkBatches) such batches of a long row.
inline RowTiling make_row_tiling(const RowsProblem &p, const int64_t *row_extent, int elem_bytes,
                                 int max_rows_per_block, int threads,
                                 int chunk_batches = GatherRowsTraits::kChunkBatches) {
  const int64_t units_per_block = static_cast<int64_t>(threads) * kUnitsPerThread;
  const int64_t max_units_per_chunk = chunk_batches * units_per_block;
  if (max_rows_per_block > threads) max_rows_per_block = threads;  // one preamble thread per row
  RowTiling t{};
  const int32_t inner = p.rank - 1;
  t.num_rows = 1;
  for (int32_t d = 0; d < inner; ++d) t.num_rows *= row_extent[d];
  t.vec = p.out_stride[inner] == 1 ? 16 / elem_bytes : 1;
  const int64_t width = p.out_extent[inner];
  t.units_per_row = 1 + (width + t.vec - 1) / t.vec;
  if (t.units_per_row >= units_per_block / 2) {
    t.rows_per_block = 1;
    t.chunks_per_row = (t.units_per_row + max_units_per_chunk - 1) / max_units_per_chunk;
    t.units_per_chunk = (t.units_per_row + t.chunks_per_row - 1) / t.chunks_per_row;
  } else {
    int64_t r = units_per_block / t.units_per_row;
    t.rows_per_block = static_cast<int32_t>(r < max_rows_per_block ? r : max_rows_per_block);
    t.chunks_per_row = 1;
    t.units_per_chunk = t.units_per_row;
  }
  t.blocks = (t.num_rows + t.rows_per_block - 1) / t.rows_per_block * t.chunks_per_row;
  return t;
}

}  // namespace baracuda::kernels
