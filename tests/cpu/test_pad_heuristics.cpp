// The row kernels' run-time choices: which pad forwards take the mirror walk
// (kernels/common/gather_rows_heuristics.h), pad backward's pass structure
// (kernels/pad/pad_backward_heuristics.h), and which pads run in row tiles
// (kernels/pad/pad_tiles_heuristics.h). No GPU.
#include <algorithm>
#include <type_traits>
#include <catch2/catch.hpp>
#include <vector>

#include "common/gather_rows_heuristics.h"
#include "pad/pad_backward_heuristics.h"
#include "pad/pad_tiles_heuristics.h"

using baracuda::kernels::IndexMap;
using baracuda::kernels::RowsProblem;

namespace {

// A pad of x (extents `in`) by pads lo and hi: the forward's problem (out
// padded), contiguous on both sides.
RowsProblem pad_forward(std::vector<int64_t> in, std::vector<int64_t> lo, std::vector<int64_t> hi, IndexMap map) {
  RowsProblem p;
  p.rank = static_cast<int32_t>(in.size());
  p.map = map;
  int64_t out_stride = 1, in_stride = 1;
  for (int d = p.rank - 1; d >= 0; --d) {
    p.in_extent[d] = in[d];
    p.out_extent[d] = lo[d] + in[d] + hi[d];
    p.pad_low[d] = lo[d];
    p.in_stride[d] = in_stride;
    p.out_stride[d] = out_stride;
    in_stride *= p.in_extent[d];
    out_stride *= p.out_extent[d];
  }
  return p;
}

// The backward of the same pad: out is dx (x's extents), in is dy (padded).
RowsProblem pad_backward(std::vector<int64_t> x, std::vector<int64_t> lo, std::vector<int64_t> hi, IndexMap map) {
  const RowsProblem f = pad_forward(x, lo, hi, map);
  RowsProblem p = f;
  for (int d = 0; d < f.rank; ++d) {
    p.out_extent[d] = f.in_extent[d], p.in_extent[d] = f.out_extent[d];
    p.out_stride[d] = f.in_stride[d], p.in_stride[d] = f.out_stride[d];
  }
  return p;
}

// p with 16-byte aligned pointers (the heuristics read only their alignment).
RowsProblem with_aligned_buffers(RowsProblem p) {
  alignas(16) static unsigned char out[64], in[64];
  p.out = out;
  p.in = in;
  return p;
}

}  // namespace

TEST_CASE("gather heuristics: the mirror walk takes one padded outer axis of at most two copies",
          "[heuristics][pad]") {
  using baracuda::kernels::mirror_walk_axis;
  CHECK(mirror_walk_axis<IndexMap::Reflect>(pad_forward({4, 6, 32}, {0, 2, 1}, {0, 2, 7}, IndexMap::Reflect), 2) == 1);
  CHECK(mirror_walk_axis<IndexMap::Circular>(pad_forward({4, 6, 32}, {0, 2, 0}, {0, 2, 0}, IndexMap::Circular), 4) ==
        1);
  // No padded outer axis, or two.
  CHECK(mirror_walk_axis<IndexMap::Reflect>(pad_forward({4, 6, 32}, {0, 0, 2}, {0, 0, 2}, IndexMap::Reflect), 2) == -1);
  CHECK(mirror_walk_axis<IndexMap::Reflect>(pad_forward({4, 6, 32}, {1, 2, 0}, {0, 2, 0}, IndexMap::Reflect), 2) == -1);
  // An index copied over twice: replicate's edge, circular's pads as long as the axis.
  CHECK(mirror_walk_axis<IndexMap::Replicate>(pad_forward({4, 6, 32}, {0, 3, 0}, {0, 0, 0}, IndexMap::Replicate), 2) ==
        -1);
  CHECK(mirror_walk_axis<IndexMap::Circular>(pad_forward({4, 6, 32}, {0, 6, 0}, {0, 6, 0}, IndexMap::Circular), 2) ==
        -1);
  // Copies of a row a stride apart that is not whole 16-byte vectors.
  RowsProblem p = pad_forward({4, 6, 33}, {0, 2, 0}, {0, 2, 0}, IndexMap::Reflect);
  CHECK(mirror_walk_axis<IndexMap::Reflect>(p, 2) == -1);
  CHECK(mirror_walk_axis<IndexMap::Reflect>(p, 16) == 1);
}

TEST_CASE("pad backward heuristics: a row's sources by one other copy along a single padded axis",
          "[heuristics][pad]") {
  using baracuda::kernels::pad_backward_pair_axis;
  CHECK(pad_backward_pair_axis<IndexMap::Reflect>(pad_backward({4, 6, 32}, {0, 2, 1}, {0, 2, 1}, IndexMap::Reflect)) ==
        1);
  CHECK(pad_backward_pair_axis<IndexMap::Reflect>(pad_backward({4, 6, 32}, {1, 2, 0}, {0, 0, 0}, IndexMap::Reflect)) ==
        -1);
  CHECK(pad_backward_pair_axis<IndexMap::Replicate>(
            pad_backward({4, 6, 32}, {0, 3, 0}, {0, 0, 0}, IndexMap::Replicate)) == -1);
  CHECK(pad_backward_pair_axis<IndexMap::Circular>(pad_backward({4, 6, 32}, {0, 0, 3}, {0, 0, 3}, IndexMap::Circular)) ==
        -1);
}

TEST_CASE("pad backward heuristics: outer source rows, saturating past the listed maximum", "[heuristics][pad]") {
  using baracuda::kernels::kMaxSourceRows;
  using baracuda::kernels::pad_backward_max_sources;
  CHECK(pad_backward_max_sources<IndexMap::Reflect>(pad_backward({4, 32}, {2, 0}, {2, 0}, IndexMap::Reflect)) == 3);
  // Pads on both sides of a longer axis never meet: two sources at most.
  CHECK(pad_backward_max_sources<IndexMap::Reflect>(pad_backward({6, 32}, {2, 0}, {2, 0}, IndexMap::Reflect)) == 2);
  CHECK(pad_backward_max_sources<IndexMap::Circular>(pad_backward({2048, 32}, {3, 0}, {2, 0}, IndexMap::Circular)) ==
        2);
  CHECK(pad_backward_max_sources<IndexMap::Circular>(pad_backward({6, 32}, {2, 0}, {0, 0}, IndexMap::Circular)) == 2);
  CHECK(pad_backward_max_sources<IndexMap::Replicate>(pad_backward({6, 32}, {5, 0}, {0, 0}, IndexMap::Replicate)) == 6);
  // 3 x 3 sources over two axes: past the list, but not past a larger cap (the row tiles' slots).
  CHECK(pad_backward_max_sources<IndexMap::Reflect>(pad_backward({3, 4, 32}, {1, 2, 0}, {1, 2, 0}, IndexMap::Reflect)) ==
        kMaxSourceRows + 1);
  CHECK(pad_backward_max_sources<IndexMap::Reflect>(pad_backward({3, 4, 32}, {1, 2, 0}, {1, 2, 0}, IndexMap::Reflect),
                                                    9) == 9);
  CHECK(pad_backward_max_sources<IndexMap::Reflect>(pad_backward({5, 6, 32}, {1, 2, 0}, {1, 2, 0}, IndexMap::Reflect)) ==
        4);
  CHECK(pad_backward_max_sources<IndexMap::Replicate>(
            pad_backward({5, 6, 32}, {4, 20, 0}, {1, 2, 0}, IndexMap::Replicate), 1000) == 5 * 21);
  CHECK(pad_backward_max_sources<IndexMap::Reflect>(pad_backward({5, 6, 32}, {0, 0, 3}, {0, 0, 3}, IndexMap::Reflect)) ==
        1);
}

TEST_CASE("copy counts: max_copies is the largest copy_count of the axis", "[heuristics][pad]") {
  using baracuda::kernels::copy_count;
  using baracuda::kernels::max_copies;
  auto check = [](auto mode_tag) {
    constexpr IndexMap M = decltype(mode_tag)::value;
    for (int64_t n = 1; n <= 9; ++n)
      for (int64_t lo = 0; lo <= (M == IndexMap::Replicate ? 12 : n - (M == IndexMap::Reflect)); ++lo)
        for (int64_t hi = 0; hi <= (M == IndexMap::Replicate ? 12 : n - (M == IndexMap::Reflect)); ++hi) {
          int64_t most = 0;
          for (int64_t i = 0; i < n; ++i) most = std::max(most, copy_count<M>(i, lo, n, n + lo + hi));
          INFO("n " << n << " lo " << lo << " hi " << hi);
          CHECK(max_copies<M>(lo, n, hi) == most);
        }
  };
  check(std::integral_constant<IndexMap, IndexMap::Reflect>{});
  check(std::integral_constant<IndexMap, IndexMap::Replicate>{});
  check(std::integral_constant<IndexMap, IndexMap::Circular>{});
}

TEST_CASE("pad backward heuristics: long unit-stride rows of sums as vectors, uniform phases found once",
          "[heuristics][pad]") {
  using baracuda::kernels::sum_rows_as_vectors;
  using baracuda::kernels::uniform_row_phases;
  const RowsProblem p = pad_backward({6, 1024}, {2, 0}, {2, 0}, IndexMap::Reflect);
  CHECK(sum_rows_as_vectors(p, 2, 3));  // 2048-byte rows
  CHECK_FALSE(sum_rows_as_vectors(p, 1, 3));
  CHECK_FALSE(sum_rows_as_vectors(p, 2, baracuda::kernels::kMaxSourceRows + 1));
  RowsProblem strided = p;
  strided.in_stride[1] = 2;
  CHECK_FALSE(sum_rows_as_vectors(strided, 2, 3));
  CHECK(uniform_row_phases(p, 2));
  const RowsProblem odd = pad_backward({6, 1023}, {2, 0}, {2, 0}, IndexMap::Reflect);
  CHECK_FALSE(uniform_row_phases(odd, 2));
  CHECK(uniform_row_phases(odd, 16));
}

TEST_CASE("pad backward heuristics: one launch up to kOneLaunchBytes of dx and dy together", "[heuristics][pad]") {
  using baracuda::kernels::pad_backward_one_launch;
  using baracuda::kernels::PadBackwardTraits;
  static_assert(PadBackwardTraits::kOneLaunchBytes == 256 * 1024, "the cases below sit at 256 KiB");
  // Python's pad_backward(dy [4,108] f32, (3,5), reflect).
  CHECK(pad_backward_one_launch(pad_backward({4, 100}, {0, 3}, {0, 5}, IndexMap::Reflect), 4));
  // 32768 + 32768 f32 elements: 256 KiB exactly; one more dy element is over.
  CHECK(pad_backward_one_launch(pad_backward({32768}, {0}, {0}, IndexMap::Replicate), 4));
  CHECK_FALSE(pad_backward_one_launch(pad_backward({32768}, {0}, {1}, IndexMap::Replicate), 4));
  CHECK(pad_backward_one_launch(pad_backward({32768}, {0}, {1}, IndexMap::Replicate), 2));
  CHECK_FALSE(pad_backward_one_launch(pad_backward({32768}, {0}, {0}, IndexMap::Replicate), 8));
  // Over on dx alone, and on dy alone (wide pads of a small dx).
  CHECK_FALSE(pad_backward_one_launch(pad_backward({131073}, {0}, {0}, IndexMap::Circular), 2));
  CHECK_FALSE(pad_backward_one_launch(pad_backward({4, 16}, {40000, 0}, {0, 0}, IndexMap::Replicate), 4));
  // Extent products past int64 (2^80 dx elements would wrap to 0) and pads
  // near 2^62 are over, never wrapped under.
  CHECK_FALSE(pad_backward_one_launch(pad_backward({int64_t{1} << 40, int64_t{1} << 40}, {0, 0}, {0, 0},
                                                   IndexMap::Reflect),
                                      4));
  CHECK_FALSE(pad_backward_one_launch(pad_backward({1, 3}, {int64_t{1} << 61, 0}, {int64_t{1} << 61, 0},
                                                   IndexMap::Replicate),
                                      4));
  // A dx with no cells: nothing to launch for, one pass at most.
  CHECK(pad_backward_one_launch(pad_backward({0, 5}, {0, 2}, {0, 2}, IndexMap::Reflect), 4));
}

TEST_CASE("row tiles heuristics: short rows of a dense output, whole rows a tile", "[heuristics][pad]") {
  using namespace baracuda::kernels;
  alignas(16) static unsigned char out[64], in[64];
  auto at = [&](RowsProblem p, size_t out_offset = 0, size_t in_offset = 0) {
    p.out = out + out_offset;
    p.in = in + in_offset;
    return p;
  };
  RowTiles t;
  SumTiles st;
  constexpr int64_t kTile = PadTilesTraits::kTileBytes;
  constexpr int64_t kSumTile = PadTilesTraits::kSumTileBytes;
  auto slots_for = [](int64_t rows) { return rows + rows * PadTilesTraits::kSumSpareSlotsPercent / 100; };
  // The grid's rank-4 forward as the plan simplifies it, f32 rows of 514 from rows of 512.
  REQUIRE(pad_forward_takes_tiles(at(pad_forward({512, 512, 512}, {0, 1, 1}, {0, 1, 1}, IndexMap::Reflect)), 4, t));
  const int64_t r4_rows = kTile / (514 * 4);
  CHECK(t.rows == 512 * 514);
  CHECK(t.rows_per_block == r4_rows);
  CHECK(t.blocks == (t.rows + r4_rows - 1) / r4_rows);
  CHECK(t.window_begin == 0);
  CHECK(t.window == 512);
  CHECK(t.slot_vectors == 512 * 4 / 16 + 1);
  CHECK(t.smem_bytes == r4_rows * (129 * 16 + 16));
  CHECK(t.source_span == int64_t{512} * 512 * 512);  // whole 16-byte vectors may be read anywhere inside it
  // Its backward: dx rows of 512 a tile of kSumTileBytes, dy rows of 514 staged, a
  // slot for each and the spare ones (dx rows 1 and 510 have two sources).
  const RowsProblem r4 = pad_backward({512, 512, 512}, {0, 1, 1}, {0, 1, 1}, IndexMap::Reflect);
  REQUIRE(pad_backward_takes_tiles(at(r4), 4, 2, 2, st));
  CHECK(st.t.rows_per_block == kSumTile / (512 * 4));
  CHECK(st.slots == std::max<int64_t>(2, slots_for(kSumTile / (512 * 4))));
  CHECK(st.t.window == 514);
  CHECK(st.t.slot_vectors == (514 * 4 + 15) / 16 + 2);  // a vector to spare for the 32-byte phase
  CHECK(st.t.smem_bytes == row_tile_smem_bytes(st.slots, st.t.slot_vectors, 0));
  // Rows with more sources than the spare slots: a slot for each source of the row with the most.
  REQUIRE(pad_backward_takes_tiles(at(r4), 4, 20, 2, st));
  CHECK(st.t.rows_per_block == kSumTile / (512 * 4));
  CHECK(st.slots == 20);
  // bf16 rank 5: forward rows of 132, backward rows of 128.
  REQUIRE(pad_forward_takes_tiles(at(pad_forward({128, 64, 64, 128}, {0, 2, 2, 2}, {0, 2, 2, 2}, IndexMap::Circular)),
                                  2, t));
  CHECK(t.rows_per_block == kTile / 264);
  REQUIRE(pad_backward_takes_tiles(
      at(pad_backward({128, 64, 64, 128}, {0, 2, 2, 2}, {0, 2, 2, 2}, IndexMap::Circular)), 2, 4, 4, st));
  // dy rows of 264 bytes take slots of 19 vectors (two to spare: the 16-byte
  // phase and the 32-byte one): a tile is halved until its slots fit.
  int64_t r5_rows = kSumTile / 256;
  while (row_tile_smem_bytes(slots_for(r5_rows), 19, 0) > kMaxTileSmemBytes) r5_rows /= 2;
  CHECK(st.t.slot_vectors == 19);
  CHECK(st.t.rows_per_block == r5_rows);
  CHECK(st.slots == slots_for(r5_rows));
  // Rows up to PadTilesTraits::kMaxRowBytes (forward) and kMaxSumRowBytes (backward), output and staged rows alike.
  const int64_t row = PadTilesTraits::kMaxRowBytes / 4, sum_row = PadTilesTraits::kMaxSumRowBytes / 4;
  CHECK(pad_forward_takes_tiles(at(pad_forward({4, row - 2}, {0, 1}, {0, 1}, IndexMap::Replicate)), 4, t));
  CHECK(t.rows_per_block == std::max<int64_t>(1, PadTilesTraits::kLongTileBytes / PadTilesTraits::kMaxRowBytes));
  // Rows up to kLongRowBytes in tiles of kTileBytes, longer ones in tiles of kLongTileBytes.
  const int64_t short_row = PadTilesTraits::kLongRowBytes / 2;
  REQUIRE(pad_forward_takes_tiles(at(pad_forward({64, short_row - 4}, {0, 2}, {0, 2}, IndexMap::Reflect)), 2, t));
  CHECK(t.rows_per_block == std::max<int64_t>(1, kTile / PadTilesTraits::kLongRowBytes));
  REQUIRE(pad_forward_takes_tiles(at(pad_forward({64, short_row - 3}, {0, 2}, {0, 2}, IndexMap::Reflect)), 2, t));
  CHECK(t.rows_per_block == std::max<int64_t>(1, PadTilesTraits::kLongTileBytes / (PadTilesTraits::kLongRowBytes + 2)));
  CHECK_FALSE(pad_forward_takes_tiles(at(pad_forward({4, row - 1}, {0, 1}, {0, 1}, IndexMap::Replicate)), 4, t));
  CHECK(pad_backward_takes_tiles(at(pad_backward({4, 100}, {0, 1}, {0, sum_row - 101}, IndexMap::Replicate)), 4, 1,
                                 2, st));
  CHECK_FALSE(
      pad_backward_takes_tiles(at(pad_backward({4, 100}, {0, 1}, {0, sum_row - 100}, IndexMap::Replicate)), 4, 1, 2, st));
  // Longer rows where the columns of several inner sources span
  // kSumBandBytes: the grid's rows of 8192 padded by 100 and 300, a slot a
  // row and no spare one (an f32 tile's one dy row fits beside nothing else).
  const RowsProblem band = at(pad_backward({16384, 8192}, {0, 100}, {0, 300}, IndexMap::Reflect));
  for (int bytes : {2, 4}) {
    REQUIRE(pad_backward_takes_tiles(band, bytes, 1, PadTilesTraits::kSumBandBytes / bytes, st));
    CHECK(st.t.rows_per_block == std::max<int64_t>(1, kSumTile / (8192 * bytes)));
    CHECK(st.slots == st.t.rows_per_block);
    CHECK_FALSE(pad_backward_takes_tiles(band, bytes, 1, PadTilesTraits::kSumBandBytes / bytes - 1, st));
  }
  const int64_t band_row = PadTilesTraits::kMaxBandSumRowBytes / 4;
  CHECK(pad_backward_takes_tiles(at(pad_backward({4, band_row - 400}, {0, 100}, {0, 300}, IndexMap::Circular)), 4, 1,
                                 400, st));
  CHECK_FALSE(pad_backward_takes_tiles(at(pad_backward({4, band_row - 399}, {0, 100}, {0, 300}, IndexMap::Circular)),
                                       4, 1, 400, st));
  // Constant pads that crop stage only the columns the output keeps.
  REQUIRE(pad_forward_takes_tiles(at(pad_forward({4, 100}, {0, -10}, {0, -20}, IndexMap::Constant)), 2, t));
  CHECK(t.window_begin == 10);
  CHECK(t.window == 70);
  // Rows of 2 elements: the rows-per-tile cap.
  REQUIRE(pad_forward_takes_tiles(at(pad_forward({100000, 1}, {0, 0}, {0, 1}, IndexMap::Constant)), 2, t));
  CHECK(t.rows_per_block == std::min<int64_t>(kMaxTileRows, kTile / 4));
  CHECK(t.smem_bytes <= kMaxTileSmemBytes);
  // Short dx rows of long dy rows: the tile is halved until its slots fit the shared memory.
  REQUIRE(pad_backward_takes_tiles(at(pad_backward({64, 10}, {0, 9}, {0, 981}, IndexMap::Replicate)), 4, 1, 2, st));
  CHECK(st.t.rows_per_block < kSumTile / 40);
  CHECK(st.t.smem_bytes <= kMaxTileSmemBytes);
  CHECK(row_tile_smem_bytes(slots_for(2 * st.t.rows_per_block), st.t.slot_vectors, 0) > kMaxTileSmemBytes);
  // At most a row a thread; a row with more sources than fit a block's slots: not in tiles.
  REQUIRE(pad_backward_takes_tiles(at(pad_backward({100000, 1}, {0, 0}, {0, 1}, IndexMap::Replicate)), 4, 1, 1, st));
  CHECK(st.t.rows_per_block == PadTilesTraits::kThreads);
  const RowsProblem many = at(pad_backward({64, 10}, {0, 9}, {0, 981}, IndexMap::Replicate));
  const int64_t most = kMaxTileSmemBytes / row_tile_smem_bytes(1, (1000 * 4 + 15) / 16 + 2, 0);
  REQUIRE(pad_backward_takes_tiles(many, 4, most, 2, st));
  CHECK(st.slots == most);
  CHECK_FALSE(pad_backward_takes_tiles(many, 4, most + 1, 2, st));
  // 2^31 rows or more: their coordinates do not fit the kernels' 32-bit divisions.
  CHECK(pad_forward_takes_tiles(at(pad_forward({32767, 65536, 4}, {0, 0, 1}, {0, 0, 1}, IndexMap::Reflect)), 4, t));
  CHECK_FALSE(pad_forward_takes_tiles(at(pad_forward({32768, 65536, 4}, {0, 0, 1}, {0, 0, 1}, IndexMap::Reflect)), 4, t));
  // The backward lists a tile's rows in 32-bit arithmetic: outer extents (dy's too) and pads under 2^29.
  constexpr int64_t kOuter = int64_t{1} << 29;
  CHECK(pad_backward_takes_tiles(at(pad_backward({kOuter - 3, 4}, {1, 0}, {1, 0}, IndexMap::Reflect)), 4, 2, 2, st));
  CHECK_FALSE(pad_backward_takes_tiles(at(pad_backward({kOuter - 2, 4}, {1, 0}, {1, 0}, IndexMap::Reflect)), 4, 2, 2, st));
  CHECK(pad_backward_takes_tiles(at(pad_backward({4, 4}, {kOuter - 1, 0}, {1 - kOuter, 0}, IndexMap::Circular)), 4, 2, 2,
                                 st));
  CHECK_FALSE(
      pad_backward_takes_tiles(at(pad_backward({4, 4}, {kOuter, 0}, {-kOuter, 0}, IndexMap::Circular)), 4, 2, 2, st));
  // A gap between output rows, input rows of stride 2, an output or input off its element alignment.
  RowsProblem gapped = at(pad_forward({6, 5, 32}, {1, 2, 0}, {2, 1, 0}, IndexMap::Reflect));
  gapped.out_stride[0] += 4;
  CHECK_FALSE(pad_forward_takes_tiles(gapped, 4, t));
  RowsProblem strided_in = at(pad_forward({6, 5, 32}, {1, 2, 0}, {2, 1, 0}, IndexMap::Reflect));
  strided_in.in_stride[2] = 2;
  CHECK_FALSE(pad_forward_takes_tiles(strided_in, 4, t));
  CHECK(pad_forward_takes_tiles(at(pad_forward({6, 32}, {1, 3}, {0, 3}, IndexMap::Reflect), 2, 6), 2, t));
  CHECK_FALSE(pad_forward_takes_tiles(at(pad_forward({6, 32}, {1, 3}, {0, 3}, IndexMap::Reflect), 1), 2, t));
  CHECK_FALSE(pad_forward_takes_tiles(at(pad_forward({6, 32}, {1, 3}, {0, 3}, IndexMap::Reflect), 0, 3), 4, t));
}

TEST_CASE("slot tiles heuristics: short rows, a slot an output row", "[heuristics][pad]") {
  using namespace baracuda::kernels;
  alignas(16) static unsigned char out[64], in[64];
  auto at = [&](RowsProblem p) {
    p.out = out;
    p.in = in;
    return p;
  };
  PadSlotTiles f;
  RowTiles t;
  // The grid's bf16 rank 5 as the plan simplifies it: rows of 132 from rows of 128, pads of 2.
  const RowsProblem r5 = at(pad_forward({128, 64, 64, 128}, {0, 2, 2, 2}, {0, 2, 2, 2}, IndexMap::Reflect));
  REQUIRE(pad_forward_takes_slot_tiles(r5, 2, f));
  CHECK(f.t.rows_per_block == PadTilesTraits::kSlotTileBytes / 264);
  CHECK(f.t.rows == int64_t{128} * 68 * 68);
  CHECK(f.lead == 8);         // the 2 low pad columns in a vector ahead of the staged ones
  // Column 0 at element 6 to 13, 132 columns and 7 more: 19 vectors at least; 25 puts a row's
  // end and the next row's start in consecutive banks (25 * 16 - 264 = 136, 8 past 128).
  CHECK(f.slot_stride == 25);
  CHECK(f.pad_columns == 4);
  CHECK(f.interior_begin == 2);
  CHECK(f.interior_end == 130);
  CHECK(f.overhang == 7);  // rows of 264 bytes end off the 16-byte grid: the next row's first 7 columns
  CHECK(f.t.slot_vectors == 17);
  CHECK(f.t.smem_bytes >= f.t.rows_per_block * (25 * 16 + 16));
  CHECK(f.t.smem_bytes <= kMaxTileSmemBytes);
  // f32 rows of 134 from rows of 127 (pads 3 and 4) and an outer pad; rows of 514 are the row tiles'.
  REQUIRE(pad_forward_takes_slot_tiles(at(pad_forward({4, 32, 4096, 127}, {0, 1, 0, 3}, {0, 0, 0, 4}, IndexMap::Circular)),
                                       4, f));
  CHECK(f.pad_columns == 7);
  CHECK(f.t.rows_per_block == PadTilesTraits::kSlotTileBytes / (134 * 4));
  // 16-bit rows of 268 bytes are back at their 16-byte phase every 4 rows: tiles of a multiple of 4 rows,
  // so that no output vector straddles two tiles.
  REQUIRE(pad_forward_takes_slot_tiles(at(pad_forward({4, 32, 4096, 127}, {0, 1, 0, 3}, {0, 0, 0, 4}, IndexMap::Reflect)),
                                       2, f));
  CHECK(f.t.rows_per_block == PadTilesTraits::kSlotTileBytes / 268 / 4 * 4);
  CHECK(f.t.rows_per_block * 268 % 16 == 0);
  const RowsProblem r4 = at(pad_forward({512, 512, 512}, {0, 1, 1}, {0, 1, 1}, IndexMap::Reflect));
  CHECK_FALSE(pad_forward_takes_slot_tiles(r4, 4, f));
  CHECK(pad_forward_takes_tiles(r4, 4, t));
  CHECK(pad_forward_takes_slot_tiles(r4, 2, f) == (514 * 2 <= PadTilesTraits::kMaxSlotRowBytes));
  // f32 rows of 528 bytes into an aligned output end on the 16-byte grid: no vector crosses a row end,
  // no overhang; from an output 8 bytes off the grid every row end is off it.
  REQUIRE(pad_forward_takes_slot_tiles(r5, 4, f));
  CHECK(f.overhang == 0);
  RowsProblem r5_off = r5;
  r5_off.out = out + 8;
  REQUIRE(pad_forward_takes_slot_tiles(r5_off, 4, f));
  CHECK(f.overhang == 3);
  // Widths other than 2 and 4 bytes, rows narrower than a vector, and crops past the kernel's 32-bit columns:
  // not in slot tiles.
  CHECK_FALSE(pad_forward_takes_slot_tiles(r5, 1, f));
  CHECK_FALSE(pad_forward_takes_slot_tiles(r5, 8, f));
  CHECK(pad_forward_takes_slot_tiles(r5, 4, f));
  CHECK_FALSE(pad_forward_takes_slot_tiles(at(pad_forward({100, 6}, {0, 1}, {0, 0}, IndexMap::Replicate)), 2, f));
  CHECK(pad_forward_takes_slot_tiles(at(pad_forward({100, 7}, {0, 1}, {0, 0}, IndexMap::Replicate)), 2, f));
  CHECK(pad_forward_takes_slot_tiles(at(pad_forward({2, 1000}, {0, -900}, {0, 0}, IndexMap::Constant)), 4, f));
  CHECK(f.t.window_begin == 900);
  CHECK(f.lead == 0);
  CHECK_FALSE(pad_forward_takes_slot_tiles(
      at(pad_forward({2, kMaxTileInnerIndex + 1}, {0, -kMaxTileInnerIndex}, {0, 0}, IndexMap::Constant)), 4, f));
  // The set-up's 32-bit arithmetic: inputs of 2^31 bytes and more, and outer extents or pads of 2^30 and more,
  // take the row tiles.
  const RowsProblem big = at(pad_forward({int64_t{1} << 23, 64}, {1, 2}, {1, 2}, IndexMap::Reflect));  // 2 GiB of f32
  CHECK(slot_tiles_index_in_32_bits(big, 2));
  CHECK_FALSE(slot_tiles_index_in_32_bits(big, 4));
  CHECK_FALSE(pad_forward_takes_slot_tiles(big, 4, f));
  CHECK(pad_forward_takes_tiles(big, 4, t));
  CHECK(pad_forward_takes_slot_tiles(big, 2, f));
  CHECK_FALSE(slot_tiles_index_in_32_bits(at(pad_forward({2, 64}, {int64_t{1} << 30, 1}, {0, 1}, IndexMap::Constant)), 2));
  CHECK(slot_tiles_index_in_32_bits(at(pad_forward({2, 64}, {(int64_t{1} << 30) - 3, 1}, {0, 1}, IndexMap::Constant)), 2));
}

TEST_CASE("slot tiles: strides that keep a row end's shared loads in consecutive banks", "[heuristics][pad]") {
  using baracuda::kernels::bank_aligned_slot_stride;
  for (int64_t row_bytes = 16; row_bytes <= 1040; row_bytes += 2)
    for (int32_t least = static_cast<int32_t>((row_bytes + 15) / 16); least < (row_bytes + 15) / 16 + 12; ++least) {
      const int32_t s = bank_aligned_slot_stride(least, row_bytes);
      INFO("row bytes " << row_bytes << ", least " << least);
      CHECK(s >= least);
      CHECK(s < least + 8);  // one in every 8 strides (128 bytes) qualifies
      CHECK(((s * 16 - row_bytes) % 128 + 128) % 128 < 16);
      for (int32_t t = least; t < s; ++t) CHECK(((t * 16 - row_bytes) % 128 + 128) % 128 >= 16);
    }
}

TEST_CASE("slot tiles: an output row at any phase, its staged window inside its slot", "[heuristics][pad]") {
  using namespace baracuda::kernels;
  // Every element width, pads low and high (crops too), and every 16-byte
  // phase of the window's first element: the row's columns [0, w), the next
  // row's first v - 1 after them and the staged copies lie inside the slot.
  int cases = 0;
  for (int bytes : {1, 2, 4, 8, 16}) {
    const int32_t v = 16 / bytes;
    for (int64_t n : {1, 2, 7, 8, 9, 31, 128, 129})
      for (int64_t lo = -n; lo <= 20; lo += lo < 3 ? 1 : 7)
        for (int64_t hi = -n; hi <= 20; hi += hi < 3 ? 1 : 7) {
          const int64_t w = n + lo + hi;
          if (w < 1) continue;
          RowsProblem p;
          p.rank = 1, p.in_extent[0] = n, p.pad_low[0] = lo, p.out_extent[0] = w;
          int64_t begin, window;
          pad_forward_window(p, begin, window);
          const int32_t lead = pad_slot_lead(lo, begin, v);
          // The slot tiles' slots: the row and the next row's first v - 1 columns.
          const int32_t stride = pad_slot_stride(lead, lo, begin, static_cast<int32_t>(w + v - 1), v);
          CHECK(lead % v == 0);
          for (int32_t ph = 0; ph < v; ++ph) {
            const int64_t origin = lead + ph - lo - begin;  // the slot element of column 0
            CHECK(origin >= 0);
            CHECK(origin + w + v - 1 <= int64_t{stride} * v);
            CHECK(lead + (ph + window + v - 1) / v * v <= int64_t{stride} * v);
            ++cases;
          }
        }
  }
  CHECK(cases > 1000);
}

TEST_CASE("row tiles: every output vector of a tile written once, inside a row or as an edge vector",
          "[heuristics][pad]") {
  using baracuda::kernels::edge_vector_start;
  using baracuda::kernels::edge_vectors_per_row;
  // Tiles of every small shape: vectors of 1 to 16 elements, rows narrower
  // and wider than a vector, interiors of any columns, rows 1 and 4 or rows
  // 0 and 3 all fill, the tile's rows in rounds of up to `round` rows (the
  // backward's rounds: a round's first row takes the vector across its start).
  int64_t tiles = 0;
  for (int32_t v = 1; v <= 16; v *= 2)
    for (int32_t width = 1; width <= 3 * v + 3; ++width)
      for (int32_t a = 0; a <= width; a += 1 + width / 5)
        for (int32_t b = a; b <= width; b += 1 + width / 5)
          for (int32_t first = 1 - v; first <= 0; first += (v + 2) / 3)
            for (int32_t trial = 0; trial < 6; ++trial) {
              const int32_t round = 1 + trial / 2, fills = trial % 2;
              const int32_t rows = 5, span = rows * width, count = (span - first + v - 1) / v;
              const auto fill_row = [fills](int32_t r) { return fills ? r == 0 || r == 3 : r == 1 || r == 4; };
              const int32_t per_row = edge_vectors_per_row(width, a, b, v);
              std::vector<int32_t> writes(static_cast<size_t>(count) * v, 0);  // per element of the vectors
              for (int32_t k = 0; k < count; ++k) {  // the vectors inside one row's columns
                const int32_t l0 = first + k * v;
                if (l0 < 0) continue;
                const int32_t r = l0 / width, c = l0 - r * width;
                if (c >= (fill_row(r) ? 0 : a) && c + v <= (fill_row(r) ? width : b))
                  for (int32_t e = 0; e < v; ++e) ++writes[static_cast<size_t>(k) * v + e];
              }
              for (int32_t r0 = 0; r0 < rows; r0 += round) {
                const int32_t r1 = std::min(rows, r0 + round);
                for (int32_t r = r0; r < r1; ++r)
                  for (int32_t q = 0; q < per_row + 2; ++q) {
                    const int32_t s = edge_vector_start(first, width, r, fill_row(r) ? 0 : a, fill_row(r) ? width : b,
                                                        v, q, r == r0);
                    if (s == INT32_MIN) continue;
                    REQUIRE(q < per_row);
                    REQUIRE((s - first) % v == 0);
                    for (int32_t e = 0; e < v; ++e) {  // the round's own cells
                      const int32_t l = s + e;
                      if (l >= 0 && l < span && l / width >= r0 && l / width < r1)
                        ++writes[static_cast<size_t>((s - first) / v) * v + e];
                    }
                  }
              }
              for (int32_t l = 0; l < span; ++l) REQUIRE(writes[static_cast<size_t>(l - first)] == 1);
              ++tiles;
            }
  CHECK(tiles > 1000);
}

TEST_CASE("slot tiles: shared memory padded to a number of blocks an SM", "[heuristics][pad]") {
  using namespace baracuda::kernels;
  // Shared memory an SM and reserved a block: sm_80, sm_86/89, sm_90.
  const int64_t devices[][2] = {{167936, 1024}, {102400, 1024}, {233472, 1024}};
  for (const auto &d : devices)
    for (int blocks = 0; blocks <= 12; ++blocks)
      for (uint32_t need : {1000u, 8000u, 19855u, 20339u, 30000u, 47000u}) {
        const uint32_t s = smem_for_blocks_per_sm(need, d[0], d[1], blocks);
        const int64_t fit = d[0] / (s + d[1]), fit_need = d[0] / (need + d[1]);
        CHECK(s >= need);
        CHECK(s <= std::max<uint32_t>(need, kMaxTileSmemBytes));
        if (blocks == 0 || fit_need <= blocks) CHECK(s == need);  // nothing to cap
        if (s > need) CHECK(fit == blocks);                      // padded: exactly `blocks` fit
        if (s == need && blocks > 0 && fit_need > blocks) CHECK(d[0] / (blocks + 1) - d[1] + 1 > kMaxTileSmemBytes);
      }
  // The H200's 6 blocks of the grid's 16-bit rank-5 tiles.
  CHECK(smem_for_blocks_per_sm(20339, 233472, 1024, 6) == 233472 / 7 - 1024 + 1);
}

TEST_CASE("row tiles heuristics: replicate's band weighed by its pad columns", "[heuristics][pad]") {
  using namespace baracuda::kernels;
  auto at = with_aligned_buffers;
  // Replicate sums every pad column into its two edge cells: its band weighs as its pad columns, wide pads too.
  const RowsProblem r35 = at(pad_backward({16384, 8192}, {0, 3}, {0, 5}, IndexMap::Replicate));
  CHECK(sum_band_columns<IndexMap::Replicate>(r35, 2) == 8);
  const RowsProblem wide = at(pad_backward({16384, 8192}, {0, 100}, {0, 300}, IndexMap::Replicate));
  CHECK(sum_band_columns<IndexMap::Replicate>(wide, 2) == 400);
  CHECK(sum_band_columns<IndexMap::Replicate>(at(pad_backward({16, 64}, {0, 1}, {0, 0}, IndexMap::Replicate)), 1) ==
        1);
  // Reflect and circular: the columns of several sources, as given.
  CHECK(sum_band_columns<IndexMap::Reflect>(at(pad_backward({16384, 8192}, {0, 3}, {0, 5}, IndexMap::Reflect)), 8) ==
        8);
  CHECK(sum_band_columns<IndexMap::Circular>(at(pad_backward({16384, 8192}, {0, 3}, {0, 5}, IndexMap::Circular)), 8) ==
        8);
  // 16-bit rows of 8192 padded by 3 and 5 then take tiles (a band of kSumBandBytes), by two columns they do not;
  // rows padded by 100 and 300 take them too.
  SumTiles st;
  CHECK(pad_backward_takes_tiles(r35, 2, 1, sum_band_columns<IndexMap::Replicate>(r35, 2), st));
  CHECK_FALSE(pad_backward_takes_tiles(r35, 2, 1, 2, st));
  for (int bytes : {2, 4}) CHECK(pad_backward_takes_tiles(wide, bytes, 1, sum_band_columns<IndexMap::Replicate>(wide, 2), st));
}

TEST_CASE("pad backward heuristics: tiles of whole planes read as one flat dy range", "[heuristics][pad]") {
  using namespace baracuda::kernels;
  auto at = with_aligned_buffers;
  SumTiles st;
  // The grid's rank-5 rows as the plan merges them: planes of 64 rows of 128, two a 16-bit tile, one an f32 one.
  for (IndexMap mode : {IndexMap::Reflect, IndexMap::Replicate, IndexMap::Circular})
    for (int bytes : {2, 4}) {
      const RowsProblem r5 = at(pad_backward({128, 64, 64, 128}, {0, 2, 2, 2}, {0, 2, 2, 2}, mode));
      REQUIRE(pad_backward_takes_tiles(r5, bytes, 4, 4, st));
      CHECK(st.t.rows_per_block % 64 == 0);
      CHECK(pad_backward_plane_rows(r5, bytes, st, mode == IndexMap::Replicate) == 64);
    }
  struct PlaneCase {
    std::vector<int64_t> x, lo, hi;
    IndexMap mode;
    int bytes;
    int64_t max_sources, band;
    int32_t plane_rows;
  };
  const PlaneCase cases[] = {
      // A plane axis without a pad: tiles anywhere along it, rows of any phase (the grid's odd rows of 127)...
      {{4, 32, 4096, 127}, {0, 1, 0, 3}, {0, 0, 0, 4}, IndexMap::Reflect, 2, 2, 7, 4096},
      {{8, 3000, 100}, {0, 0, 2}, {0, 0, 3}, IndexMap::Circular, 4, 1, 5, 3000},
      // ... but not rows narrower than a vector or longer than kMaxSumRowBytes.
      {{8, 3000, 3}, {0, 0, 2}, {0, 0, 2}, IndexMap::Circular, 4, 1, 4, 0},
      {{64, 16, 2048}, {0, 0, 100}, {0, 0, 300}, IndexMap::Reflect, 4, 1, 400, 0},
      // Whole planes of a padded axis need rows of whole vectors...
      {{128, 64, 64, 127}, {0, 2, 2, 2}, {0, 2, 2, 2}, IndexMap::Reflect, 2, 4, 4, 0},
      // ... tiles of whole planes (not planes of 3000 rows), at most 32 of them (not 64 planes of 4 rows).
      {{4, 3000, 64}, {0, 1, 2}, {0, 1, 2}, IndexMap::Circular, 4, 2, 4, 0},
      {{512, 4, 8}, {0, 1, 2}, {0, 1, 2}, IndexMap::Reflect, 4, 2, 4, 0},
  };
  for (const PlaneCase &c : cases) {
    const RowsProblem p = at(pad_backward(c.x, c.lo, c.hi, c.mode));
    INFO("rows of " << c.x.back() << ", planes of " << c.x[c.x.size() - 2]);
    REQUIRE(pad_backward_takes_tiles(p, c.bytes, c.max_sources, c.band, st));
    CHECK(pad_backward_plane_rows(p, c.bytes, st, false) == c.plane_rows);
  }
  // ... from a 16-byte boundary.
  RowsProblem shifted = at(pad_backward({128, 64, 64, 128}, {0, 2, 2, 2}, {0, 2, 2, 2}, IndexMap::Reflect));
  REQUIRE(pad_backward_takes_tiles(shifted, 2, 4, 4, st));
  shifted.out = static_cast<char *>(shifted.out) + 2;
  CHECK(pad_backward_plane_rows(shifted, 2, st, false) == 0);
  // Replicate's edges of kSumLateEdgeCopies copies or more keep the slots (their sums run beside the vectors).
  const int64_t wide = PadTilesTraits::kSumLateEdgeCopies;
  const RowsProblem late = at(pad_backward({64, 8, 64}, {0, 1, wide}, {0, 1, 0}, IndexMap::Replicate));
  REQUIRE(pad_backward_takes_tiles(late, 2, 2, wide, st));
  CHECK(pad_backward_plane_rows(late, 2, st, true) == 0);
  CHECK(pad_backward_plane_rows(late, 2, st, false) == 8);
}
