// Simplifies an iteration space before launch: axes of extent 1 go, and
// neighbouring axes that every tensor walks as one (outer stride == inner
// stride * inner extent) merge. Fewer, longer rows make the kernels faster;
// the result is the same.
#pragma once

#include <cstdint>

#include "baracuda/core.h"

namespace baracuda {

constexpr int32_t kMaxLayoutTensors = 2;

struct AxisSet {
  int32_t rank = 0;
  int32_t tensors = 0;
  int64_t extent[BARACUDA_MAX_RANK] = {};
  int64_t stride[kMaxLayoutTensors][BARACUDA_MAX_RANK] = {};
  bool pinned[BARACUDA_MAX_RANK] = {};   // never merged or dropped (a padded axis)
  int32_t origin[BARACUDA_MAX_RANK] = {};  // the caller's axis index (innermost one of a merged group)
};

// Returns the simplified set; rank stays >= 1.
AxisSet simplify_axes(const AxisSet &in);

}  // namespace baracuda
