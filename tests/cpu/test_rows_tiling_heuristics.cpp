// The row kernels' tiling (kernels/common/rows_tiling_heuristics.h): short
// rows share a block, long rows are cut into chunks, and every unit of every
// row lands in exactly one block. No GPU.
#include <catch2/catch.hpp>
#include <vector>

#include "common/rows_tiling_heuristics.h"

using namespace baracuda::kernels;

namespace {

// A contiguous output of extents `out` (inner stride `inner_stride`).
RowsProblem rows(std::vector<int64_t> out, int64_t inner_stride = 1) {
  RowsProblem p;
  p.rank = static_cast<int32_t>(out.size());
  int64_t stride = inner_stride;
  for (int d = p.rank - 1; d >= 0; --d) {
    p.out_extent[d] = out[d];
    p.out_stride[d] = stride;
    stride *= out[d];
  }
  return p;
}

RowTiling gather_tiling(const RowsProblem &p, int elem_bytes) {
  return make_row_tiling(p, p.out_extent, elem_bytes, kMaxRowsPerBlock, GatherRowsTraits::kThreads);
}

}  // namespace

TEST_CASE("rows tiling: short rows share a block, one preamble thread per row", "[heuristics][rows_tiling]") {
  const RowTiling t = gather_tiling(rows({1000, 8}), 2);  // bf16: a head unit and one vector per row
  CHECK(t.vec == 8);
  CHECK(t.units_per_row == 2);
  CHECK(t.rows_per_block == GatherRowsTraits::kThreads);  // not the 128 the units allow
  CHECK(t.chunks_per_row == 1);
  CHECK(t.blocks == (1000 + GatherRowsTraits::kThreads - 1) / GatherRowsTraits::kThreads);
}

TEST_CASE("rows tiling: long rows are cut into chunks of at most kChunkBatches batches", "[heuristics][rows_tiling]") {
  const RowTiling t = gather_tiling(rows({3, 100000}), 2);
  const int64_t batch = int64_t{GatherRowsTraits::kThreads} * kUnitsPerThread;
  CHECK(t.rows_per_block == 1);
  CHECK(t.units_per_row == 1 + 100000 / 8);
  CHECK(t.units_per_chunk <= GatherRowsTraits::kChunkBatches * batch);
  CHECK(t.chunks_per_row * t.units_per_chunk >= t.units_per_row);
  CHECK((t.chunks_per_row - 1) * t.units_per_chunk < t.units_per_row);  // no empty chunk
  CHECK(t.blocks == 3 * t.chunks_per_row);
}

TEST_CASE("rows tiling: a strided row is walked element by element", "[heuristics][rows_tiling]") {
  const RowTiling t = gather_tiling(rows({4, 50}, 3), 4);
  CHECK(t.vec == 1);
  CHECK(t.units_per_row == 51);
}

TEST_CASE("rows tiling: every unit of every row in one block", "[heuristics][rows_tiling]") {
  for (const int bytes : {1, 2, 4, 8, 16})
    for (const int64_t width : {1, 7, 63, 64, 65, 1000, 4097, 100003})
      for (const int64_t nrows : {1, 5, 129}) {
        CAPTURE(bytes, width, nrows);
        const RowTiling t = gather_tiling(rows({nrows, width}), bytes);
        const int64_t row_blocks = (t.num_rows + t.rows_per_block - 1) / t.rows_per_block;
        CHECK(row_blocks * t.rows_per_block >= nrows);
        CHECK(t.chunks_per_row * t.units_per_chunk >= t.units_per_row);
        CHECK(t.rows_per_block >= 1);
        CHECK(t.rows_per_block <= GatherRowsTraits::kThreads);
        CHECK(t.blocks == row_blocks * t.chunks_per_row);
      }
}
