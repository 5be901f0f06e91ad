// The ALiBi descriptor, read and validated once for both ops.
#pragma once

#include <cstdint>

#include "baracuda/alibi.h"
#include "core/op_def.hpp"

namespace baracuda::alibi {

struct Spec {
  const OpDef *op;  // kForward or kBackward
  baracuda_dtype_t dtype;
  baracuda_dtype_t slopes_dtype;  // resolved: f32 or dtype
  bool symmetric, bottom_right, per_batch_slopes;
  int64_t batch, heads, queries, keys;

  bool backward() const;
};

// Validates everything the descriptor alone decides. Throws baracuda::Error.
Spec read_alibi_desc(const baracuda_op_header_t *header, const OpDef &op);

}  // namespace baracuda::alibi
