// 16 bytes from an address of any 16-byte phase, as two aligned vector loads
// and a funnel shift: far fewer load instructions than per-element loads
// when input and output rows are misaligned to each other (as a pad of 3
// elements makes them).
#pragma once

#include <cstdint>

namespace baracuda::kernels {

// True when the aligned vectors that load16_at(p) reads lie inside the bytes
// [begin, end), so no read leaves the caller's tensor.
__device__ __forceinline__ bool can_load16_at(const void *p, const void *begin, const void *end) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p) & ~uintptr_t{15};
  const uintptr_t span = (reinterpret_cast<uintptr_t>(p) & 15u) ? 32 : 16;
  return a >= reinterpret_cast<uintptr_t>(begin) && a + span <= reinterpret_cast<uintptr_t>(end);
}

// The two aligned vectors covering p (the same one twice when p is aligned).
// Issue these for every unit before combining any, so the loads overlap.
struct Load16 {
  uint4 lo, hi;
  int shift;  // bytes
};

__device__ __forceinline__ Load16 issue_load16_at(const void *p) {
  const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
  const uint4 *a = reinterpret_cast<const uint4 *>(addr & ~uintptr_t{15});
  const int sh = static_cast<int>(addr & 15u);
  return Load16{a[0], a[sh ? 1 : 0], sh};
}

__device__ __forceinline__ uint4 combine16(const Load16 &l) {
  const uint4 lo = l.lo, hi = l.hi;
  const int sh = l.shift;
  if (sh == 0) return lo;
  const int r = (sh & 3) * 8;
  const uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  // (w[k+1]:w[k]) >> r for a word offset q that is uniform along a row.
#define BARACUDA_SHIFTED(q) \
  make_uint4(__funnelshift_r(w[q], w[q + 1], r), __funnelshift_r(w[q + 1], w[q + 2], r), \
             __funnelshift_r(w[q + 2], w[q + 3], r), __funnelshift_r(w[q + 3], w[q + 4], r))
  switch (sh >> 2) {
    case 0: return BARACUDA_SHIFTED(0);
    case 1: return BARACUDA_SHIFTED(1);
    case 2: return BARACUDA_SHIFTED(2);
    default: return BARACUDA_SHIFTED(3);
  }
#undef BARACUDA_SHIFTED
}

__device__ __forceinline__ uint4 load16_at(const void *p) { return combine16(issue_load16_at(p)); }

}  // namespace baracuda::kernels
