// causal conv1d's kernel choice (kernels/causal_conv1d/conv1d_heuristics.h):
// which kernel each layout gets, the grids, the partial-sum slots against
// the workspace, and the kernel name a plan reports. No GPU.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <string>

#include "causal_conv1d/causal_conv1d_kernels.h"
#include "cpu_helpers.hpp"

using baracuda::kernels::choose_conv1d_launch;
using baracuda::kernels::Conv1dKernel;
using baracuda::kernels::Conv1dLaunch;
using baracuda::kernels::Conv1dPass;
using baracuda::kernels::Conv1dProblem;
using baracuda::kernels::Conv1dUpdateOffsetsTraits;
using baracuda::kernels::Conv1dTraits;
using baracuda::kernels::Conv1dView;
using baracuda::kernels::dense_conv1d_problem;

namespace {

constexpr Conv1dPass kPasses[] = {Conv1dPass::Forward, Conv1dPass::Backward};

// Every [B, C, L] operand of p laid out channels-last: [B, L, C] in memory.
Conv1dProblem channels_last(int64_t batch, int64_t channels, int64_t length) {
  Conv1dProblem p = dense_conv1d_problem(batch, channels, length, 4);
  for (Conv1dView *v : {&p.x, &p.y, &p.dy, &p.dx}) {
    v->stride[0] = channels * length;
    v->stride[1] = 1;
    v->stride[2] = channels;
  }
  return p;
}

Conv1dKernel kernel_of(Conv1dPass pass, int elem_bytes, const Conv1dProblem &p) {
  return choose_conv1d_launch(pass, elem_bytes, p).kernel;
}

void *offset_pointer(uintptr_t bytes) { return reinterpret_cast<void *>(uintptr_t{1} << 40 | bytes); }

}  // namespace

// Timesteps of a time tile of pass for elements of `bytes`.
int64_t tile_steps(Conv1dPass pass, int bytes) {
  return 16 / bytes * Conv1dTraits::kThreads *
         (pass == Conv1dPass::Forward ? Conv1dTraits::kForwardTileSteps : Conv1dTraits::kBackwardTileSteps);
}

// Channels enough that a batch of two rows of `length` elements of `bytes` (2
// or 8) pass the register-fed forward's cap (direct_rows_max_bytes of x).
int64_t channels_past_direct_cap(int64_t length, int bytes) {
  return Conv1dTraits::kDirectRowsMaxBytes / (2 * length * bytes) + 1;
}

// Whether the backward over dense rows of `length` takes the register rows
// (a warp a run): rows of one or two warps' runs of the register tiles.
bool warp_rows(int bytes, int64_t length) {
  const int64_t run = 16 / bytes * 32 * Conv1dTraits::backward_register_tile_steps(bytes);
  return Conv1dTraits::register_warp_rows(bytes) && (length == run || length == 2 * run);
}

// Timesteps of a register tile (conv1d_register_tiles.cuh) for elements of `bytes`.
int64_t register_tile_steps(int bytes) {
  return 16 / bytes * Conv1dTraits::kThreads * Conv1dTraits::backward_register_tile_steps(bytes);
}

// Whether the register tiles' one-tile blocks take a backward over rows of
// `length` (a multiple of 16 bytes) at width 4: rows of one tile, or (16-bit
// elements) of whole tiles.
bool one_tile_blocks(int bytes, int64_t length) {
  const int64_t tile = register_tile_steps(bytes);
  return bytes <= 4 && length % tile == 0 && (length == tile || Conv1dTraits::register_one_tile_all(bytes));
}

// Whether a pass of elements of `bytes` takes the staged and register
// kernels where the layout allows: every pass but f64's backward, which
// takes the walks (no speed target: fewer kernels to build).
bool staged_pass(Conv1dPass pass, int bytes) { return pass == Conv1dPass::Forward || bytes <= 4; }

// The kernel of the time tiles a pass over p takes.
Conv1dKernel time_tiles_of(Conv1dPass pass, int bytes, const Conv1dProblem &p) {
  const bool registers = pass == Conv1dPass::Backward && one_tile_blocks(bytes, p.length);
  return registers ? Conv1dKernel::RegisterTimeTiles : Conv1dKernel::StagedTimeTiles;
}

TEST_CASE("conv1d heuristics: dense rows of whole 16-byte vectors take the staged time tiles",
          "[heuristics][causal_conv1d]") {
  for (const int bytes : {2, 4, 8})
    for (const Conv1dPass pass : kPasses) {
      if (!staged_pass(pass, bytes)) continue;  // (f64's backward: below)
      const int64_t tile = tile_steps(pass, bytes);
      // The f64 forward takes the element-wise kernels alone.
      const Conv1dKernel tiles =
          pass == Conv1dPass::Forward && bytes == 8 ? Conv1dKernel::WalkTime : Conv1dKernel::StagedTimeTiles;
      // (Rows not a power of two of vectors: the forward's register-fed rows take those, below.)
      CHECK(kernel_of(pass, bytes, dense_conv1d_problem(2, 3, 3 * tile, 4)) == tiles);
      // More than half a tile, or vectors not a power of two: rows of their own tiles.
      CHECK(kernel_of(pass, bytes, dense_conv1d_problem(2, 3, tile / 2 + 16, 4)) == tiles);
      CHECK(kernel_of(pass, bytes, dense_conv1d_problem(2, 3, 16 / bytes * 24, 4)) == tiles);
      // L not a multiple of the vector: the element-wise time walk.
      CHECK(kernel_of(pass, bytes, dense_conv1d_problem(2, 3, 16 / bytes * 8 + 1, 4)) == Conv1dKernel::WalkTime);
    }
}

TEST_CASE("conv1d heuristics: the time tiles' backward takes its tile size per element size",
          "[heuristics][causal_conv1d]") {
  // f32 takes tiles of 2 vectors a thread, 16-bit types and f64 of 4.
  CHECK(Conv1dTraits::backward_time_tile_steps(4) == Conv1dTraits::kBackwardTimeTileStepsF32);
  CHECK(Conv1dTraits::backward_time_tile_steps(2) == Conv1dTraits::kBackwardTimeTileSteps);
  CHECK(Conv1dTraits::backward_time_tile_steps(8) == Conv1dTraits::kBackwardTimeTileSteps);
  for (const int bytes : {2, 4}) {
    CAPTURE(bytes);
    const int64_t vec = 16 / bytes;
    const int64_t tile = vec * Conv1dTraits::kThreads * Conv1dTraits::backward_time_tile_steps(bytes);
    const int64_t block = tile * Conv1dTraits::kBackwardTilesPerBlock;
    // A row of a block's tiles is one block column (a block a tile where the
    // register tiles take it); a vector more, a second (the kernel's
    // TimeTiles counts a row's tiles with the same size).
    Conv1dLaunch l = choose_conv1d_launch(Conv1dPass::Backward, bytes, dense_conv1d_problem(2, 3, block, 4));
    const int64_t columns = one_tile_blocks(bytes, block) ? block / register_tile_steps(bytes) : 1;
    CHECK(l.kernel == time_tiles_of(Conv1dPass::Backward, bytes, dense_conv1d_problem(2, 3, block, 4)));
    CHECK(l.grid_x == columns);
    CHECK(l.partial_slots == 2 * columns);
    l = choose_conv1d_launch(Conv1dPass::Backward, bytes, dense_conv1d_problem(2, 3, block + vec, 4));
    CHECK(l.grid_x == 2);
    CHECK(l.partial_slots == 4);
    // The ring of x (H vectors each side) and dy (H after) for every width
    // fits the blocks an SM it is compiled for: 228 KiB of shared memory an
    // SM of an H100 / H200, 1 KiB of it reserved a block.
    for (int width = Conv1dTraits::kMinWidth; width <= Conv1dTraits::kMaxWidth; ++width) {
      CAPTURE(width);
      const int64_t halo = (width - 1 + vec - 1) / vec, vecs = tile / vec;
      const int64_t stage_bytes = ((vecs + 2 * halo) + (vecs + halo)) * 16;
      const int64_t blocks = Conv1dTraits::backward_time_blocks(bytes);
      CHECK(blocks * (Conv1dTraits::backward_time_stages(bytes) * stage_bytes + 1024) <= 228 * 1024);
    }
  }
}

TEST_CASE("conv1d heuristics: the time tiles' forward takes its tiles a block per element size",
          "[heuristics][causal_conv1d]") {
  // 16-bit rows kForwardTilesPerBlock tiles a block, f32 and f64
  // kForwardTilesPerBlockWide; the backward kBackwardTilesPerBlock for all.
  CHECK(Conv1dTraits::time_tiles_per_block(false, 2) == Conv1dTraits::kForwardTilesPerBlock);
  CHECK(Conv1dTraits::time_tiles_per_block(false, 4) == Conv1dTraits::kForwardTilesPerBlockWide);
  CHECK(Conv1dTraits::time_tiles_per_block(false, 8) == Conv1dTraits::kForwardTilesPerBlockWide);
  for (const int bytes : {2, 4, 8})
    CHECK(Conv1dTraits::time_tiles_per_block(true, bytes) == Conv1dTraits::kBackwardTilesPerBlock);
  for (const int bytes : {2, 4}) {  // (the f64 forward takes the element-wise kernels)
    CAPTURE(bytes);
    const int64_t vec = 16 / bytes;
    const int64_t block = vec * Conv1dTraits::kThreads * Conv1dTraits::kForwardTileSteps *
                          Conv1dTraits::time_tiles_per_block(false, bytes);
    // A row of a block's tiles is one block column (16 bits past the
    // register-fed forward's cap; f32 has none, its rows of a power of two of
    // vectors take those); a vector more, a second.
    if (bytes == 2) {
      const int64_t channels = channels_past_direct_cap(block, bytes);
      const Conv1dLaunch one =
          choose_conv1d_launch(Conv1dPass::Forward, bytes, dense_conv1d_problem(2, channels, block, 4));
      CHECK(one.kernel == Conv1dKernel::StagedTimeTiles);
      CHECK(one.grid_x == 1);
    }
    Conv1dLaunch l = choose_conv1d_launch(Conv1dPass::Forward, bytes, dense_conv1d_problem(2, 3, block + vec, 4));
    CHECK(l.grid_x == 2);
    CHECK(l.grid_y == 6);
  }
}

TEST_CASE("conv1d heuristics: short dense rows of a power of two of vectors take the row groups' backward",
          "[heuristics][causal_conv1d]") {
  // The forward takes the register-fed rows (2- and 4-byte elements, below) or the time walk (f64).
  for (const int bytes : {2, 4, 8})
    for (const Conv1dPass pass : kPasses) {
      if (pass == Conv1dPass::Forward) {
        CHECK(kernel_of(pass, bytes, dense_conv1d_problem(3, 1000, 16 / bytes * Conv1dTraits::kGroupMinVecs, 4)) ==
              (bytes == 8 ? Conv1dKernel::WalkTime : Conv1dKernel::DirectRows));
        continue;
      }
      if (!staged_pass(pass, bytes)) continue;
      const int64_t vec = 16 / bytes, tile = tile_steps(pass, bytes);
      for (const int64_t length : {vec * Conv1dTraits::kGroupMinVecs, tile / 4, tile / 2}) {
        CAPTURE(bytes, length);
        if (pass == Conv1dPass::Backward && warp_rows(bytes, length)) continue;  // (the register rows: below)
        const Conv1dLaunch l = choose_conv1d_launch(pass, bytes, dense_conv1d_problem(3, 1000, length, 4));
        CHECK(l.kernel == Conv1dKernel::StagedRowGroups);
        // tile / length rows a tile, kGroupTilesPerBlock tiles a block row but
        // at least kGroupMinBlocks blocks while the tiles last, one block
        // column, a partial-sum slot per b.
        const int64_t tiles = (3000 + tile / length - 1) / (tile / length);
        const int64_t packed = (tiles + Conv1dTraits::kGroupTilesPerBlock - 1) / Conv1dTraits::kGroupTilesPerBlock;
        CHECK(l.grid_x == 1);
        CHECK(l.grid_y == std::max(packed, std::min<int64_t>(tiles, Conv1dTraits::kGroupMinBlocks)));
        CHECK(l.partial_slots == 3);
        CHECK_FALSE(l.sums_direct);
      }
      // Fewer vectors than a group's minimum: the time tiles.
      CHECK(kernel_of(pass, bytes, dense_conv1d_problem(2, 3, vec * Conv1dTraits::kGroupMinVecs / 2, 4)) ==
            Conv1dKernel::StagedTimeTiles);
    }
  // A batch of one row of 2048 channels: a tile a block.
  const int64_t steps = tile_steps(Conv1dPass::Backward, 2);
  const Conv1dLaunch one = choose_conv1d_launch(Conv1dPass::Backward, 2, dense_conv1d_problem(1, 2048, 128, 4));
  CHECK(one.kernel == Conv1dKernel::StagedRowGroups);
  CHECK(one.grid_y == 2048 / (steps / 128));
  // Rows past the grid's y limit are walked by the blocks in turn.
  CHECK(choose_conv1d_launch(Conv1dPass::Backward, 2, dense_conv1d_problem(4096, 8192, 64, 4)).grid_y == 65535);
}

TEST_CASE("conv1d heuristics: the row groups' backward of a batch of one writes DW and DB itself",
          "[heuristics][causal_conv1d]") {
  for (const int bytes : {2, 4}) {
    CAPTURE(bytes);
    const int64_t length = 16 / bytes * Conv1dTraits::kGroupMinVecs;
    const Conv1dLaunch one = choose_conv1d_launch(Conv1dPass::Backward, bytes, dense_conv1d_problem(1, 1000, length, 4));
    CHECK(one.kernel == Conv1dKernel::StagedRowGroups);
    CHECK(one.sums_direct);
    // A batch of two sums its slots after the kernel; the forward has no sums; channels-last sums per chunk.
    CHECK_FALSE(choose_conv1d_launch(Conv1dPass::Backward, bytes, dense_conv1d_problem(2, 1000, length, 4)).sums_direct);
    CHECK_FALSE(choose_conv1d_launch(Conv1dPass::Forward, bytes, dense_conv1d_problem(1, 1000, length, 4)).sums_direct);
    CHECK_FALSE(choose_conv1d_launch(Conv1dPass::Backward, bytes, channels_last(1, 1000, length)).sums_direct);
  }
}

TEST_CASE("conv1d heuristics: the time tiles' backward of a batch of one, a block a row, writes DW and DB itself",
          "[heuristics][causal_conv1d]") {
  for (const int bytes : {2, 4}) {
    CAPTURE(bytes);
    const int64_t vec = 16 / bytes;
    const int64_t block = vec * Conv1dTraits::kThreads * Conv1dTraits::backward_time_tile_steps(bytes) *
                          Conv1dTraits::kBackwardTilesPerBlock;
    // Rows of one block column: block row c is channel c, its sums DW and DB.
    for (const int64_t length : {block / 8, block}) {
      CAPTURE(length);
      if (warp_rows(bytes, length)) continue;  // (the register rows: below)
      const Conv1dProblem p = dense_conv1d_problem(1, 1000, length, 4);
      const Conv1dLaunch one = choose_conv1d_launch(Conv1dPass::Backward, bytes, p);
      CHECK(one.kernel == time_tiles_of(Conv1dPass::Backward, bytes, p));
      CHECK(one.grid_y == 1000);
      // (The register tiles' one-tile blocks of a row of several: slots.)
      CHECK(one.grid_x == (one_tile_blocks(bytes, length) ? length / register_tile_steps(bytes) : 1));
      CHECK(one.sums_direct == (one.grid_x == 1));
      // A batch of two, or the forward: the rows grid, sums (if any) in slots.
      CHECK_FALSE(choose_conv1d_launch(Conv1dPass::Backward, bytes, dense_conv1d_problem(2, 1000, length, 4)).sums_direct);
      CHECK_FALSE(choose_conv1d_launch(Conv1dPass::Forward, bytes, dense_conv1d_problem(1, 1000, length, 4)).sums_direct);
      // More channels than block rows: a block walks several channels, each to its slot.
      const Conv1dLaunch wide = choose_conv1d_launch(Conv1dPass::Backward, bytes, dense_conv1d_problem(1, 70000, length, 4));
      if (wide.kernel == Conv1dKernel::RegisterTimeTiles) {  // (rows past 65535 in grid z)
        CHECK(wide.grid_y * wide.grid_z >= 70000);
      } else {
        CHECK(wide.grid_y == 65535);
      }
      CHECK_FALSE(wide.sums_direct);
    }
    // A row of two block columns: a slot per block.
    const Conv1dLaunch two = choose_conv1d_launch(Conv1dPass::Backward, bytes, dense_conv1d_problem(1, 1000, block + vec, 4));
    CHECK(two.grid_x == 2);
    CHECK_FALSE(two.sums_direct);
  }
}

TEST_CASE("conv1d heuristics: the backward over rows of one 16-bit or f32 time tile takes the register tiles",
          "[heuristics][causal_conv1d]") {
  for (const int bytes : {2, 4}) {
    CAPTURE(bytes);
    const int64_t vec = 16 / bytes;
    const int64_t tile = vec * Conv1dTraits::kThreads * Conv1dTraits::backward_register_tile_steps(bytes);
    // W-1 inputs within the vector before: the one-tile blocks, a row a
    // block, a dw/db slot per b; the register tiles serve the backward alone
    // (these rows' forward takes the direct rows).
    for (int width = Conv1dTraits::kMinWidth; width <= Conv1dTraits::kMaxWidth; ++width) {
      CAPTURE(width);
      const Conv1dLaunch l = choose_conv1d_launch(Conv1dPass::Backward, bytes, dense_conv1d_problem(3, 100, tile, width));
      if (width - 1 > vec) {
        CHECK(l.kernel == Conv1dKernel::StagedTimeTiles);
        continue;
      }
      CHECK(l.kernel == Conv1dKernel::RegisterTimeTiles);
      CHECK(l.grid_x == 1);
      CHECK(l.grid_y == 300);
      CHECK(l.grid_z == 1);
      CHECK(l.partial_slots == 3);
      CHECK_FALSE(l.sums_direct);
      CHECK(kernel_of(Conv1dPass::Forward, bytes, dense_conv1d_problem(3, 100, tile, width)) ==
            Conv1dKernel::DirectRows);
    }
    // A batch of one writes DW and DB itself; rows past the grid's y limit
    // go on in grid z (block (x, y, z): row z * grid_y + y), split evenly.
    const Conv1dLaunch one = choose_conv1d_launch(Conv1dPass::Backward, bytes, dense_conv1d_problem(1, 100, tile, 4));
    CHECK(one.kernel == Conv1dKernel::RegisterTimeTiles);
    CHECK(one.sums_direct);
    const Conv1dLaunch many = choose_conv1d_launch(Conv1dPass::Backward, bytes, dense_conv1d_problem(2, 40000, tile, 4));
    CHECK(many.kernel == Conv1dKernel::RegisterTimeTiles);
    CHECK(many.grid_y == 40000);
    CHECK(many.grid_z == 2);
    const Conv1dLaunch odd = choose_conv1d_launch(Conv1dPass::Backward, bytes, dense_conv1d_problem(3, 65536, tile, 4));
    CHECK(odd.grid_z == 4);
    CHECK(odd.grid_y == 49152);  // 196608 rows: 3 z of 65535 and one of 3 (65532 blocks empty) before
    CHECK(many.grid_y * many.grid_z >= 80000);
    CHECK(many.partial_slots == 2);
    // Rows of part of a tile: the staged time tiles; of several whole tiles:
    // a block a tile for 16-bit elements (kBackwardRegisterOneTileAll), else
    // the staged time tiles.
    CHECK(kernel_of(Conv1dPass::Backward, bytes, dense_conv1d_problem(2, 3, tile + vec * Conv1dTraits::kThreads, 4)) ==
          Conv1dKernel::StagedTimeTiles);
    const Conv1dLaunch two = choose_conv1d_launch(Conv1dPass::Backward, bytes, dense_conv1d_problem(2, 3, 2 * tile, 4));
    const bool blocks_a_tile = Conv1dTraits::register_one_tile_all(bytes);
    CHECK(two.kernel == (blocks_a_tile ? Conv1dKernel::RegisterTimeTiles : Conv1dKernel::StagedTimeTiles));
    CHECK(two.grid_x == (blocks_a_tile ? 2 : 1));
    CHECK(two.partial_slots == two.grid_x * 2);
  }
}

TEST_CASE("conv1d heuristics: the register tiles take two 16-bit tiles of a row a block while the grid stays large",
          "[heuristics][causal_conv1d]") {
  for (const int bytes : {2, 4}) {
    const int64_t tile = 16 / bytes * Conv1dTraits::kThreads * Conv1dTraits::backward_register_tile_steps(bytes);
    for (int width = Conv1dTraits::kMinWidth; width <= 16 / bytes + 1; ++width) {
      for (const bool silu : {true, false}) {
        const bool pairs = Conv1dTraits::register_tile_pairs(bytes, width, silu);
        CHECK(pairs == (bytes == 2 && width <= 4 && silu));  // (the kernel is built for these alone)
        for (const int64_t batch : {1, 2, 8, 64}) {
          for (const int64_t channels : {100, 768, 2048, 40000}) {
            for (const int64_t tiles : {1, 2, 3, 4, 6, 8, 40}) {
              CAPTURE(bytes, width, silu, batch, channels, tiles);
              Conv1dProblem p = dense_conv1d_problem(batch, channels, tiles * tile, width);
              p.silu = silu;
              const Conv1dLaunch l = choose_conv1d_launch(Conv1dPass::Backward, bytes, p);
              REQUIRE(l.kernel == Conv1dKernel::RegisterTimeTiles);
              // Two tiles a block where the pairs' kernel serves the row, the
              // tiles pair up and the grid keeps kBackwardRegisterMinBlocks
              // blocks; else one.
              const bool two = pairs && tiles % 2 == 0 &&
                               batch * channels * (tiles / 2) >= Conv1dTraits::kBackwardRegisterMinBlocks;
              CHECK(l.tiles_per_block == (two ? 2 : 1));
              CHECK(l.grid_x * l.tiles_per_block == tiles);
              // A slot a tile either way (the same sums, the same bits); DW
              // and DB written directly only where a row is one tile.
              CHECK(l.partial_slots == batch * tiles);
              CHECK(l.sums_direct == (batch == 1 && tiles == 1 && channels <= 65535));
            }
          }
        }
      }
    }
  }
  // bf16 [64,768,32768] and [8,2048,32768] W4 with SiLU: two tiles a block;
  // [1,2048,32768] (2048 rows of 8 tiles), f32 and SiLU off: one.
  const auto tiles_a_block = [](int bytes, int64_t b, int64_t c, int64_t l, bool silu) {
    Conv1dProblem p = dense_conv1d_problem(b, c, l, 4);
    p.silu = silu;
    return choose_conv1d_launch(Conv1dPass::Backward, bytes, p).tiles_per_block;
  };
  CHECK(tiles_a_block(2, 64, 768, 32768, true) == 2);
  CHECK(tiles_a_block(2, 8, 2048, 32768, true) == 2);
  CHECK(tiles_a_block(2, 1, 2048, 32768, true) == 1);
  CHECK(tiles_a_block(4, 8, 2048, 32768, true) == 1);
  CHECK(tiles_a_block(2, 8, 2048, 32768, false) == 1);
}

TEST_CASE("conv1d heuristics: rows of one or two warps' register runs take the register rows, a warp a run",
          "[heuristics][causal_conv1d]") {
  const int64_t warps = Conv1dTraits::kThreads / 32;
  for (const int bytes : {2, 4}) {
    const int64_t run = 16 / bytes * 32 * Conv1dTraits::backward_register_tile_steps(bytes);  // timesteps
    REQUIRE(warp_rows(bytes, run));
    for (const int64_t runs : {1, 2}) {
      for (int width = Conv1dTraits::kMinWidth; width <= 16 / bytes + 1; ++width) {
        CAPTURE(bytes, runs, width);
        // kThreads / 32 runs a block, one block column, a slot per b.
        const Conv1dLaunch l =
            choose_conv1d_launch(Conv1dPass::Backward, bytes, dense_conv1d_problem(3, 101, runs * run, width));
        CHECK(l.kernel == Conv1dKernel::RegisterRows);
        CHECK(l.grid_x == 1);
        CHECK(l.grid_y == (303 * runs + warps - 1) / warps);
        CHECK(l.grid_z == 1);
        CHECK(l.partial_slots == 3);
        CHECK_FALSE(l.sums_direct);
      }
      // A batch of one writes DW and DB itself (a warp's row is its channel, however many); past 65535
      // blocks, grid z, split evenly.
      CHECK(choose_conv1d_launch(Conv1dPass::Backward, bytes, dense_conv1d_problem(1, 100, runs * run, 4)).sums_direct);
      CHECK(choose_conv1d_launch(Conv1dPass::Backward, bytes, dense_conv1d_problem(1, 70000, runs * run, 4)).sums_direct);
      const Conv1dLaunch many =
          choose_conv1d_launch(Conv1dPass::Backward, bytes, dense_conv1d_problem(4, 65536, runs * run, 4));
      const int64_t blocks = 65536 * runs;  // 4 * 65536 * runs runs, kThreads / 32 a block
      CHECK(many.grid_z == (blocks + 65534) / 65535);
      CHECK(many.grid_y == (blocks + many.grid_z - 1) / many.grid_z);
      CHECK(many.grid_y * many.grid_z * warps >= 4 * 65536 * runs);
      // W-1 inputs past the vector before: the staged kernels.
      CHECK(kernel_of(Conv1dPass::Backward, bytes, dense_conv1d_problem(3, 101, runs * run, 16 / bytes + 2)) !=
            Conv1dKernel::RegisterRows);
    }
    // Half a run: the row groups; four runs (a tile): the register tiles.
    CHECK(kernel_of(Conv1dPass::Backward, bytes, dense_conv1d_problem(3, 101, run / 2, 4)) ==
          Conv1dKernel::StagedRowGroups);
    CHECK(kernel_of(Conv1dPass::Backward, bytes, dense_conv1d_problem(3, 101, 4 * run, 4)) ==
          Conv1dKernel::RegisterTimeTiles);
    // The forward over such rows keeps the register-fed rows.
    CHECK(kernel_of(Conv1dPass::Forward, bytes, dense_conv1d_problem(3, 101, run, 4)) == Conv1dKernel::DirectRows);
  }
}

TEST_CASE("conv1d heuristics: one misaligned or strided operand sends the pass to the walk kernels",
          "[heuristics][causal_conv1d]") {
  Conv1dProblem p = dense_conv1d_problem(2, channels_past_direct_cap(4096, 2), 4096, 4);
  p.dx.data = offset_pointer(4);  // a backward operand only
  CHECK(kernel_of(Conv1dPass::Forward, 2, p) == Conv1dKernel::StagedTimeTiles);
  CHECK(kernel_of(Conv1dPass::Backward, 2, p) == Conv1dKernel::WalkTime);
  p.dx.data = offset_pointer(16);
  CHECK(kernel_of(Conv1dPass::Backward, 2, p) == time_tiles_of(Conv1dPass::Backward, 2, p));
  p.y.stride[2] = 2;  // every other timestep of y
  CHECK(kernel_of(Conv1dPass::Forward, 2, p) == Conv1dKernel::WalkTime);
  p = dense_conv1d_problem(2, 3, 4096, 4);
  p.x.stride[1] = 4100;  // rows padded to 4100 elements: not a multiple of bf16's 8
  CHECK(kernel_of(Conv1dPass::Forward, 2, p) == Conv1dKernel::WalkTime);
  CHECK(kernel_of(Conv1dPass::Forward, 4, p) == Conv1dKernel::StagedTimeTiles);  // 4100 is f32's 4 x 1025
  p = dense_conv1d_problem(2, 3, 64, 4);
  p.x.stride[1] = 68;  // short rows too: the forward's rows apart in memory take the time tiles
  CHECK(kernel_of(Conv1dPass::Forward, 2, p) == Conv1dKernel::WalkTime);
  CHECK(kernel_of(Conv1dPass::Forward, 4, p) == Conv1dKernel::StagedTimeTiles);
  CHECK(kernel_of(Conv1dPass::Backward, 4, p) == Conv1dKernel::StagedRowGroups);
}

TEST_CASE("conv1d heuristics: packed sequences (SEQ_IDX) keep the channel tiles, [B, C, L] the time walk",
          "[heuristics][causal_conv1d]") {
  for (const Conv1dPass pass : kPasses) {
    Conv1dProblem dense = dense_conv1d_problem(2, 64, 64, 4), last = channels_last(2, 64, 64);
    dense.seq_idx.data = last.seq_idx.data = offset_pointer(16);
    CHECK(kernel_of(pass, 2, dense) == Conv1dKernel::WalkTime);
    CHECK(kernel_of(pass, 2, last) == Conv1dKernel::StagedChannelTiles);
    CHECK(kernel_of(pass, 8, last) == Conv1dKernel::WalkChannels);
  }
}

TEST_CASE("conv1d heuristics: channels-last takes the staged channel tiles for 2- and 4-byte types",
          "[heuristics][causal_conv1d]") {
  for (const Conv1dPass pass : kPasses) {
    // (The forward of small problems: the one-box blocks, below.)
    const Conv1dKernel staged =
        pass == Conv1dPass::Forward ? Conv1dKernel::StagedChannelBox : Conv1dKernel::StagedChannelTiles;
    CHECK(kernel_of(pass, 2, channels_last(2, 64, 33)) == staged);
    CHECK(kernel_of(pass, 4, channels_last(2, 64, 33)) == staged);
    CHECK(kernel_of(pass, 2, channels_last(64, 2048, 512)) == Conv1dKernel::StagedChannelTiles);
    // f64 boxes would not fit the ring; channels not a multiple of the vector.
    CHECK(kernel_of(pass, 8, channels_last(2, 64, 33)) == Conv1dKernel::WalkChannels);
    CHECK(kernel_of(pass, 4, channels_last(2, 66, 33)) == Conv1dKernel::WalkChannels);
  }
  // Length 1: both strides are 1 in a dense [B, C, 1]; the time tiles need L
  // whole vectors, the channel tiles a time stride of whole vectors.
  CHECK(kernel_of(Conv1dPass::Forward, 4, dense_conv1d_problem(3, 8, 1, 4)) == Conv1dKernel::WalkTime);
}

TEST_CASE("conv1d heuristics: the channels-last forward of small problems takes the one-box blocks",
          "[heuristics][causal_conv1d]") {
  const int64_t threads = Conv1dTraits::kThreads;
  for (const int bytes : {2, 4}) {
    CAPTURE(bytes);
    const int64_t lane_channels = 4 / bytes;
    for (const auto &shape : {std::array<int64_t, 3>{1, 2048, 128}, std::array<int64_t, 3>{1, 2048, 512},
                              std::array<int64_t, 3>{8, 2048, 128}, std::array<int64_t, 3>{3, 40, 33},
                              std::array<int64_t, 3>{2, 8, 1}, std::array<int64_t, 3>{1, 2056, 4}}) {
      const int64_t B = shape[0], C = shape[1], L = shape[2];
      CAPTURE(B, C, L);
      const Conv1dLaunch l = choose_conv1d_launch(Conv1dPass::Forward, bytes, channels_last(B, C, L));
      if (B * C * L * bytes > Conv1dTraits::kChannelBoxMaxBytes) {  // past the cap
        CHECK(l.kernel == Conv1dKernel::StagedChannelTiles);
        continue;
      }
      REQUIRE(l.kernel == Conv1dKernel::StagedChannelBox);
      CHECK(l.box_group_shift >= 0);
      CHECK(l.box_group_shift <= Conv1dTraits::kChannelBoxMaxGroupShift);
      CHECK((l.box_steps == Conv1dTraits::kChannelBoxSteps || l.box_steps == Conv1dTraits::kChannelBoxStepsFew));
      // The grid covers every channel and timestep of every batch row, a box a block.
      const int64_t box_channels = (threads >> l.box_group_shift) * lane_channels;
      const int64_t box_steps = int64_t{l.box_steps} << l.box_group_shift;
      CHECK(box_steps <= Conv1dTraits::kChannelBoxRows);
      CHECK(l.grid_x == (C + box_channels - 1) / box_channels);
      CHECK(l.grid_y == (L + box_steps - 1) / box_steps);
      CHECK(l.grid_z == B);
      // Time groups only where the row fills them.
      if (l.box_group_shift > 0) CHECK(box_steps <= L);
      // A thread's fewer steps only where the grid at the more would be small.
      const int64_t blocks_at_more = (B * C * L + threads * lane_channels * Conv1dTraits::kChannelBoxSteps - 1) /
                                     (threads * lane_channels * Conv1dTraits::kChannelBoxSteps);
      const bool few = blocks_at_more <= Conv1dTraits::kChannelBoxFewBlocks;
      CHECK((l.box_steps == Conv1dTraits::kChannelBoxStepsFew) == few);
    }
    // [1,2048,128] in 16 bits: 4 steps a thread, 64 channels by 16 timesteps a block.
    if (bytes == 2) {
      const Conv1dLaunch l = choose_conv1d_launch(Conv1dPass::Forward, 2, channels_last(1, 2048, 128));
      CHECK(l.box_steps == 4);
      CHECK(l.box_group_shift == 2);
      CHECK(l.grid_x * l.grid_y == 256);
      CHECK(choose_conv1d_launch(Conv1dPass::Forward, 2, channels_last(1, 2048, 1024)).box_steps == 8);
    }
    // Wider windows keep the channel tiles.
    Conv1dProblem wide = channels_last(1, 2048, 128);
    wide.width = Conv1dTraits::kChannelBoxMaxWidth + 1;
    CHECK(kernel_of(Conv1dPass::Forward, bytes, wide) == Conv1dKernel::StagedChannelTiles);
    // Packed sequences, a problem past the cap, and the backward keep the channel tiles.
    Conv1dProblem seq = channels_last(1, 2048, 128);
    seq.seq_idx.data = offset_pointer(16);
    CHECK(kernel_of(Conv1dPass::Forward, bytes, seq) == Conv1dKernel::StagedChannelTiles);
    const int64_t past = Conv1dTraits::kChannelBoxMaxBytes / (2048 * 128 * bytes) + 1;
    CHECK(kernel_of(Conv1dPass::Forward, bytes, channels_last(past, 2048, 128)) == Conv1dKernel::StagedChannelTiles);
    CHECK(kernel_of(Conv1dPass::Backward, bytes, channels_last(1, 2048, 128)) == Conv1dKernel::StagedChannelTiles);
  }
}

TEST_CASE("conv1d heuristics: the forward of dense rows that fit a block takes the register-fed rows",
          "[heuristics][causal_conv1d]") {
  for (const int bytes : {2, 4}) {
    CAPTURE(bytes);
    const int64_t vec = 16 / bytes, steps = Conv1dTraits::direct_rows_steps(bytes);
    const int64_t most = Conv1dTraits::kThreads * steps;  // vectors a row, at most
    for (const int64_t units : {int64_t{1}, int64_t{4}, int64_t{64}, most}) {
      CAPTURE(units);
      const Conv1dLaunch l =
          choose_conv1d_launch(Conv1dPass::Forward, bytes, dense_conv1d_problem(3, 1000, units * vec, 4));
      CHECK(l.kernel == Conv1dKernel::DirectRows);
      // Consecutive vectors of the B*C rows, kThreads * steps a block, one block row.
      CHECK(l.grid_x == (3000 * units + most - 1) / most);
      CHECK(l.grid_y == 1);
      // The backward keeps the staged kernels.
      CHECK(kernel_of(Conv1dPass::Backward, bytes, dense_conv1d_problem(3, 1000, units * vec, 4)) !=
            Conv1dKernel::DirectRows);
    }
    // Rows longer than a block: in 16 bits, of a problem of at most
    // kDirectRowsMaxBytes of x, a block a stretch of a row, past it the time
    // tiles; f32 at any size.
    if (bytes == 2) {
      const int64_t cap_rows = Conv1dTraits::kDirectRowsMaxBytes / (2 * most * vec * bytes);
      const Conv1dLaunch l =
          choose_conv1d_launch(Conv1dPass::Forward, bytes, dense_conv1d_problem(1, cap_rows, 2 * most * vec, 4));
      CHECK(l.kernel == Conv1dKernel::DirectRows);
      CHECK(l.grid_x == cap_rows * 2);
      CHECK(kernel_of(Conv1dPass::Forward, bytes, dense_conv1d_problem(1, cap_rows + 1, 2 * most * vec, 4)) ==
            Conv1dKernel::StagedTimeTiles);
    } else {
      CHECK(kernel_of(Conv1dPass::Forward, bytes, dense_conv1d_problem(64, 8192, 32768, 4)) ==
            Conv1dKernel::DirectRows);
    }
    // Rows not a power of two of vectors: the time tiles.
    CHECK(kernel_of(Conv1dPass::Forward, bytes, dense_conv1d_problem(3, 1000, 24 * vec, 4)) ==
          Conv1dKernel::StagedTimeTiles);
    // Rows apart in memory (x padded past each row, or y's batch rows apart): the time tiles.
    Conv1dProblem padded = dense_conv1d_problem(3, 1000, 64 * vec, 4);
    padded.x.stride[1] = 65 * vec;
    padded.x.stride[0] = 1000 * 65 * vec;
    CHECK(kernel_of(Conv1dPass::Forward, bytes, padded) == Conv1dKernel::StagedTimeTiles);
    padded = dense_conv1d_problem(3, 1000, 64 * vec, 4);
    padded.y.stride[0] = 1200 * 64 * vec;
    CHECK(kernel_of(Conv1dPass::Forward, bytes, padded) == Conv1dKernel::StagedTimeTiles);
    // A batch of one needs no batch stride; a channel of one no channel stride.
    Conv1dProblem one = dense_conv1d_problem(1, 1000, 64 * vec, 4);
    one.x.stride[0] = 3 * vec;
    CHECK(kernel_of(Conv1dPass::Forward, bytes, one) == Conv1dKernel::DirectRows);
  }
  // Every width: the W-1 inputs before a vector from the vectors before it (f32 W 6-8: two).
  for (int width = Conv1dTraits::kMinWidth; width <= Conv1dTraits::kMaxWidth; ++width)
    CHECK(kernel_of(Conv1dPass::Forward, 4, dense_conv1d_problem(3, 1000, 256, width)) == Conv1dKernel::DirectRows);
  // f64 takes the element-wise kernels: the time walk, or the channel walk channels-last.
  CHECK(kernel_of(Conv1dPass::Forward, 8, dense_conv1d_problem(3, 1000, 256, 4)) == Conv1dKernel::WalkTime);
  CHECK(kernel_of(Conv1dPass::Forward, 8, channels_last(3, 1000, 256)) == Conv1dKernel::WalkChannels);
}

TEST_CASE("conv1d heuristics: the [B, C, L] forward's launches overlap the kernel before them where they pay",
          "[heuristics][causal_conv1d]") {
  for (const int bytes : {2, 4}) {
    CAPTURE(bytes);
    const int64_t vec = 16 / bytes, per_block = Conv1dTraits::kThreads * Conv1dTraits::direct_rows_steps(bytes);
    const int64_t most = Conv1dTraits::kDirectRowsOverlapMaxBlocks;
    // The direct rows in grids of at most kDirectRowsOverlapMaxBlocks blocks
    // (rows of per_block vectors: a block a row), plain past them.
    Conv1dLaunch l =
        choose_conv1d_launch(Conv1dPass::Forward, bytes, dense_conv1d_problem(1, most, per_block * vec, 4));
    CHECK(l.kernel == Conv1dKernel::DirectRows);
    CHECK(l.grid_x == most);
    CHECK(l.overlap);
    l = choose_conv1d_launch(Conv1dPass::Forward, bytes, dense_conv1d_problem(1, most + 1, per_block * vec, 4));
    CHECK(l.kernel == Conv1dKernel::DirectRows);
    CHECK_FALSE(l.overlap);
    // The time tiles at any size; the backward's kernels and the channel tiles never.
    for (const int64_t batch : {int64_t{1}, int64_t{64}}) {
      const Conv1dProblem rows = dense_conv1d_problem(batch, 1000, 24 * vec, 4);
      l = choose_conv1d_launch(Conv1dPass::Forward, bytes, rows);
      CHECK(l.kernel == Conv1dKernel::StagedTimeTiles);
      CHECK(l.overlap);
      CHECK_FALSE(choose_conv1d_launch(Conv1dPass::Backward, bytes, rows).overlap);
    }
    CHECK_FALSE(choose_conv1d_launch(Conv1dPass::Forward, bytes, channels_last(8, 2048, 512)).overlap);
  }
}

TEST_CASE("conv1d heuristics: grids", "[heuristics][causal_conv1d]") {
  const int64_t threads = Conv1dTraits::kThreads, chunk = Conv1dTraits::kChunk;
  // bf16 time tiles: 8 timesteps a vector, kThreads * steps vectors a tile, kForwardTilesPerBlock tiles a block.
  const int64_t fwd_block = 8 * threads * Conv1dTraits::kForwardTileSteps * Conv1dTraits::kForwardTilesPerBlock;
  Conv1dLaunch l = choose_conv1d_launch(Conv1dPass::Forward, 2, dense_conv1d_problem(2, 3, fwd_block + 8, 4));
  CHECK(l.kernel == Conv1dKernel::StagedTimeTiles);
  CHECK(l.grid_x == 2);
  CHECK(l.grid_y == 6);
  // Rows past the grid's y limit are walked by the blocks in turn.
  l = choose_conv1d_launch(Conv1dPass::Forward, 2, dense_conv1d_problem(4, 40000, 4096, 4));
  CHECK(l.grid_y == 65535);
  // Channel grids: kThreads * vec channels a block, a block row per (b, chunk)
  // (a forward past the one-box blocks' cap).
  const int64_t rows = Conv1dTraits::kChannelBoxMaxBytes / ((threads * 2 + 4) * (chunk + 1) * 4) + 1;
  l = choose_conv1d_launch(Conv1dPass::Forward, 4, channels_last(rows, threads * 2 + 4, chunk + 1));
  CHECK(l.kernel == Conv1dKernel::StagedChannelTiles);
  CHECK(l.grid_x == 3);
  CHECK(l.chunk == Conv1dTraits::min_channel_chunk(false, chunk + 1));  // few channel groups: the shortest chunk
  CHECK(l.grid_y == rows * ((chunk + 1 + l.chunk - 1) / l.chunk));
  l = choose_conv1d_launch(Conv1dPass::Backward, 4, channels_last(64, 64 * threads, 4 * chunk));
  CHECK(l.chunk == chunk);  // 4096 groups by 4 chunks: enough blocks
  CHECK(l.grid_y == 256);
  // The update: blocks of kUpdateThreads channels by batch rows, batches past 65535 along z.
  const int64_t update_threads = Conv1dTraits::kUpdateThreads;
  l = choose_conv1d_launch(Conv1dPass::Update, 2, dense_conv1d_problem(3, update_threads * 2 + 1, 5, 4));
  CHECK(l.kernel == Conv1dKernel::Update);
  CHECK(l.grid_x == 3);
  CHECK(l.grid_y == 3);
  CHECK(l.grid_z == 1);
  l = choose_conv1d_launch(Conv1dPass::Update, 2, dense_conv1d_problem(3 * 65535 + 1, 8, 1, 4));
  CHECK(l.grid_x == 1);
  CHECK(l.grid_y == 65535);
  CHECK(l.grid_z == 4);
  l = choose_conv1d_launch(Conv1dPass::Update, 2, dense_conv1d_problem(0, 8, 1, 4));
  CHECK(l.grid_y == 1);  // a plan of an empty batch still names its kernel
}

namespace {

// A one-token update whose x, y, taps and state are dense: 16-byte vectors of channels.
Conv1dProblem dense_update(int64_t batch, int64_t channels, int32_t width, int64_t state_len) {
  Conv1dProblem p = dense_conv1d_problem(batch, channels, 1, width);
  p.weight.stride[0] = width, p.weight.stride[1] = 1;
  p.bias.data = offset_pointer(0), p.bias.stride[0] = 1;
  p.state_len = state_len;
  p.state.stride[0] = channels * state_len, p.state.stride[1] = state_len, p.state.stride[2] = 1;
  return p;
}

}  // namespace

TEST_CASE("conv1d heuristics: the one-token update over dense channels takes 16-byte vectors",
          "[heuristics][causal_conv1d]") {
  const int64_t threads = Conv1dTraits::kUpdateThreads;
  // From kUpdateWideVectorsFrom bytes of x, 16 bytes of channels a thread; 8 below.
  const int64_t wide_batch = Conv1dTraits::kUpdateWideVectorsFrom / (2 * (8 * threads + 8)) + 1;
  Conv1dLaunch l = choose_conv1d_launch(Conv1dPass::Update, 2, dense_update(wide_batch, 8 * threads + 8, 4, 3));
  CHECK(l.kernel == Conv1dKernel::UpdateVectors);
  CHECK(l.vector_bytes == 16);
  CHECK(l.grid_x == 2);  // 8 channels a thread
  CHECK(l.grid_y == wide_batch);
  l = choose_conv1d_launch(Conv1dPass::Update, 2, dense_update(wide_batch - 1, 8 * threads + 8, 4, 3));
  CHECK(l.vector_bytes == 8);
  CHECK(l.grid_x == 3);  // 4 channels a thread
  l = choose_conv1d_launch(Conv1dPass::Update, 4, dense_update(3, 2 * threads + 2, 2, 1));
  CHECK(l.vector_bytes == 8);
  CHECK(l.grid_x == 2);
  // Where 16-byte vectors would not fit, 8-byte ones do.
  l = choose_conv1d_launch(Conv1dPass::Update, 2, dense_update(wide_batch * 2, 8 * threads + 4, 4, 3));
  CHECK(l.vector_bytes == 8);
  Conv1dProblem p = dense_update(3, 64, 4, 3);
  CHECK(choose_conv1d_launch(Conv1dPass::Update, 2, p).kernel == Conv1dKernel::UpdateVectors);
  // Each of these takes the thread-per-channel kernel.
  auto general = [](const Conv1dProblem &q, int elem_bytes) {
    return choose_conv1d_launch(Conv1dPass::Update, elem_bytes, q).kernel == Conv1dKernel::Update;
  };
  CHECK(general(p, 8));                                   // f64
  CHECK(general(dense_update(3, 62, 4, 3), 2));           // channels not a whole number of vectors
  CHECK(general(dense_update(3, 64, 5, 4), 2));           // wider than kUpdateVectorMaxWidth
  CHECK(general(dense_update(3, 64, 4, 5), 2));           // a shifted state longer than W-1
  // Steps of 2 and 4 tokens over [B, C, n] x and y: 8-byte vectors, even where a step of one would take 16.
  auto tokens = [](Conv1dProblem q, int64_t n) {
    q.length = n;
    for (Conv1dView *v : {&q.x, &q.y}) v->stride[0] = q.channels * n, v->stride[1] = n, v->stride[2] = 1;
    return q;
  };
  for (const int64_t n : {2, 4}) {
    CAPTURE(n);
    l = choose_conv1d_launch(Conv1dPass::Update, 2, tokens(dense_update(wide_batch, 8 * threads + 8, 4, 3), n));
    CHECK(l.kernel == Conv1dKernel::UpdateVectors);
    CHECK(l.vector_bytes == 8);
    CHECK(l.grid_x == 3);
  }
  CHECK(general(tokens(p, 3), 2));  // 3 tokens
  CHECK(general(tokens(p, 8), 2));  // past kUpdateVectorTokens
  Conv1dProblem q = tokens(p, 2);
  q.x.stride[1] = 3, q.x.stride[0] = 64 * 3;  // each channel's tokens not contiguous with the next's
  CHECK(general(q, 2));
  q = p;
  q.length = 2;  // two tokens in a view of one
  CHECK(general(q, 2));
  q = p, q.x.stride[1] = 2;  // x strided along C
  CHECK(general(q, 2));
  q = p, q.y.stride[0] = 66;  // y's rows 8-byte aligned at 64 only
  CHECK(general(q, 2));
  q = p, q.weight.stride[0] = 5;  // taps not contiguous
  CHECK(general(q, 2));
  q = p, q.bias.stride[0] = 2;
  CHECK(general(q, 2));
  q = p, q.state.stride[1] = 4;  // state rows padded
  CHECK(general(q, 2));
  q = p, q.state.data = offset_pointer(2);  // misaligned
  CHECK(general(q, 2));
  q = p, q.x.data = offset_pointer(4);
  CHECK(general(q, 2));
  q = p, q.cache_seqlens.data = offset_pointer(0), q.state_len = 7;  // a circular state (of rows of 14 bytes)
  CHECK(general(q, 2));
}

TEST_CASE("conv1d heuristics: a circular state of 16-, 32- or 64-byte rows takes the circular-rows kernel",
          "[heuristics][causal_conv1d]") {
  auto circular = [](int64_t batch, int64_t channels, int64_t state_len) {
    Conv1dProblem p = dense_update(batch, channels, 4, state_len);
    p.cache_seqlens.data = offset_pointer(0);
    return p;
  };
  const int64_t threads = Conv1dTraits::kUpdateThreads;
  Conv1dLaunch l = choose_conv1d_launch(Conv1dPass::Update, 2, circular(7, threads + 1, 16));
  CHECK(l.kernel == Conv1dKernel::UpdateCircularRows);
  CHECK(l.vector_bytes == 32);
  CHECK(l.offsets32);
  CHECK(l.grid_x == 2);
  CHECK(l.grid_y == 7);
  CHECK(l.grid_z == 1);
  CHECK(choose_conv1d_launch(Conv1dPass::Update, 2, circular(3, 8, 8)).vector_bytes == 16);
  CHECK(choose_conv1d_launch(Conv1dPass::Update, 4, circular(3, 8, 16)).vector_bytes == 64);
  CHECK(choose_conv1d_launch(Conv1dPass::Update, 4, circular(3, 8, 4)).vector_bytes == 16);
  Conv1dProblem q = circular(3, 8, 16);
  q.length = 5;  // several tokens
  CHECK(choose_conv1d_launch(Conv1dPass::Update, 2, q).kernel == Conv1dKernel::UpdateCircularRows);
  q = circular(3, 8, 16), q.state.stride[1] = 24;  // rows padded to 48 bytes: still 16-byte aligned
  CHECK(choose_conv1d_launch(Conv1dPass::Update, 2, q).kernel == Conv1dKernel::UpdateCircularRows);
  // Each of these takes the thread-per-channel kernel.
  auto general = [](const Conv1dProblem &p, int elem_bytes) {
    return choose_conv1d_launch(Conv1dPass::Update, elem_bytes, p).kernel == Conv1dKernel::Update;
  };
  CHECK(general(circular(3, 8, 12), 2));   // 24 bytes: not a power of two
  CHECK(general(circular(3, 8, 64), 2));   // 128 bytes: past kMaxRowBytes
  CHECK(general(circular(3, 8, 4), 2));    // 8 bytes
  q = circular(3, 8, 16), q.state.stride[1] = 20;  // 40-byte rows: not 16-byte aligned
  CHECK(general(q, 2));
  q = circular(3, 8, 16), q.state.stride[0] = 8 * 16 + 4;
  CHECK(general(q, 2));
  q = circular(3, 8, 16), q.state.data = offset_pointer(8);
  CHECK(general(q, 2));
  q = circular(3, 8, 16), q.state.stride[2] = 2, q.state.stride[1] = 32;  // strided along S
  CHECK(general(q, 2));
  CHECK(general(dense_update(3, 8, 4, 16), 2));  // shifted, not circular
  q = circular(3, 8, 16), q.x.stride[0] = int64_t{1} << 30;  // offsets past 2^31: 64-bit ones
  CHECK(general(q, 2));
  CHECK_FALSE(choose_conv1d_launch(Conv1dPass::Update, 2, q).offsets32);
  // A batch past kMaxGridY rows of blocks: the rest along z.
  l = choose_conv1d_launch(Conv1dPass::Update, 2, circular(65535 * 2 + 1, 8, 16));
  CHECK(l.grid_y == 65535);
  CHECK(l.grid_z == 3);
}

TEST_CASE("conv1d heuristics: the update computes 32-bit offsets where every offset fits",
          "[heuristics][causal_conv1d]") {
  auto offsets32 = [](const Conv1dProblem &p) {
    return choose_conv1d_launch(Conv1dPass::Update, 2, p).offsets32;
  };
  const int64_t batch = Conv1dUpdateOffsetsTraits::kInt32From / 62 + 1;  // B*C from kInt32From up
  Conv1dProblem p = dense_update(batch, 62, 5, 4);  // the thread-per-channel kernel
  p.state_rows = batch;
  REQUIRE(choose_conv1d_launch(Conv1dPass::Update, 2, p).kernel == Conv1dKernel::Update);
  CHECK(offsets32(p));
  p.length = 4, p.x.stride[0] = 62 * 4, p.x.stride[1] = 4, p.y = p.x;  // several tokens
  CHECK(offsets32(p));
  CHECK_FALSE(offsets32(dense_update(batch - 2, 62, 5, 4)));  // B*C under kInt32From
  CHECK_FALSE(offsets32(dense_update(batch, 62, Conv1dUpdateOffsetsTraits::kInt32MaxWidth + 1, 8)));
  // The largest offset of an operand at 2^31 - 1, and one past it.
  const int64_t reach = INT32_MAX;
  Conv1dProblem q = p;
  q.x.stride[0] = (reach - 61 * 4 - 3) / (batch - 1);  // offsets up to (B-1) stride[0] + 61 * 4 + 3
  CHECK(offsets32(q));
  q.x.stride[0] += 1;
  CHECK_FALSE(offsets32(q));
  q = p, q.state.stride[0] = -(reach / 2);  // negative strides count by magnitude
  CHECK_FALSE(offsets32(q));
  q = p, q.weight.stride[1] = reach;
  CHECK_FALSE(offsets32(q));
  q = p, q.bias.stride[0] = reach;
  CHECK_FALSE(offsets32(q));
  q = p, q.cache_seqlens.data = offset_pointer(0), q.cache_seqlens.stride[0] = reach;
  CHECK_FALSE(offsets32(q));
  q = p, q.state_indices.data = offset_pointer(0), q.state_indices.stride[0] = reach;
  CHECK_FALSE(offsets32(q));
  q = p, q.state_rows = int64_t{1} << 31;  // a pool of 2^31 rows
  CHECK_FALSE(offsets32(q));
  // The vector kernel keeps its 64-bit offsets.
  CHECK_FALSE(offsets32(dense_update(batch, 64, 4, 3)));
}

TEST_CASE("conv1d heuristics: the backward's partial-sum slots fit the workspace", "[heuristics][causal_conv1d]") {
  for (const int bytes : {2, 4, 8})
    for (const int64_t batch : {1, 3})
      for (const int64_t channels : {8, 64, 1000})
        for (const int64_t length : {1, 8, 255, 256, 257, 4096, 65536, 1000003}) {
          CAPTURE(bytes, batch, channels, length);
          const size_t workspace =
              baracuda::kernels::causal_conv1d_backward_workspace(batch, channels, length, 4, bytes == 8);
          const size_t slot_bytes = static_cast<size_t>(channels) * 5 * (bytes == 8 ? 8 : 4);
          for (const Conv1dProblem &p : {dense_conv1d_problem(batch, channels, length, 4),
                                         channels_last(batch, channels, length)}) {
            const Conv1dLaunch l = choose_conv1d_launch(Conv1dPass::Backward, bytes, p);
            CHECK(l.partial_slots >= batch);
            CHECK(static_cast<size_t>(l.partial_slots) * slot_bytes <= workspace);
          }
        }
}

TEST_CASE("conv1d heuristics: the channel tiles' chunk halves while the grid would be under a wave",
          "[heuristics][causal_conv1d]") {
  using baracuda::kernels::conv1d_channel_chunk;
  const int64_t threads = Conv1dTraits::kThreads;
  for (const Conv1dPass pass : kPasses) {
    const bool backward = pass == Conv1dPass::Backward;
    const int64_t blocks = Conv1dTraits::channel_blocks(backward), chunk = Conv1dTraits::max_channel_chunk(backward);
    const int64_t shortest = Conv1dTraits::min_channel_chunk(backward, 1);  // of rows of 1 step (the shortest rows')
    CAPTURE(backward);
    CHECK(conv1d_channel_chunk(pass, 1, blocks * threads, chunk) == chunk);  // enough channel groups alone
    CHECK(conv1d_channel_chunk(pass, 1, threads, blocks * chunk) == chunk);  // enough chunks alone
    CHECK(conv1d_channel_chunk(pass, 1, threads, blocks * chunk / 2) == chunk / 2);
    CHECK(conv1d_channel_chunk(pass, 2, threads, blocks * chunk / 4) == chunk / 2);
    // 16 groups of channels by L / chunk chunks of at least blocks / 16: chunks of at most 64
    CHECK(conv1d_channel_chunk(pass, 1, 16 * threads, 4 * blocks) == std::min<int64_t>(chunk, 64));
    CHECK(conv1d_channel_chunk(pass, 1, threads, 1) == shortest);
    CHECK(conv1d_channel_chunk(pass, 1, 1, int64_t{1} << 40) == chunk);
    // Enough blocks, rows under half a chunk: the shortest power of two that holds a row (one chunk a row either way).
    const int64_t holds_128 = std::min<int64_t>(chunk, std::max<int64_t>(128, shortest));
    CHECK(conv1d_channel_chunk(pass, blocks, blocks * threads, 100) == holds_128);
    CHECK(conv1d_channel_chunk(pass, blocks, blocks * threads, 128) == holds_128);
    CHECK(conv1d_channel_chunk(pass, blocks, blocks * threads, 129) == chunk);
    CHECK(conv1d_channel_chunk(pass, blocks, blocks * threads, 1) == shortest);
    // Empty problems and extents whose product would pass 2^63.
    CHECK(conv1d_channel_chunk(pass, 0, threads, 1000) == chunk);
    CHECK(conv1d_channel_chunk(pass, 2, 0, 1000) == chunk);
    CHECK(conv1d_channel_chunk(pass, int64_t{1} << 40, int64_t{1} << 40, chunk) == chunk);
  }
  // The grid's own rows (session 17's probe, bf16 C2048): the backward's chunk at B 1 and 8.
  CHECK(conv1d_channel_chunk(Conv1dPass::Backward, 8, 2048, 128) == 32);
  CHECK(conv1d_channel_chunk(Conv1dPass::Backward, 1, 2048, 1024) == 32);
  CHECK(conv1d_channel_chunk(Conv1dPass::Backward, 8, 2048, 512) == 128);
  CHECK(conv1d_channel_chunk(Conv1dPass::Backward, 1, 2048, 4096) == 128);
  CHECK(conv1d_channel_chunk(Conv1dPass::Forward, 8, 2048, 4096) == 64);
  // The forward's shortest chunk: 16 on rows of at most 512 steps, 32 on longer ones.
  CHECK(conv1d_channel_chunk(Conv1dPass::Forward, 1, 2048, 128) == 16);
  CHECK(conv1d_channel_chunk(Conv1dPass::Forward, 1, 2048, 512) == 16);
  CHECK(conv1d_channel_chunk(Conv1dPass::Forward, 1, 2048, 1024) == 32);
  CHECK(conv1d_channel_chunk(Conv1dPass::Forward, 1, 2048, 513) == 32);
}

TEST_CASE("conv1d heuristics: the channel tiles' backward takes a channel a thread, the forward 4 bytes",
          "[heuristics][causal_conv1d]") {
  const int64_t threads = Conv1dTraits::kThreads, channels = 2048 + 8;
  for (const int bytes : {2, 4}) {
    CAPTURE(bytes);
    const Conv1dProblem p = channels_last(2, channels, 512);
    const Conv1dLaunch fwd = choose_conv1d_launch(Conv1dPass::Forward, bytes, p);
    const Conv1dLaunch bwd = choose_conv1d_launch(Conv1dPass::Backward, bytes, p);
    REQUIRE(fwd.kernel == Conv1dKernel::StagedChannelTiles);
    REQUIRE(bwd.kernel == Conv1dKernel::StagedChannelTiles);
    const int64_t forward_vec = 4 / bytes;
    CHECK(fwd.grid_x == (channels / forward_vec + threads - 1) / threads);
    CHECK(bwd.grid_x == (channels + threads - 1) / threads);
  }
}

TEST_CASE("conv1d heuristics: the forward over 2^31 rows or more takes the time walk, not the time tiles",
          "[heuristics][causal_conv1d]") {
  // (the time tiles split a row into (b, c) by a 32-bit FastDivisor; rows of
  // 1000 vectors: neither a power of two for the direct rows nor one tile)
  for (const int bytes : {2, 4}) {
    CAPTURE(bytes);
    const int64_t length = 1000 * (16 / bytes);
    const Conv1dProblem below = dense_conv1d_problem(2, (int64_t{1} << 30) - 1, length, 4);
    const Conv1dProblem at = dense_conv1d_problem(2, int64_t{1} << 30, length, 4);
    CHECK(kernel_of(Conv1dPass::Forward, bytes, below) == Conv1dKernel::StagedTimeTiles);
    CHECK(kernel_of(Conv1dPass::Forward, bytes, at) == Conv1dKernel::WalkTime);
    CHECK(kernel_of(Conv1dPass::Backward, bytes, at) == Conv1dKernel::StagedTimeTiles);
  }
}

TEST_CASE("conv1d heuristics: grids past 2^31 blocks are not served", "[heuristics][causal_conv1d]") {
  CHECK(baracuda::kernels::conv1d_grid_fits(dense_conv1d_problem(1, 1, int64_t{1} << 40, 4)));
  CHECK_FALSE(baracuda::kernels::conv1d_grid_fits(dense_conv1d_problem(1, 1, int64_t{1} << 42, 4)));
  CHECK_FALSE(baracuda::kernels::conv1d_grid_fits(dense_conv1d_problem(1, int64_t{1} << 40, 1, 4)));
}

TEST_CASE("conv1d heuristics: plan info names the kernel of the dense layout", "[heuristics][causal_conv1d]") {
  auto name_of = [](int32_t op, baracuda_dtype_t dtype, int64_t length, int32_t width) {
    baracuda_causal_conv1d_desc_t d = BARACUDA_CAUSAL_CONV1D_DESC_INIT;
    d.header.op = op;
    d.dtype = dtype;
    d.width = width;
    d.batch = 2;
    d.channels = 8;
    d.seq_len = length;
    d.state_len = width;
    const baracuda_select_options_t opts = options_for(90);
    baracuda_plan_t plan = nullptr;
    REQUIRE(baracuda_plan_select(&d.header, &opts, &plan) == BARACUDA_STATUS_SUCCESS);
    baracuda_plan_info_t info = BARACUDA_PLAN_INFO_INIT;
    REQUIRE(baracuda_plan_get_info(plan, &info) == BARACUDA_STATUS_SUCCESS);
    baracuda_plan_destroy(plan);
    return std::string(info.kernel_name);
  };
  // (x of 64 MiB: past the register-fed forward's cap, which smaller problems take)
  CHECK(name_of(BARACUDA_OP_CAUSAL_CONV1D, BARACUDA_DTYPE_BF16, int64_t{1} << 21, 4) ==
        "causal_conv1d_staged_time_tiles_w4_bf16");
  CHECK(name_of(BARACUDA_OP_CAUSAL_CONV1D, BARACUDA_DTYPE_BF16, 512, 4) == "causal_conv1d_direct_rows_w4_bf16");
  CHECK(name_of(BARACUDA_OP_CAUSAL_CONV1D_BACKWARD, BARACUDA_DTYPE_BF16, 512, 4) ==
        "causal_conv1d_backward_staged_row_groups_w4_bf16");
  CHECK(name_of(BARACUDA_OP_CAUSAL_CONV1D_BACKWARD, BARACUDA_DTYPE_BF16, 4096, 4) ==
        "causal_conv1d_backward_register_time_tiles_w4_bf16");
  CHECK(name_of(BARACUDA_OP_CAUSAL_CONV1D_BACKWARD, BARACUDA_DTYPE_BF16, 1024, 4) ==
        "causal_conv1d_backward_register_rows_w4_bf16");
  CHECK(name_of(BARACUDA_OP_CAUSAL_CONV1D_BACKWARD, BARACUDA_DTYPE_F64, 4096, 4) ==
        "causal_conv1d_backward_walk_time_w4_f64");
  CHECK(name_of(BARACUDA_OP_CAUSAL_CONV1D_BACKWARD, BARACUDA_DTYPE_F32, 7, 3) ==
        "causal_conv1d_backward_walk_time_w3_f32");
  CHECK(name_of(BARACUDA_OP_CAUSAL_CONV1D_UPDATE, BARACUDA_DTYPE_F16, 1, 2) == "causal_conv1d_update_w2_f16");
}

TEST_CASE("conv1d heuristics: f64's forward and backward take the walks, its update update_kernel with 64-bit offsets",
          "[heuristics][causal_conv1d]") {
  // Dense rows of every length the others' staged kernels take, and channels-last.
  for (const int64_t length : {16, 256, 1024, 2048, 4096, 16384, 65536}) {
    CAPTURE(length);
    for (const Conv1dPass pass : {Conv1dPass::Forward, Conv1dPass::Backward}) {
      CHECK(kernel_of(pass, 8, dense_conv1d_problem(2, 3, length, 4)) == Conv1dKernel::WalkTime);
      CHECK(kernel_of(pass, 8, dense_conv1d_problem(1, 3, length, 2)) == Conv1dKernel::WalkTime);
    }
    CHECK(kernel_of(Conv1dPass::Backward, 8, channels_last(2, 64, length)) == Conv1dKernel::WalkChannels);
  }
  // A circular state of 4 entries (32-byte rows in f64, 16 in f32), and a
  // batch past the 32-bit offsets' threshold.
  Conv1dProblem q = dense_update(3, 8, 4, 4);
  q.cache_seqlens.data = offset_pointer(0);
  Conv1dLaunch l = choose_conv1d_launch(Conv1dPass::Update, 8, q);
  CHECK(l.kernel == Conv1dKernel::Update);
  CHECK_FALSE(l.offsets32);
  CHECK(choose_conv1d_launch(Conv1dPass::Update, 4, q).kernel == Conv1dKernel::UpdateCircularRows);
  const int64_t batch = Conv1dUpdateOffsetsTraits::kInt32From / 62 + 1;
  l = choose_conv1d_launch(Conv1dPass::Update, 8, dense_update(batch, 62, 5, 4));
  CHECK(l.kernel == Conv1dKernel::Update);
  CHECK_FALSE(l.offsets32);
  CHECK(choose_conv1d_launch(Conv1dPass::Update, 4, dense_update(batch, 62, 5, 4)).offsets32);
}
