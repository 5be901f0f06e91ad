// ALiBi's tiling (kernels/alibi/alibi_heuristics.h): every tile fits a
// block's vectors, the tiles cover each (b, h) exactly, one workspace slot per
// tile, the grid cap, the reduction's runs, and the tiles the plan names. No GPU.
#include <catch2/catch.hpp>
#include <algorithm>
#include <string>
#include <vector>

#include "alibi/alibi_kernels.h"
#include "cpu_helpers.hpp"

using baracuda::kernels::alibi_backward_threads;
using baracuda::kernels::alibi_backward_workspace;
using baracuda::kernels::alibi_grid_blocks;
using baracuda::kernels::alibi_indices_fit_32_bits;
using baracuda::kernels::alibi_reduce_run;
using baracuda::kernels::alibi_tile_count;
using baracuda::kernels::alibi_tile_elems;
using baracuda::kernels::alibi_tiling;
using baracuda::kernels::AlibiTiling;
using baracuda::kernels::AlibiTraits;

TEST_CASE("alibi tiling: tiles fit a block and cover every (i, j) of a head once", "[heuristics][alibi]") {
  for (int bytes : {2, 4, 8})
    for (int64_t q : {1, 2, 3, 7, 64, 2048, 5000})
      for (int64_t k : {1, 2, 5, 8, 127, 2048, 4097, 32768, 100003}) {
        const AlibiTiling t = alibi_tiling(q, k, bytes);
        INFO("bytes " << bytes << " Q " << q << " K " << k);
        CHECK(t.vector_elems == 16 / bytes);
        CHECK(t.chunk_cols % t.vector_elems == 0);
        CHECK(t.tile_rows >= 1);
        CHECK(t.tile_rows <= q);
        // Vectors of a tile: at most kTileVectors.
        CHECK(t.tile_rows * (t.chunk_cols / t.vector_elems) <= int64_t{AlibiTraits::kTileVectors});
        // Column chunks cover K with no chunk wholly past it; row tiles likewise Q.
        CHECK(t.col_tiles * t.chunk_cols >= k);
        CHECK((t.col_tiles - 1) * t.chunk_cols < k);
        const int64_t row_tiles = t.tiles_per_head / t.col_tiles;
        CHECK(row_tiles * t.col_tiles == t.tiles_per_head);
        CHECK(row_tiles * t.tile_rows >= q);
        CHECK((row_tiles - 1) * t.tile_rows < q);
      }
}

TEST_CASE("alibi blocks: every block shape shares a tile's vectors evenly in whole warps", "[heuristics][alibi]") {
  // A tile is the same kTileVectors whatever the block, so tiles and
  // workspace do not depend on the block shape a direction and dtype take.
  for (int bytes : {2, 4, 8})
    for (int threads : {AlibiTraits::kThreads, alibi_backward_threads(bytes)}) {
      INFO("bytes " << bytes << " threads " << threads);
      CHECK(AlibiTraits::kTileVectors % threads == 0);
      CHECK(threads % 64 == 0);  // at least two warps, a power of two of them
      CHECK(((threads / 32) & (threads / 32 - 1)) == 0);
    }
}

TEST_CASE("alibi tiling: short rows share a tile, long ones are cut into many", "[heuristics][alibi]") {
  // B=4 H=32 Q=K=2048 f32: two rows of 2048 per tile of 4096 elements.
  AlibiTiling t = alibi_tiling(2048, 2048, 4);
  CHECK(t.chunk_cols == 2048);
  CHECK(t.tile_rows == 2);
  CHECK(t.tiles_per_head == 1024);
  // A decoding step, Q=1 K=32768: bf16 takes 4 tiles per head, f32 8, so 32
  // heads spread over 128 and 256 blocks.
  t = alibi_tiling(1, 32768, 2);
  CHECK(t.chunk_cols == alibi_tile_elems(2));
  CHECK(t.tiles_per_head == 4);
  CHECK(alibi_tiling(1, 32768, 4).tiles_per_head == 8);
  // K=1: a column of rows, one vector each.
  t = alibi_tiling(5000, 1, 8);
  CHECK(t.chunk_cols == 2);
  CHECK(t.tile_rows == alibi_tile_elems(8) / 2);
}

TEST_CASE("alibi backward: one partial-sum slot per tile, none for an empty problem", "[heuristics][alibi]") {
  CHECK(alibi_tile_count(4, 32, 2048, 2048, 4) == 4 * 32 * 1024);
  CHECK(alibi_backward_workspace(4, 32, 2048, 2048, 4) == 4 * 32 * 1024 * 4);
  CHECK(alibi_backward_workspace(4, 32, 2048, 2048, 2) == 4 * 32 * 512 * 4);
  CHECK(alibi_backward_workspace(2, 3, 5, 7, 8) == 2 * 3 * 1 * 8);
  for (int64_t zero_at = 0; zero_at < 4; ++zero_at) {
    int64_t e[4] = {2, 3, 5, 7};
    e[zero_at] = 0;
    CHECK(alibi_backward_workspace(e[0], e[1], e[2], e[3], 4) == 0);
  }
  // Huge extents with an empty axis never form a tile count.
  CHECK(alibi_tile_count(0, 1, int64_t{1} << 40, int64_t{1} << 40, 2) == 0);
}

TEST_CASE("alibi grids: a block per tile up to the cap; reduction runs cover every partial", "[heuristics][alibi]") {
  CHECK(alibi_grid_blocks(1) == 1);
  CHECK(alibi_grid_blocks(AlibiTraits::kMaxGridBlocks) == AlibiTraits::kMaxGridBlocks);
  CHECK(alibi_grid_blocks(int64_t{1} << 40) == AlibiTraits::kMaxGridBlocks);
  CHECK(alibi_reduce_run(0) == 1);
  for (int64_t n : {1, 255, 256, 257, 4096, 100000}) {
    const int64_t run = alibi_reduce_run(n);
    CHECK(run * AlibiTraits::kReduceThreads >= n);
    CHECK((run - 1) * AlibiTraits::kReduceThreads < n);
  }
}

TEST_CASE("alibi index width: 32 bits below 2^31 tiles and 2^24 columns, 64 past", "[heuristics][alibi]") {
  constexpr int64_t k2to31 = int64_t{1} << 31;
  CHECK(alibi_indices_fit_32_bits(2048, 2048, alibi_tile_count(4, 32, 2048, 2048, 2)));
  CHECK(alibi_indices_fit_32_bits(1, 32768, 256));
  // A tile number plus the grid stride must not wrap.
  CHECK(alibi_indices_fit_32_bits(1, 1, k2to31 - AlibiTraits::kMaxGridBlocks - 1));
  CHECK_FALSE(alibi_indices_fit_32_bits(1, 1, k2to31 - AlibiTraits::kMaxGridBlocks));
  // j - i' spans up to Q + K, and a row's last vector may run past K; the
  // kernels step it in f32, exact below 2^24.
  constexpr int64_t k2to24 = int64_t{1} << 24;
  CHECK(alibi_indices_fit_32_bits(1, k2to24 - 18, 1));
  CHECK_FALSE(alibi_indices_fit_32_bits(1, k2to24 - 17, 1));
  CHECK_FALSE(alibi_indices_fit_32_bits(k2to24, 1, 1));
}

TEST_CASE("alibi plans name their tiles", "[heuristics][alibi]") {
  baracuda_alibi_desc_t d = BARACUDA_ALIBI_DESC_INIT;
  d.dtype = BARACUDA_DTYPE_BF16;
  d.batch = 4;
  d.heads = 32;
  d.queries = d.keys = 2048;
  for (int32_t op : {BARACUDA_OP_ALIBI, BARACUDA_OP_ALIBI_BACKWARD}) {
    d.header.op = op;
    TestPlan p(&d.header);
    baracuda_plan_info_t info = BARACUDA_PLAN_INFO_INIT;
    REQUIRE(baracuda_plan_get_info(p.plan, &info) == BARACUDA_STATUS_SUCCESS);
    const std::string name = info.kernel_name;
    INFO(name);
    CHECK(name.find("bf16_f32_slopes tiles 4x2048") != std::string::npos);
  }
}

TEST_CASE("alibi tiling: whole row chunks when K is a multiple of a one-row tile's width", "[heuristics][alibi]") {
  CHECK(alibi_tiling(1, 32768, 4).whole_row_chunks);       // the decoding step: 8 chunks of 4096 per row
  CHECK(alibi_tiling(3, 8192, 2).whole_row_chunks);        // one chunk of 8192 bf16 per row
  CHECK_FALSE(alibi_tiling(1, 20000, 4).whole_row_chunks);  // a partial last chunk
  CHECK_FALSE(alibi_tiling(4, 2048, 4).whole_row_chunks);   // two rows a tile
  // One-row tiles narrower than a tile's width: a row shorter than a tile.
  CHECK_FALSE(alibi_tiling(1, 4096, 2).whole_row_chunks);   // a decoding step of 4096 bf16 keys
  CHECK_FALSE(alibi_tiling(3, 5000, 2).whole_row_chunks);   // over half a tile: one row a tile
  CHECK_FALSE(alibi_tiling(1, 1000, 4).whole_row_chunks);
}

TEST_CASE("alibi backward fits one launch of clusters when every slope has at most 8 tiles",
          "[heuristics][alibi]") {
  using baracuda::kernels::alibi_backward_fits_clusters;
  using baracuda::kernels::alibi_tiles_per_slope;
  // The decoding step [1, 32, 1, 32768]: 8 tiles of 4096 f32 (4 of 8192 bf16) per head.
  const auto decode_f32 = alibi_tiling(1, 32768, 4), decode_bf16 = alibi_tiling(1, 32768, 2);
  CHECK(alibi_tiles_per_slope(1, false, decode_f32) == 8);
  CHECK(alibi_tiles_per_slope(1, true, decode_bf16) == 4);
  // [H] slopes gather the tiles of every batch entry.
  CHECK(alibi_tiles_per_slope(3, false, decode_bf16) == 12);
  CHECK(alibi_backward_fits_clusters(1, 32, 1, 32768, false, 4));
  CHECK(alibi_backward_fits_clusters(2, 32, 1, 32768, false, 2));        // 8 bf16 tiles per slope
  CHECK(alibi_backward_fits_clusters(4096, 32, 1, 32768, true, 4));      // any number of slopes
  CHECK_FALSE(alibi_backward_fits_clusters(2, 32, 1, 32768, false, 4));  // 16 tiles per slope
  CHECK_FALSE(alibi_backward_fits_clusters(1, 32, 1, 32768, false, 8));  // f64: 16 tiles per head
  CHECK_FALSE(alibi_backward_fits_clusters(1, 32, 0, 32768, false, 4));  // Q * K = 0: the reduction alone
  CHECK_FALSE(alibi_backward_fits_clusters(1, 32, 1, 0, false, 4));
  CHECK_FALSE(alibi_backward_fits_clusters(int64_t{1} << 28, 8, 1, 4096, true, 4));  // past a grid
}

// The default backward plan of [B, H, Q, K] f32 for sm 90: its kernel name,
// after checking its workspace (none for one launch of clusters).
std::string backward_kernel_name(int64_t batch, int64_t heads, int64_t queries, int64_t keys) {
  baracuda_alibi_desc_t d = BARACUDA_ALIBI_BACKWARD_DESC_INIT;
  d.dtype = BARACUDA_DTYPE_F32;
  d.batch = batch, d.heads = heads, d.queries = queries, d.keys = keys;
  TestPlan p(&d.header);
  baracuda_plan_info_t info = BARACUDA_PLAN_INFO_INIT;
  REQUIRE(baracuda_plan_get_info(p.plan, &info) == BARACUDA_STATUS_SUCCESS);
  const bool clusters = std::string(info.kernel_name).find("clusters") != std::string::npos;
  CHECK(info.workspace_bytes ==
        (clusters ? 0 : static_cast<uint64_t>(alibi_backward_workspace(batch, heads, queries, keys, 4))));
  return info.kernel_name;
}

TEST_CASE("alibi backward plans name their clusters", "[heuristics][alibi]") {
  CHECK(backward_kernel_name(1, 32, 1, 32768) == "alibi_backward_f32_f32_slopes tiles 1x4096 clusters of 8");
  // Sizes the GPU suite compares with the two-launch candidate.
  CHECK(backward_kernel_name(1, 2, 1, 20000) == "alibi_backward_f32_f32_slopes tiles 1x4096 clusters of 5");
  CHECK(backward_kernel_name(2, 2, 1, 13001) == "alibi_backward_f32_f32_slopes tiles 1x4096 clusters of 8");
  CHECK(backward_kernel_name(4, 32, 2048, 2048) == "alibi_backward_f32_f32_slopes tiles 2x2048 pass + reduction");
}

TEST_CASE("fast divisor: n / d as a multiply and a shift for 31-bit n and d", "[heuristics][alibi]") {
  using baracuda::kernels::fast_divide;
  using baracuda::kernels::fast_divide_high;
  using baracuda::kernels::fast_divisor;
  const int64_t top = (int64_t{1} << 31) - 1;
  std::vector<int64_t> divisors = {1, 2, 3, 5, 7, 8, 255, 256, 257, 1000, 4096, 65535, 65536, 65537, 1 << 30,
                                   (1 << 30) + 1, top - 1, top};
  for (int64_t d = 1; d < 3000; d += 7) divisors.push_back(d);
  for (int64_t d : divisors) {
    const auto f = fast_divisor(d);
    INFO("d " << d);
    // Every multiple of d, one either side of it, and the top of the range.
    for (int64_t q : {int64_t{0}, int64_t{1}, int64_t{2}, top / d / 2, top / d - 1, top / d})
      for (int64_t n : {q * d - 1, q * d, q * d + 1, q * d + d - 1})
        if (n >= 0 && n <= top) {
          CHECK(fast_divide(static_cast<uint32_t>(n), f) == n / d);
          CHECK(fast_divide_high(static_cast<uint32_t>(n), f) == n / d);
        }
  }
  CHECK(fast_divisor(0).multiplier == 0);
  CHECK(fast_divisor(int64_t{1} << 31).multiplier == 0);
}

TEST_CASE("alibi tiling: a slot's row is its quotient by the chunk's vectors in every tile", "[heuristics][alibi]") {
  for (int bytes : {2, 4, 8})
    for (int64_t q : {1, 2, 3, 7, 64, 2048})
      for (int64_t k : {1, 2, 5, 8, 127, 2048, 4097, 32768}) {
        const AlibiTiling t = alibi_tiling(q, k, bytes);
        INFO("bytes " << bytes << " Q " << q << " K " << k);
        const int64_t chunk_vectors = t.chunk_cols / t.vector_elems;
        for (int64_t col_tile = 0; col_tile < t.col_tiles; ++col_tile) {
          // The kernel's own count: vectors across this tile's columns.
          const int64_t cols = std::min(t.chunk_cols, k - col_tile * t.chunk_cols);
          const int64_t vecs_per_row = (cols + t.vector_elems - 1) / t.vector_elems;
          CHECK((t.tile_rows == 1 || vecs_per_row == chunk_vectors));
          CHECK(vecs_per_row <= chunk_vectors);
        }
      }
}
