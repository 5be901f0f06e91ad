// The flat walk's tuning knobs (pad_forward_flat.cuh), all in one place,
// measured on the H200 (bench/NOTES.md, session 12). Plain constants,
// host-includable. scripts/variants.sh builds a scratch copy with members of
// this struct patched ("PadFlatTraits.kUnits=2") to time other values.
#pragma once

#include <cstdint>

namespace baracuda::kernels {

struct PadFlatTraits {
  // Threads per block, and vectors per thread (kThreads apart, so that every
  // store instruction of a warp writes 512 contiguous bytes), all their loads
  // issued before any is stored.
  static constexpr int kThreads = 256;
  static constexpr int kUnits = 4;
  // Blocks per SM the register budget is cut for: 3 (80 registers), where
  // the kernel spills none; 768 threads' loads in flight per SM are over
  // twice what the H200's bandwidth and latency ask for.
  static constexpr int kMinBlocks = 3;
  // The longest output rows the flat walk takes: rows of 2 KiB ran at 71-82%
  // of copy on it against 31-55% on the row kernel; rows of 16 and 32 KiB at
  // 81-86% against the row kernel's 90-96%.
  static constexpr int64_t kMaxRowBytes = 2048;
};

}  // namespace baracuda::kernels
