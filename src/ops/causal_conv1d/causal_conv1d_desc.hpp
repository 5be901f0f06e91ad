// The causal conv1d descriptor, read and validated once for its three ops.
#pragma once

#include <cstdint>

#include "baracuda/causal_conv1d.h"
#include "core/op_def.hpp"

namespace baracuda::causal_conv1d {

enum class Kind { Forward, Backward, Update };

struct Spec {
  Kind kind;
  const OpDef *op;  // kForward, kBackward or kUpdate
  baracuda_dtype_t dtype;
  baracuda_dtype_t weight_dtype;  // WEIGHT, BIAS, DW, DB: the descriptor's 0 resolved to dtype
  int32_t width;
  bool silu;
  int64_t batch, channels, length, state_len;
};

// Validates everything the descriptor alone decides. Throws baracuda::Error.
Spec read_conv1d_desc(const baracuda_op_header_t *header, Kind kind);

}  // namespace baracuda::causal_conv1d
