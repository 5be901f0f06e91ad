// Division by a divisor known at launch, as a multiply and a shift: the
// pass kernels place their tiles and vectors with a few divisions each, and
// the division sequence (a reciprocal, then corrections) made the prologue
// before the first load several hundred instructions long, which is what
// the decoding step's small problems wait for. Host and device; tested on
// the CPU.
#pragma once

#include <cstdint>

#include "common/host_device.h"

namespace baracuda::kernels {

// For 1 <= d < 2^31 and 0 <= n < 2^31: n / d == (n * multiplier) >> shift,
// with shift = 31 + ceil(log2 d) and multiplier = ceil(2^shift / d) (which
// fits 32 bits). Exact because multiplier * d - 2^shift < d <= 2^ceil(log2 d)
// (the round-up method of Granlund and Montgomery, for 31-bit dividends).
struct FastDivisor {
  uint32_t multiplier = 0;
  uint32_t shift = 0;
};

// The divisor d, or the zero FastDivisor (unused: the 64-bit kernels divide
// plainly) when d is outside 1 .. 2^31 - 1.
inline FastDivisor fast_divisor(int64_t d) {
  if (d < 1 || d >= (int64_t{1} << 31)) return {};
  uint32_t log2_ceil = 0;
  while ((int64_t{1} << log2_ceil) < d) ++log2_ceil;
  FastDivisor f;
  f.shift = 31 + log2_ceil;
  f.multiplier = static_cast<uint32_t>(((uint64_t{1} << f.shift) + d - 1) / d);
  return f;
}

BARACUDA_HOST_DEVICE_INLINE uint32_t fast_divide(uint32_t n, FastDivisor f) {
  return static_cast<uint32_t>((static_cast<uint64_t>(n) * f.multiplier) >> f.shift);
}

// The same quotient from the product's high word (shift >= 31): 2n times the
// multiplier, its high 32 bits shifted by shift - 31. On the GPU a high
// multiply and two shifts, where ptxas makes the 64-bit shift above four or
// five instructions.
BARACUDA_HOST_DEVICE_INLINE uint32_t fast_divide_high(uint32_t n, FastDivisor f) {
#ifdef __CUDA_ARCH__
  return __umulhi(n << 1, f.multiplier) >> (f.shift - 31);
#else
  return static_cast<uint32_t>((static_cast<uint64_t>(n << 1) * f.multiplier) >> 32) >> (f.shift - 31);
#endif
}

}  // namespace baracuda::kernels
