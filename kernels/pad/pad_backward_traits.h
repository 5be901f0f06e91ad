// Pad backward's tuning knobs, all in one place, measured on the H200 (see
// bench/NOTES.md). Plain constants, host-includable. scripts/variants.sh
// builds a scratch copy with members of this struct patched
// ("PadBackwardTraits.kSumUnits=4") to time other values.
#pragma once

#include <cstdint>

namespace baracuda::kernels {

struct PadBackwardTraits {
  // Units a thread of the rows-of-sums pass sums per batch (each from every
  // source row): fewer than the copy's kUnitsPerThread, since each unit holds
  // a vector of accumulators.
  static constexpr int kSumUnits = 2;
  // The cells pass walks its blocks with a grid of at most this many, which
  // starts whole at once: the passes after it then start at once too and
  // overlap its latency-bound work.
  static constexpr int64_t kCellGridBlocks = 1024;
  // Rows at least this many bytes long are summed as vectors, a chunk of one
  // row per block, chunks as long as the copy's (with the sums before the
  // copy, measured against chunks 2x and 4x as long: 0.5-1% faster).
  static constexpr int64_t kLongRowBytes = 2048;
  // Problems of at most this many bytes, dx and dy together, run as one
  // launch of the cells kernel over every dx cell: at that size each launch's
  // host latency (2-3 us) outweighs what the three lean passes save on the
  // GPU (Python's pad_backward of a [4,108] f32 dy paid ~6.5 us of C floor
  // for three launches against ~4.1 us for one).
  static constexpr int64_t kOneLaunchBytes = 256 * 1024;
};

}  // namespace baracuda::kernels
