// The CUDA-core attention kernels' tuning knobs, all in one place. Plain
// constants, host-includable: the heuristics size tiles, grids and shared
// memory from them and the kernels compile against them.
//
// Every kernel is a 16 x 16 grid of threads over a tile of `rows` x `cols`
// scores, each thread a (rows / 16) x (cols / 16) block of them, strided by 16
// in both directions (so a half-warp reads one row of the row operand, a
// broadcast, and 16 consecutive rows of the column operand). Its accumulator
// (O in the forward, dK and dV or dQ in the backward) is the same rows by
// head-size columns, in 16-byte vectors strided by 16.
//
// The head-size class is max(D, Dv) rounded up to 64, 128 or 256: it fixes
// the accumulators' registers and the shared-memory budget; the exact D and
// Dv are runtime values.
#pragma once

#include <cstdint>

namespace baracuda::kernels {

struct SdpaSimtTile {
  int rows;            // forward, dq: queries; dk/dv: keys
  int cols;            // forward, dq: keys; dk/dv: queries
  int min_blocks;      // blocks per SM the kernel is compiled for (a register cap)
};

struct SdpaSimtTraits {
  static constexpr int kThreadsX = 16;  // threads across a tile's columns
  static constexpr int kThreadsY = 16;  // threads across a tile's rows
  static constexpr int kThreads = kThreadsX * kThreadsY;
  // Head-size classes: max(D, Dv) is rounded up to one of these.
  static constexpr int kClasses[3] = {64, 128, 256};
  // Threads per block of the backward's rowsum(dout * out) pass, a warp per row.
  static constexpr int kDeltaThreads = 256;

  // Forward tiles per element size (4: f32, 8: f64) and class. f32 at 64:
  // 8 x 4 scores and 8 x 4 outputs per thread, two blocks per SM. The
  // compact tiles serve GPUs with less shared memory per block than Hopper's
  // 227 KiB (sm_80: 163 KiB, sm_86 / sm_89: 99 KiB).
  static constexpr SdpaSimtTile forward(int elem_bytes, int head_class, bool compact) {
    if (elem_bytes == 4) {
      if (head_class == 64) return compact ? SdpaSimtTile{64, 64, 2} : SdpaSimtTile{128, 64, 2};
      if (head_class == 128) return compact ? SdpaSimtTile{32, 32, 2} : SdpaSimtTile{64, 64, 1};
      return compact ? SdpaSimtTile{16, 32, 1} : SdpaSimtTile{64, 32, 1};
    }
    if (head_class == 64) return compact ? SdpaSimtTile{32, 32, 2} : SdpaSimtTile{64, 64, 1};
    if (head_class == 128) return compact ? SdpaSimtTile{16, 32, 1} : SdpaSimtTile{64, 32, 1};
    return compact ? SdpaSimtTile{16, 16, 1} : SdpaSimtTile{32, 32, 1};
  }
  // Backward tiles (the dk/dv and the dq kernels share them): two
  // accumulators of rows x class per block in dk/dv, one in dq.
  static constexpr SdpaSimtTile backward(int elem_bytes, int head_class, bool compact) {
    if (elem_bytes == 4) {
      if (head_class == 64) return compact ? SdpaSimtTile{32, 32, 2} : SdpaSimtTile{64, 64, 1};
      if (head_class == 128) return compact ? SdpaSimtTile{32, 32, 1} : SdpaSimtTile{64, 32, 1};
      return compact ? SdpaSimtTile{16, 16, 1} : SdpaSimtTile{32, 32, 1};
    }
    if (head_class == 64) return compact ? SdpaSimtTile{32, 16, 1} : SdpaSimtTile{64, 32, 1};
    if (head_class == 128) return compact ? SdpaSimtTile{16, 16, 1} : SdpaSimtTile{32, 32, 1};
    return SdpaSimtTile{16, 16, 1};  // 137 KiB at D = Dv = 256: past sm_86 / sm_89's 99
  }
};

}  // namespace baracuda::kernels
