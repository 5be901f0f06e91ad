// How many output indices of a pad copy one input index, along one axis:
// what the row walks' choices (gather_rows_heuristics.h, pad backward's)
// are made of. Host-includable.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "common/host_device.h"
#include "common/rows_problem.h"

namespace baracuda::kernels {

// How many output indices copies_of(i, ...) lists, without listing them.
template <IndexMap M>
BARACUDA_HOST_DEVICE_INLINE int64_t copy_count(int64_t i, int64_t lo, int64_t n, int64_t m) {
  if constexpr (M == IndexMap::Reflect) {
    return 1 + (i >= 1 && i <= lo) + (i <= n - 2 && i >= n - 1 - (m - n - lo));
  } else if constexpr (M == IndexMap::Replicate) {
    return (i == n - 1 ? m : i + lo + 1) - (i == 0 ? 0 : i + lo);
  } else if constexpr (M == IndexMap::Circular) {
    return 1 + (i + lo - n >= 0) + (i + lo + n < m);
  } else {
    return 1;
  }
}

// True when no input index of the axis has more than two copies (the index
// counts can only change at these places, for every mode).
template <IndexMap M>
inline bool at_most_two_copies(int64_t lo, int64_t n, int64_t m) {
  const int64_t hi = m - n - lo;
  for (int64_t i : {int64_t{0}, int64_t{1}, lo, n - 1 - hi, n - 2, n - 1, hi - 1, n - lo})
    if (i >= 0 && i < n && copy_count<M>(i, lo, n, m) > 2) return false;
  return true;
}

// The most copies any input index of an axis has: copy_count's largest,
// taken where it can change. Exact, not the sum of the two pads' copies:
// reflect and circular give 2 on an axis whose two pads do not overlap,
// which holds a pad backward's dx rows of two sources in tiles of 2 slots
// (f32 rows of 16 KiB padded by 3 and 2: 3 slots of 16.5 KiB did not fit
// a block).
template <IndexMap M>
BARACUDA_HOST_DEVICE_INLINE int64_t max_copies(int64_t lo, int64_t n, int64_t hi) {
  if constexpr (M == IndexMap::Replicate) {
    if (n == 1) return 1 + lo + hi;
    return 1 + (lo > hi ? lo : hi);
  } else if constexpr (M == IndexMap::Reflect || M == IndexMap::Circular) {
    const int64_t at[] = {0, 1, lo, n - 1 - hi, n - 2, n - 1, hi - 1, n - lo};
    int64_t most = 1;
    for (const int64_t i : at)
      if (i >= 0 && i < n) {
        const int64_t c = copy_count<M>(i, lo, n, n + lo + hi);
        most = c > most ? c : most;
      }
    return most;
  } else {
    return 1;
  }
}

}  // namespace baracuda::kernels
