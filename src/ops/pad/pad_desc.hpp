// The pad descriptor, read and validated once for both directions.
#pragma once

#include <cstdint>

#include "baracuda/pad.h"
#include "common/rows_problem.h"
#include "core/op_def.hpp"

namespace baracuda::pad {

struct PadSpec {
  const OpDef *op;  // kPad or kPadBackward
  bool backward;
  baracuda_dtype_t dtype;
  int32_t mode;
  int32_t rank;
  int64_t input_shape[BARACUDA_MAX_RANK];
  int64_t output_shape[BARACUDA_MAX_RANK];
  int64_t pad_low[BARACUDA_MAX_RANK];
  int64_t pad_high[BARACUDA_MAX_RANK];
  unsigned char fill[16];  // CONSTANT's value as one dtype element (forward only)
};

// Validates everything the descriptor alone decides. Throws baracuda::Error.
PadSpec read_pad_desc(const baracuda_op_header_t *header, bool backward);

const char *mode_name(int32_t mode);
kernels::IndexMap index_map(int32_t mode);

// The kernels' view of input -> output (forward: in = x, out = y; backward:
// in = dy, out = dx), with unpadded axes merged. Constant mode's backward is
// posed as a forward gather from dy, its pads negated.
kernels::RowsProblem rows_problem(const PadSpec &spec, const baracuda_tensor_t &in, const baracuda_tensor_t &out);

}  // namespace baracuda::pad
