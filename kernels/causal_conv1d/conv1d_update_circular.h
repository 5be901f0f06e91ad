// When the decoding update takes the circular-rows kernel
// (conv1d_update_circular.cuh), and its knobs. Host-only, no CUDA.
#pragma once

#include <cstdint>

#include "causal_conv1d/conv1d_problem.h"

namespace baracuda::kernels {

struct Conv1dUpdateCircularTraits {
  // State rows a thread loads whole, as 16-byte vectors: 16, 32 or 64 bytes
  // (16 bf16 entries are one 32-byte sector, which the gather of W-1 entries
  // reads whole anyway).
  static constexpr int kMinRowBytes = 16;
  static constexpr int kMaxRowBytes = 64;
  // Batch rows a thread takes (sharing its taps): more rows in flight per
  // register.
  static constexpr int kRowsPerThread = 1;
  // Blocks of kUpdateThreads per SM the kernel is compiled for (its
  // registers): the rows in flight are a large batch's speed. At 24 (40
  // registers) a row a thread, at 16 (64) two, spill nothing at widths up to
  // 4 of 2- and 4-byte x over rows of up to 16 entries; the others spilled
  // (up to 280 bytes) and stay uncapped.
  static constexpr int kBlocks = 24;
  static constexpr int kBlocksTwoRows = 16;
  static constexpr int blocks(int width, int elem_bytes, int row_bytes, int rows) {
    if (width > 4 || elem_bytes > 4 || row_bytes / elem_bytes > 16) return 1;
    return rows == 1 ? kBlocks : kBlocksTwoRows;
  }
};

// The state row's bytes where the circular-rows kernel serves p, else 0: a
// circular state (CACHE_SEQLENS) whose rows are contiguous, 16, 32 or 64
// bytes, and 16-byte aligned (the pointer and both outer strides).
inline int update_circular_row_bytes(const Conv1dProblem &p, int elem_bytes) {
  const int64_t bytes = p.state_len * elem_bytes;
  const bool sized = bytes >= Conv1dUpdateCircularTraits::kMinRowBytes &&
                     bytes <= Conv1dUpdateCircularTraits::kMaxRowBytes && (bytes & (bytes - 1)) == 0;
  const bool aligned = reinterpret_cast<uintptr_t>(p.state.data) % 16 == 0 && p.state.stride[0] * elem_bytes % 16 == 0 &&
                       p.state.stride[1] * elem_bytes % 16 == 0;
  return p.cache_seqlens.data && p.state.stride[2] == 1 && sized && aligned ? static_cast<int>(bytes) : 0;
}

}  // namespace baracuda::kernels
