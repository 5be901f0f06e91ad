#include "ops/causal_conv1d/causal_conv1d_desc.hpp"

#include "core/descriptor.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "ops/causal_conv1d/causal_conv1d_ops.hpp"

namespace baracuda::causal_conv1d {

namespace {
const OpDef &op_of(Kind k) { return k == Kind::Forward ? kForward : k == Kind::Backward ? kBackward : kUpdate; }

// The weights' dtype: 0 for dtype's own; else dtype, or f32 beside 16-bit
// activations (parameters kept in f32, as Mamba trains).
baracuda_dtype_t resolve_weight_dtype(const OpDef &op, baracuda_dtype_t dtype, baracuda_dtype_t weight_dtype) {
  if (weight_dtype == 0 || weight_dtype == dtype) return dtype;
  const bool half = dtype == BARACUDA_DTYPE_F16 || dtype == BARACUDA_DTYPE_BF16;
  if (weight_dtype == BARACUDA_DTYPE_F32 && half) return weight_dtype;
  if (!dtype_valid(weight_dtype))
    fail(BARACUDA_STATUS_INVALID_PROBLEM, op.name, ": weight_dtype ", weight_dtype, " is not a dtype");
  fail(BARACUDA_STATUS_UNSUPPORTED, op.name, ": weight_dtype ", dtype_name(weight_dtype), " beside dtype ",
       dtype_name(dtype), " is not served (0, the dtype itself, or f32 beside f16 and bf16)");
}
}  // namespace

Spec read_conv1d_desc(const baracuda_op_header_t *header, Kind kind) {
  constexpr int32_t invalid = BARACUDA_STATUS_INVALID_PROBLEM;
  const OpDef &op = op_of(kind);
  const baracuda_causal_conv1d_desc_t defaults = BARACUDA_CAUSAL_CONV1D_DESC_INIT;
  const baracuda_causal_conv1d_desc_t d = read_descriptor(op, header, defaults);
  if (d.activation != BARACUDA_ACTIVATION_NONE && d.activation != BARACUDA_ACTIVATION_SILU)
    fail(invalid, op.name, ": activation is ", d.activation, ", not a BARACUDA_ACTIVATION_* value");
  if (d.width < 1) fail(invalid, op.name, ": width is ", d.width, ", must be >= 1");
  Spec s{kind, &op, d.dtype, d.dtype, d.width, d.activation == BARACUDA_ACTIVATION_SILU, 0, 0, 0, 0};
  s.batch = require_extent(op, "batch", d.batch);
  s.channels = require_extent(op, "channels", d.channels);
  s.length = require_extent(op, "seq_len", d.seq_len);
  const int64_t seq[3] = {s.batch, s.channels, s.length}, taps[2] = {s.channels, s.width},
                rows[3] = {s.batch, s.channels, s.width};
  require_element_count(op, "X [batch, channels, seq_len]", 3, seq);
  require_element_count(op, "WEIGHT [channels, width]", 2, taps);
  // Bounds the [B, C, W-1] state tensors and every per-tap offset the kernels form.
  require_element_count(op, "a [batch, channels, width] tensor", 3, rows);
  if (kind == Kind::Update) {
    s.state_len = require_extent(op, "state_len", d.state_len);
    if (s.state_len < d.width - 1)
      fail(invalid, op.name, ": state_len is ", d.state_len, ", must be >= width - 1 (", d.width - 1, ")");
    const int64_t state[3] = {s.batch, s.channels, s.state_len};
    require_element_count(op, "STATE [batch, channels, state_len]", 3, state);
  }
  require_served_dtype(op, d.dtype);
  s.weight_dtype = resolve_weight_dtype(op, d.dtype, d.weight_dtype);
  return s;
}

}  // namespace baracuda::causal_conv1d
