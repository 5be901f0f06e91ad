// The plan-info fields a plan fills itself: the arithmetic it does and the
// name of its kernel. select fills the rest (core/candidates.hpp).
#pragma once

#include <cstdio>
#include <string>

#include "baracuda/core.h"
#include "core/dtype.hpp"

namespace baracuda {

// A plan that only moves data: no arithmetic, no sums.
inline void set_moves_data(baracuda_plan_info_t &info) {
  info.math_precision = BARACUDA_DTYPE_INVALID;
  info.accumulator = BARACUDA_DTYPE_INVALID;
}

// A plan whose arithmetic and sums run in accumulator_dtype(dtype).
inline void set_accumulates(baracuda_plan_info_t &info, baracuda_dtype_t dtype) {
  info.math_precision = accumulator_dtype(dtype);
  info.accumulator = accumulator_dtype(dtype);
}

// Truncated to the field, always NUL-terminated.
inline void set_kernel_name(baracuda_plan_info_t &info, const std::string &name) {
  std::snprintf(info.kernel_name, sizeof info.kernel_name, "%s", name.c_str());
}

}  // namespace baracuda
