// Checks a caller's tensor against what a plan expects, with messages that
// name the op, the argument and expected against found.
#pragma once

#include <cstdint>

#include "baracuda/core.h"

namespace baracuda {

struct TensorExpect {
  const char *op;    // "pad"
  const char *role;  // "X"
  baracuda_dtype_t dtype;
  int32_t rank;
  const int64_t *shape;  // rank entries
  bool written;          // outputs may not broadcast (stride 0 over extent > 1)
};

// Dtype, rank, shape, strides (negative: UNSUPPORTED), NULL data for a
// non-empty tensor, alignment to the element size (MISALIGNED_OPERAND) and
// capacity; the view may reach no element past 2^62. Throws baracuda::Error.
void validate_tensor(const baracuda_tensor_t &t, const TensorExpect &expect);

}  // namespace baracuda
