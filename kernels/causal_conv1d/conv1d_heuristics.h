// Which causal conv1d kernel serves a problem, and its grid: one function for
// the entry points (which know the strides and pointers only at run) and the
// plan (which names the kernel of the dense layout). Host-only, no CUDA.
//
// Layouts whose rows allow 16-byte copies take the staged kernels: time
// tiles where every operand has stride 1 along L ([B, C, L]; the backward's
// short rows as row groups, several whole rows a tile; the forward's rows
// of a power of two of vectors that fit a block, or of a small problem, load
// into registers instead; the backward over rows of whole tiles takes the
// register tiles, a block one or several tiles), channel tiles where it has
// stride 1 along C (channels-last; 2- and 4-byte types only: an
// f64 box would not fit the ring); with packed sequences (SEQ_IDX) only the
// channel tiles, which walk a window of ids beside the inputs'. Every other
// layout (misaligned pointers, extents that are not a multiple of the vector,
// general strides), [B, C, L] with SEQ_IDX, and the f64 forward, takes an
// element-wise kernel along the smaller stride of x: the time walk (a thread
// a timestep, a warp a stretch of a row) or the channel walk (a thread a
// channel, walking a chunk of timesteps).
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <initializer_list>

#include "causal_conv1d/conv1d_problem.h"
#include "causal_conv1d/conv1d_traits.h"
#include "causal_conv1d/conv1d_update_choice.h"

namespace baracuda::kernels {

enum class Conv1dPass { Forward, Backward, Update };
enum class Conv1dKernel {
  StagedTimeTiles,
  StagedChannelTiles,
  WalkTime,
  WalkChannels,
  Update,
  StagedRowGroups,
  UpdateVectors,
  UpdateCircularRows,
  DirectRows,
  RegisterTimeTiles,
  RegisterRows,
  StagedChannelBox
};

// The chosen kernel, its grid (x blocks by y rows of blocks, by z for the
// update's batches past 65535) and, for the backward, the dw/db partial-sum
// slots it writes per channel: one per (b, block along L) for the kernels
// along L, per (b, chunk) for the channel grids; and the channel tiles'
// chunk of timesteps. sums_direct: the backward's one slot is DW and DB
// themselves (the row groups and time tiles of a batch of one), no
// reduction after it.
struct Conv1dLaunch {
  Conv1dKernel kernel;
  int64_t grid_x, grid_y;
  int64_t partial_slots = 0;
  int64_t chunk = Conv1dTraits::kChunk;
  int64_t grid_z = 1;
  // UpdateVectors: the bytes of channels a thread takes; UpdateCircularRows: a state row's bytes
  int vector_bytes = 0;
  bool offsets32 = false;  // Update, UpdateCircularRows: 32-bit offsets (conv1d_update_choice.h)
  // The forward's time tiles and direct rows: launched overlapping the kernel
  // before them (Conv1dTraits::kDirectRowsOverlapMaxBlocks).
  bool overlap = false;
  bool sums_direct = false;
  int tiles_per_block = 1;  // RegisterTimeTiles: 2 takes backward_register_tile_pairs_kernel
  // StagedChannelBox: kThreads >> box_group_shift lanes of channels by
  // 1 << box_group_shift time groups of box_steps timesteps a block
  int box_group_shift = 0, box_steps = 0;
};

namespace conv1d_heuristics {

constexpr int64_t kMaxGridY = 65535;
// Timesteps of a tvec block: each warp a segment of 32 * kSegmentSteps.
constexpr int64_t kUnitsPerBlock = int64_t{Conv1dTraits::kThreads} * Conv1dTraits::kSegmentSteps;

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

inline bool aligned(const Conv1dView &v, int64_t bytes) {
  return reinterpret_cast<uintptr_t>(v.data) % static_cast<uintptr_t>(bytes) == 0;
}

// The [B, C, L] operands a pass reads and writes.
struct Conv1dOperands {
  const Conv1dView *view[3];
  int count;
};

// Every operand has stride 1 on axis `fast`, the others a multiple of vec,
// and vec-element alignment; the extent along `fast` a multiple of vec.
inline bool vector_layout(const Conv1dOperands &ops, int elem_bytes, int64_t vec, int fast, int64_t extent) {
  if (extent % vec != 0) return false;
  for (int k = 0; k < ops.count; ++k) {
    const Conv1dView &v = *ops.view[k];
    if (v.stride[fast] != 1 || !aligned(v, elem_bytes * vec)) return false;
    for (int a = 0; a < 3; ++a)
      if (a != fast && v.stride[a] % vec != 0) return false;
  }
  return true;
}

// x blocks along L by the B*C rows: a partial-sum slot per (b, x block).
inline Conv1dLaunch rows_grid(Conv1dKernel k, const Conv1dProblem &p, int64_t x) {
  const int64_t rows = p.batch * p.channels;
  return {k, x, rows < kMaxGridY ? rows : kMaxGridY, p.batch * x};
}

// Rows of `units` vectors staged whole, tile / units rows a tile (a power of
// two of at least kGroupMinVecs, at most half the tile): a block row per
// kGroupTilesPerBlock tiles; a partial-sum slot per b (a row's sums stay in
// its block), written to DW and DB directly where B is 1 (the reduction's
// launch was a third of a short backward's time).
inline bool row_groups_fit(int64_t units, int64_t tile) {
  return units >= Conv1dTraits::kGroupMinVecs && units <= tile / 2 && (units & (units - 1)) == 0;
}
// kGroupTilesPerBlock tiles a block, but no fewer blocks than
// kGroupMinBlocks while there are tiles for them (a batch of one row of
// 2048 channels gave 8 blocks: 0.15x Tri Dao's).
inline Conv1dLaunch row_groups_grid(const Conv1dProblem &p, int64_t units, int64_t tile) {
  const int64_t tiles = ceil_div(p.batch * p.channels, tile / units);
  const int64_t spread = tiles < Conv1dTraits::kGroupMinBlocks ? tiles : Conv1dTraits::kGroupMinBlocks;
  const int64_t packed = ceil_div(tiles, Conv1dTraits::kGroupTilesPerBlock);
  const int64_t blocks = packed > spread ? packed : spread;
  return {Conv1dKernel::StagedRowGroups, 1, blocks < kMaxGridY ? blocks : kMaxGridY, p.batch};
}

// The register-fed forward over [B, C, L] rows (conv1d_direct.cuh): x and y
// hold the B*C rows back to back, rows of `units` vectors (a power of two)
// that fit a block, or any such rows of a problem of at most
// direct_rows_max_bytes of x (2- and 4-byte elements, every width). A block
// takes consecutive vectors. (Rows apart in memory take the time tiles: the
// kernel addressing them too, a run-time branch, lost 15% on dense rows.)
inline bool direct_rows_fit(const Conv1dProblem &p, int elem_bytes, int64_t units) {
  auto flat = [&](const Conv1dView &v) {
    return (p.channels == 1 || v.stride[1] == p.length) && (p.batch == 1 || v.stride[0] == p.channels * p.length);
  };
  const int64_t steps = Conv1dTraits::direct_rows_steps(elem_bytes);
  const bool small = p.batch * p.channels * p.length <= Conv1dTraits::direct_rows_max_bytes(elem_bytes) / elem_bytes;
  return elem_bytes <= 4 && (units & (units - 1)) == 0 && (units <= Conv1dTraits::kThreads * steps || small) &&
         flat(p.x) && flat(p.y) && ceil_div(p.batch * p.channels * units, Conv1dTraits::kThreads * steps) <= INT_MAX;
}

// Blocks of kThreads * vec channels by (b, chunk) pairs of chunk timesteps: the walk and the channel tiles.
inline Conv1dLaunch channel_grid(Conv1dKernel k, const Conv1dProblem &p, int64_t vec, int64_t chunk) {
  const int64_t groups = ceil_div(p.channels, vec), pairs = p.batch * ceil_div(p.length, chunk);
  return {k, ceil_div(groups, Conv1dTraits::kThreads), pairs < kMaxGridY ? pairs : kMaxGridY, pairs, chunk};
}

// The channels-last forward's one-box blocks (conv1d_channel_box.cuh) serve
// problems of at most kChannelBoxMaxBytes of x and widths up to
// kChannelBoxMaxWidth without packed sequences (2- and 4-byte elements, the
// channel tiles' layout): a batch row a grid z, boxes along L in grid y.
inline bool channel_box_fits(const Conv1dProblem &p, int elem_bytes) {
  return !p.seq_idx.data && p.width <= Conv1dTraits::kChannelBoxMaxWidth && p.batch <= kMaxGridY &&
         ceil_div(p.length, Conv1dTraits::kChannelBoxStepsFew) <= kMaxGridY &&
         p.batch * p.channels * p.length * elem_bytes <= Conv1dTraits::kChannelBoxMaxBytes;
}
// kChannelBoxSteps a thread, kChannelBoxStepsFew where that grid would have
// at most kChannelBoxFewBlocks blocks; time groups to make a box of
// kChannelBoxRows timesteps, fewer where the row is shorter.
inline Conv1dLaunch channel_box_grid(const Conv1dProblem &p, int elem_bytes) {
  const int64_t lane_channels = Conv1dTraits::kForwardChannelBytes / elem_bytes;
  const int64_t blocks = ceil_div(p.batch * p.channels * p.length,
                                  Conv1dTraits::kThreads * lane_channels * Conv1dTraits::kChannelBoxSteps);
  const int steps =
      blocks <= Conv1dTraits::kChannelBoxFewBlocks ? Conv1dTraits::kChannelBoxStepsFew : Conv1dTraits::kChannelBoxSteps;
  int group_shift = 0;
  while (group_shift < Conv1dTraits::kChannelBoxMaxGroupShift &&
         (int64_t{steps} << (group_shift + 1)) <= Conv1dTraits::kChannelBoxRows &&
         (int64_t{steps} << group_shift) < p.length)
    ++group_shift;
  const int64_t channels = (Conv1dTraits::kThreads >> group_shift) * lane_channels;
  const int64_t rows = int64_t{steps} << group_shift;
  Conv1dLaunch l{Conv1dKernel::StagedChannelBox, ceil_div(p.channels, channels), ceil_div(p.length, rows)};
  l.grid_z = p.batch;
  l.box_group_shift = group_shift;
  l.box_steps = steps;
  return l;
}

// The update's kernel over vectors of `bytes` of channels
// (conv1d_update_vectors.cuh) serves p: one token, or 2 or 4 over 8-byte
// vectors (kUpdateVectorTokens); 2- or 4-byte x, W <= kUpdateVectorMaxWidth,
// whole vectors of channels; x, y, WEIGHT and BIAS dense along C (x and y
// [B, C, n] contiguous past B; WEIGHT [C, W] contiguous) and aligned to a
// vector, as each batch row's start; the state a shifted [., C, W-1] row
// (not circular), contiguous and aligned likewise.
inline bool update_vectors_fit(const Conv1dProblem &p, int elem_bytes, int bytes) {
  const int64_t vec = bytes / elem_bytes, n = p.length;
  const bool tokens = n == 1 || (bytes == 8 && n <= Conv1dTraits::kUpdateVectorTokens && (n == 2 || n == 4));
  auto dense = [&](const Conv1dView &v) {
    const bool rows = n == 1 ? v.stride[1] == 1 : v.stride[1] == n && v.stride[2] == 1;
    return rows && v.stride[0] % (vec * n) == 0 && aligned(v, bytes);
  };
  const int64_t S = p.width - 1;
  const bool shifted_state = !p.cache_seqlens.data && p.state_len == S && p.state.stride[2] == 1 &&
                             p.state.stride[1] == S && p.state.stride[0] % vec == 0 && aligned(p.state, bytes);
  return tokens && elem_bytes <= 4 && p.width <= Conv1dTraits::kUpdateVectorMaxWidth &&
         p.channels % vec == 0 && dense(p.x) && dense(p.y) && p.weight.stride[1] == 1 &&
         p.weight.stride[0] == p.width && aligned(p.weight, bytes) &&
         (!p.bias.data || (p.bias.stride[0] == 1 && aligned(p.bias, bytes))) && shifted_state;
}

// The bytes of channels a thread of that kernel takes: 16, or 8 for a batch
// of fewer than kUpdateWideVectorsFrom bytes of x (or where only 8 fit); 0
// where neither fits (the thread-per-channel kernel).
inline int update_vector_bytes(const Conv1dProblem &p, int elem_bytes) {
  const int preferred = p.batch * p.channels * elem_bytes < Conv1dTraits::kUpdateWideVectorsFrom ? 8 : 16;
  if (update_vectors_fit(p, elem_bytes, preferred)) return preferred;
  return preferred == 16 && update_vectors_fit(p, elem_bytes, 8) ? 8 : 0;
}

}  // namespace conv1d_heuristics

// The channel tiles' chunk of timesteps for a pass over a problem
// (conv1d_traits.h): from B, C and L alone, so that the backward's workspace
// can hold its slots.
inline int64_t conv1d_channel_chunk(Conv1dPass pass, int64_t batch, int64_t channels, int64_t length) {
  using conv1d_heuristics::ceil_div;
  const bool backward = pass == Conv1dPass::Backward;
  const int64_t blocks = Conv1dTraits::channel_blocks(backward);
  const int64_t per_b = ceil_div(channels, Conv1dTraits::kThreads);
  const int64_t shortest = Conv1dTraits::min_channel_chunk(backward, length);
  int64_t chunk = Conv1dTraits::max_channel_chunk(backward);
  while (chunk > shortest && chunk / 2 >= length) chunk /= 2;  // one chunk a row either way
  // Enough groups of channels alone (or nothing to do): the longest chunk.
  if (per_b == 0 || batch == 0 || per_b >= blocks || batch >= ceil_div(blocks, per_b)) return chunk;
  const int64_t chunks_wanted = ceil_div(blocks, per_b * batch);  // per_b * batch < blocks
  while (chunk > shortest && ceil_div(length, chunk) < chunks_wanted) chunk /= 2;
  return chunk;
}

// Every launch's x extent within 2^31 - 1 blocks: the tvec grid (the widest
// along L), the walk grids, and the one-thread-per-row (B*C) and per-tap
// (C*(W+1)) kernels. False: the problem is not served (UNSUPPORTED).
inline bool conv1d_grid_fits(const Conv1dProblem &p) {
  constexpr int64_t threads = Conv1dTraits::kThreads;
  return conv1d_heuristics::ceil_div(p.length, conv1d_heuristics::kUnitsPerBlock) <= INT_MAX &&
         p.channels / threads < INT_MAX && p.batch * p.channels / threads < INT_MAX &&
         p.channels * (p.width + 1) / threads < INT_MAX;
}

// The kernel of a pass over p (p.batch * p.channels * p.length > 0) whose
// operands, pointers included, are those the pass reads and writes along
// [B, C, L] (forward x, y; backward x, dy, dx), for elements of elem_bytes.
inline Conv1dLaunch choose_conv1d_launch(Conv1dPass pass, int elem_bytes, const Conv1dProblem &p) {
  using namespace conv1d_heuristics;
  using K = Conv1dKernel;
  if (pass == Conv1dPass::Update) {  // blocks of channels by batch rows
    const int bytes = update_vector_bytes(p, elem_bytes);
    const int row_bytes = bytes ? 0 : update_circular_row_bytes(p, elem_bytes);
    const int64_t y = p.batch < 1 ? 1 : p.batch < kMaxGridY ? p.batch : kMaxGridY;
    const int64_t lanes = bytes ? p.channels / (bytes / elem_bytes) : p.channels;
    const K kernel = bytes ? K::UpdateVectors : row_bytes ? K::UpdateCircularRows : K::Update;
    Conv1dLaunch l{kernel, ceil_div(lanes, Conv1dTraits::kUpdateThreads), y};
    l.grid_z = ceil_div(p.batch, y);
    l.vector_bytes = bytes ? bytes : row_bytes;
    l.offsets32 = row_bytes || (!bytes && update_kernel_offsets32(p, elem_bytes));
    return l;
  }
  const bool forward = pass == Conv1dPass::Forward;
  const Conv1dOperands ops = forward ? Conv1dOperands{{&p.x, &p.y}, 2} : Conv1dOperands{{&p.x, &p.dy, &p.dx}, 3};
  const int64_t vec = 16 / elem_bytes;
  // Packed sequences (SEQ_IDX): the time tiles do not mask their windows.
  // f64 (no speed target) takes the element-wise kernels alone, forward and
  // backward: fewer kernels to build.
  if (elem_bytes <= 4 && !p.seq_idx.data && vector_layout(ops, elem_bytes, vec, 2, p.length)) {
    const int64_t threads = Conv1dTraits::kThreads;
    const int64_t group_tile = threads * Conv1dTraits::kBackwardTileSteps;  // the backward's
    const int64_t units = p.length / vec;
    if (forward && direct_rows_fit(p, elem_bytes, units)) {
      const int64_t per_block = threads * Conv1dTraits::direct_rows_steps(elem_bytes);
      Conv1dLaunch l{K::DirectRows, ceil_div(p.batch * p.channels * units, per_block), 1};
      l.overlap = l.grid_x <= Conv1dTraits::kDirectRowsOverlapMaxBlocks;
      return l;
    }
    // The forward's time tiles split rows by a 32-bit FastDivisor: B*C past
    // 2^31 - 1 (x of 16 GiB and more) takes the time walk.
    if (forward && p.batch * p.channels >= (int64_t{1} << 31))
      return rows_grid(K::WalkTime, p, ceil_div(p.length, kUnitsPerBlock));
    // The backward over rows of one or two warps' runs of the register tiles:
    // a warp a run, kThreads / 32 runs a block (past 65535 blocks in grid z).
    const int64_t register_run = 32 * Conv1dTraits::backward_register_tile_steps(elem_bytes);
    if (!forward && Conv1dTraits::register_warp_rows(elem_bytes) &&
        (units == register_run || units == 2 * register_run) && p.width - 1 <= vec) {
      const int64_t blocks = ceil_div(p.batch * p.channels * (units / register_run), threads / 32);
      Conv1dLaunch l{K::RegisterRows, 1, 1, p.batch};
      l.grid_z = ceil_div(blocks, kMaxGridY);
      l.grid_y = ceil_div(blocks, l.grid_z);
      l.sums_direct = p.batch == 1;
      return l;
    }
    if (!forward && row_groups_fit(units, group_tile)) {
      Conv1dLaunch l = row_groups_grid(p, units, group_tile);
      l.sums_direct = p.batch == 1;
      return l;
    }
    const int64_t tile =
        threads * (forward ? Conv1dTraits::kForwardTileSteps : Conv1dTraits::backward_time_tile_steps(elem_bytes));
    const int64_t per_block = Conv1dTraits::time_tiles_per_block(!forward, elem_bytes);
    // The backward over rows of whole tiles whose W-1 inputs before a vector
    // lie in the vector before it: the register tiles, a block one or
    // several tiles of a row (rows past 65535 in grid z, split evenly: 65535
    // rows and a z of one more had put 65534 empty blocks in [8,8192,4096]'s
    // grid).
    const int64_t register_tile = threads * Conv1dTraits::backward_register_tile_steps(elem_bytes);
    const bool registers = !forward && elem_bytes <= 4 && units % register_tile == 0 && p.width - 1 <= vec &&
                           (units == register_tile || Conv1dTraits::register_one_tile_all(elem_bytes));
    Conv1dLaunch l = rows_grid(registers ? K::RegisterTimeTiles : K::StagedTimeTiles, p,
                               registers ? units / register_tile : ceil_div(ceil_div(units, tile), per_block));
    if (registers) {
      l.grid_z = ceil_div(p.batch * p.channels, kMaxGridY);
      l.grid_y = ceil_div(p.batch * p.channels, l.grid_z);
      // Two tiles a block (the slots stay a tile's)
      const int64_t row_tiles = l.grid_x;
      if (Conv1dTraits::register_tile_pairs(elem_bytes, p.width, p.silu) && row_tiles % 2 == 0 &&
          p.batch * p.channels * (row_tiles / 2) >= Conv1dTraits::kBackwardRegisterMinBlocks) {
        l.grid_x = row_tiles / 2;
        l.tiles_per_block = 2;
      }
    }
    // A batch of one whose rows are a block each: block row c is channel c,
    // and its sums are DW and DB (the reduction of one slot after the pass
    // was 5-9% of it: session 18, H200, bf16 [1,2048,4096] 21.6 -> 20.5 us,
    // [1,2048,32768] 126 -> 117, f32 [1,2048,4096] 33.1 -> 31.8).
    l.sums_direct = !forward && p.batch == 1 && l.partial_slots == 1 && p.channels <= kMaxGridY;
    l.overlap = forward;
    return l;
  }
  if (elem_bytes <= 4 && vector_layout(ops, elem_bytes, vec, 1, p.channels)) {
    if (forward && channel_box_fits(p, elem_bytes)) return channel_box_grid(p, elem_bytes);
    return channel_grid(
        K::StagedChannelTiles, p, Conv1dTraits::channel_vec(!forward, elem_bytes),
        conv1d_channel_chunk(pass, p.batch, p.channels, p.length));
  }
  const int64_t st = p.x.stride[2] < 0 ? -p.x.stride[2] : p.x.stride[2];
  const int64_t sc = p.x.stride[1] < 0 ? -p.x.stride[1] : p.x.stride[1];
  if (st <= sc) return rows_grid(K::WalkTime, p, ceil_div(p.length, kUnitsPerBlock));
  return channel_grid(K::WalkChannels, p, 1, Conv1dTraits::kChunk);
}

// The problem with every [B, C, L] operand contiguous and 16-byte aligned:
// the layout a plan names its kernel for.
inline Conv1dProblem dense_conv1d_problem(int64_t batch, int64_t channels, int64_t length, int32_t width) {
  Conv1dProblem p;
  p.batch = batch, p.channels = channels, p.length = length, p.width = width;
  for (Conv1dView *v : {&p.x, &p.y, &p.dy, &p.dx}) {
    v->stride[0] = channels * length;
    v->stride[1] = length;
    v->stride[2] = 1;
  }
  return p;
}

inline const char *conv1d_kernel_label(Conv1dKernel k) {
  switch (k) {
    case Conv1dKernel::StagedTimeTiles:
      return "_staged_time_tiles";
    case Conv1dKernel::RegisterTimeTiles:
      return "_register_time_tiles";
    case Conv1dKernel::RegisterRows:
      return "_register_rows";
    case Conv1dKernel::StagedChannelTiles:
      return "_staged_channel_tiles";
    case Conv1dKernel::StagedChannelBox:
      return "_staged_channel_box";
    case Conv1dKernel::StagedRowGroups:
      return "_staged_row_groups";
    case Conv1dKernel::DirectRows:
      return "_direct_rows";
    case Conv1dKernel::WalkTime:
      return "_walk_time";
    case Conv1dKernel::WalkChannels:
      return "_walk_channels";
    case Conv1dKernel::Update:
    case Conv1dKernel::UpdateVectors:
    case Conv1dKernel::UpdateCircularRows:
      break;
  }
  return "";
}

// Writes "<op><kernel>_w<W>_<dtype>" (e.g. causal_conv1d_staged_time_tiles_w4_bf16,
// causal_conv1d_update_w4_f32): the kernel that serves the pass in the dense layout.
inline void write_dense_conv1d_kernel_name(char *out, size_t size, const char *op, Conv1dPass pass, int elem_bytes,
                                           int64_t batch, int64_t channels, int64_t length, int32_t width,
                                           const char *dtype) {
  const Conv1dLaunch launch =
      choose_conv1d_launch(pass, elem_bytes, dense_conv1d_problem(batch, channels, length, width));
  std::snprintf(out, size, "%s%s_w%d_%s", op, conv1d_kernel_label(launch.kernel), width, dtype);
}

}  // namespace baracuda::kernels
