// How the CUDA-core attention kernels cut a problem: the head-size class,
// the tiles, grids and shared memory that follow, and the backward's
// workspace. Host-only, no CUDA: tested on the CPU.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sdpa/sdpa_simt_traits.h"

namespace baracuda::kernels {

// max(D, Dv) rounded up to a class of SdpaSimtTraits::kClasses.
constexpr int sdpa_simt_head_class(int head_dim, int head_dim_v) {
  const int widest = head_dim > head_dim_v ? head_dim : head_dim_v;
  for (int c : SdpaSimtTraits::kClasses)
    if (widest <= c) return c;
  return 0;  // over 256: the plan layer turns such problems away first
}

// Elements of the padding after each shared-memory row: one 16-byte vector,
// which makes every row stride (D, Dv and the tiles' widths being multiples
// of 8) an odd number of 16-byte units, so 8 lanes reading 8 consecutive rows
// hit 8 different bank groups.
constexpr int sdpa_simt_row_pad(int elem_bytes) { return 16 / elem_bytes; }

// Shared memory of the forward: Q [rows][D], K [cols][D], V [cols][Dv] and
// P [rows][cols], rows padded.
constexpr size_t sdpa_simt_forward_smem(int elem_bytes, int head_dim, int head_dim_v, SdpaSimtTile t) {
  const int pad = sdpa_simt_row_pad(elem_bytes);
  return static_cast<size_t>(elem_bytes) *
         (static_cast<size_t>(t.rows + t.cols) * (head_dim + pad) + static_cast<size_t>(t.cols) * (head_dim_v + pad) +
          static_cast<size_t>(t.rows) * (t.cols + pad));
}

// Shared memory of a backward kernel: the row side's [rows][D] and [rows][Dv]
// (K and V for dk/dv; Q and dout for dq), the column side's [cols][D] and
// [cols][Dv], two [rows][cols] tiles (P and dS) and two per-column values
// (lse and rowsum(dout * out) for dk/dv).
constexpr size_t sdpa_simt_backward_smem(int elem_bytes, int head_dim, int head_dim_v, SdpaSimtTile t) {
  const int pad = sdpa_simt_row_pad(elem_bytes);
  return static_cast<size_t>(elem_bytes) * (static_cast<size_t>(t.rows + t.cols) * (head_dim + head_dim_v + 2 * pad) +
                                            2 * static_cast<size_t>(t.rows) * (t.cols + pad) + 2 * t.cols);
}

// The least shared memory a block of the pass takes for these head sizes
// (its compact tiles): what a GPU must offer per block to run it at all.
constexpr size_t sdpa_simt_least_smem(bool backward, int elem_bytes, int head_dim, int head_dim_v) {
  const int head_class = sdpa_simt_head_class(head_dim, head_dim_v);
  return backward ? sdpa_simt_backward_smem(elem_bytes, head_dim, head_dim_v,
                                            SdpaSimtTraits::backward(elem_bytes, head_class, true))
                  : sdpa_simt_forward_smem(elem_bytes, head_dim, head_dim_v,
                                           SdpaSimtTraits::forward(elem_bytes, head_class, true));
}

// Blocks of a grid of ceil(length / tile) tiles per (b, h): 0 when the grid
// would pass 2^31 - 1 blocks (the kernel then answers UNSUPPORTED).
constexpr int64_t sdpa_simt_blocks(int64_t batch, int64_t heads, int64_t length, int tile) {
  const int64_t tiles = (length + tile - 1) / tile;
  if (tiles == 0 || heads == 0 || batch == 0) return 0;
  const int64_t limit = (int64_t{1} << 31) - 1;
  if (tiles > limit / heads || tiles * heads > limit / batch) return -1;
  return tiles * heads * batch;
}

// The backward's workspace: rowsum(dout * out) per query row, [B, Hq, Q]
// contiguous, 8 bytes a row whatever the dtype (f64's size; f32 uses the first
// half), so that one size serves both dtypes.
constexpr size_t sdpa_simt_backward_workspace(int64_t batch, int64_t heads_q, int64_t queries) {
  return static_cast<size_t>(batch) * static_cast<size_t>(heads_q) * static_cast<size_t>(queries) * 8;
}

}  // namespace baracuda::kernels
