// The decoding update's choices beyond conv1d_heuristics.h: 32-bit offsets
// where every offset fits, and when a circular state takes the
// circular-rows kernel (conv1d_update_circular.cuh), with its knobs.
// Host-only, no CUDA.
#pragma once

#include <climits>
#include <cstdint>

#include "causal_conv1d/conv1d_problem.h"

namespace baracuda::kernels {

struct Conv1dUpdateCircularTraits {
  // State rows a thread loads whole, as 16-byte vectors: 16, 32 or 64 bytes
  // (16 bf16 entries are one 32-byte sector, which the gather of W-1 entries
  // reads whole anyway).
  static constexpr int kMinRowBytes = 16;
  static constexpr int kMaxRowBytes = 64;
  // Blocks of kUpdateThreads per SM the kernel is compiled for (its
  // registers): the threads in flight are a large batch's speed. Widths up
  // to 4 of 2- and 4-byte x over rows of up to 32 bytes spill nothing at 32
  // (32 registers) or 24 (40), rows of 64 bytes and up to 16 entries at 24;
  // the others spilled (up to 280 bytes) and stay uncapped. Without a pool
  // 24 ran faster than 32, through a pool slower (session 18, H200, bf16,
  // circular state of 16, C5376, two probes: B256 25.25 -> 24.46 us, pool
  // B256 24.85 -> 25.53).
  static constexpr int kBlocks = 24;
  static constexpr int kBlocksPooled = 32;
  static constexpr int kBlocksWideRows = 24;
  static constexpr int blocks(int width, int elem_bytes, int row_bytes, bool pooled) {
    if (width > 4 || elem_bytes > 4 || row_bytes / elem_bytes > 16) return 1;
    return row_bytes > 32 ? kBlocksWideRows : pooled ? kBlocksPooled : kBlocks;
  }
};

// Every offset of view v over extents n (its first `rank` axes) is under
// 2^31 in magnitude: 32-bit offset arithmetic cannot overflow.
inline bool offsets_fit_int32(const Conv1dView &v, const int64_t *n, int rank) {
  int64_t reach = 0;
  for (int a = 0; a < rank; ++a) {
    const int64_t s = v.stride[a] < 0 ? -v.stride[a] : v.stride[a];
    if (n[a] > 1 && s > (int64_t{INT32_MAX} - reach) / (n[a] - 1)) return false;
    reach += (n[a] - 1) * s;
  }
  return true;
}

// The update's kernels may compute their offsets, indices and counters in
// 32 bits: every offset of every operand under 2^31, and the extents with
// room for a chunk of tokens past them.
inline bool update_offsets_fit_int32(const Conv1dProblem &p) {
  constexpr int64_t kRoom = int64_t{INT32_MAX} - 64;
  const int64_t rows[3] = {p.batch, p.channels, p.length}, state[3] = {p.state_rows, p.channels, p.state_len},
                taps[2] = {p.channels, p.width}, channels[1] = {p.channels}, batch[1] = {p.batch};
  return p.batch < kRoom && p.channels < kRoom && p.length < kRoom && p.state_len < kRoom && p.state_rows < kRoom &&
         offsets_fit_int32(p.x, rows, 3) && offsets_fit_int32(p.y, rows, 3) && offsets_fit_int32(p.state, state, 3) &&
         offsets_fit_int32(p.weight, taps, 2) && offsets_fit_int32(p.bias, channels, 1) &&
         offsets_fit_int32(p.cache_seqlens, batch, 1) && offsets_fit_int32(p.state_indices, batch, 1);
}

// update_kernel takes 32-bit offsets (where they fit; not f64's, which has
// one form) from this many batch
// rows by channels up and to this width: fewer instructions a thread paid
// from B64 C5376 up (session 18, H200: two tokens 6.34 -> 5.66 us, B256
// 20.0 -> 16.0; W 6 6.91 -> 5.89) but cost a B1 step of two tokens 2.04 ->
// 2.32 us and W 8 at B64 8.86 -> 9.45.
struct Conv1dUpdateOffsetsTraits {
  static constexpr int64_t kInt32From = int64_t{1} << 16;
  static constexpr int kInt32MaxWidth = 6;
};
inline bool update_kernel_offsets32(const Conv1dProblem &p, int elem_bytes) {
  return elem_bytes <= 4 && p.batch * p.channels >= Conv1dUpdateOffsetsTraits::kInt32From &&
         p.width <= Conv1dUpdateOffsetsTraits::kInt32MaxWidth && update_offsets_fit_int32(p);
}

// The state row's bytes where the circular-rows kernel serves p, else 0: a
// circular state (CACHE_SEQLENS) of 2- or 4-byte elements (f64, with no
// speed target, takes update_kernel) whose rows are contiguous, 16, 32 or 64
// bytes, and 16-byte aligned (the pointer and both outer strides), with
// 32-bit offsets.
inline int update_circular_row_bytes(const Conv1dProblem &p, int elem_bytes) {
  const int64_t bytes = p.state_len * elem_bytes;
  const bool sized = bytes >= Conv1dUpdateCircularTraits::kMinRowBytes &&
                     bytes <= Conv1dUpdateCircularTraits::kMaxRowBytes && (bytes & (bytes - 1)) == 0;
  const bool aligned = reinterpret_cast<uintptr_t>(p.state.data) % 16 == 0 &&
                       p.state.stride[0] * elem_bytes % 16 == 0 && p.state.stride[1] * elem_bytes % 16 == 0;
  return elem_bytes <= 4 && p.cache_seqlens.data && p.state.stride[2] == 1 && sized && aligned && update_offsets_fit_int32(p)
             ? static_cast<int>(bytes)
             : 0;
}

}  // namespace baracuda::kernels
