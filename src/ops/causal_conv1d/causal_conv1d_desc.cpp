#include "ops/causal_conv1d/causal_conv1d_desc.hpp"

#include "core/descriptor.hpp"
#include "core/error.hpp"
#include "ops/causal_conv1d/causal_conv1d_ops.hpp"

namespace baracuda::causal_conv1d {

namespace {
const OpDef &op_of(Kind k) { return k == Kind::Forward ? kForward : k == Kind::Backward ? kBackward : kUpdate; }
}  // namespace

Spec read_conv1d_desc(const baracuda_op_header_t *header, Kind kind) {
  constexpr int32_t invalid = BARACUDA_STATUS_INVALID_PROBLEM;
  const OpDef &op = op_of(kind);
  const baracuda_causal_conv1d_desc_t defaults = BARACUDA_CAUSAL_CONV1D_DESC_INIT;
  const baracuda_causal_conv1d_desc_t d = read_descriptor(op, header, defaults);
  if (d.activation != BARACUDA_ACTIVATION_NONE && d.activation != BARACUDA_ACTIVATION_SILU)
    fail(invalid, op.name, ": activation is ", d.activation, ", not a BARACUDA_ACTIVATION_* value");
  require_zero(op, "reserved0", d.reserved0);
  if (d.width < 1) fail(invalid, op.name, ": width is ", d.width, ", must be >= 1");
  Spec s{kind, &op, d.dtype, d.width, d.activation == BARACUDA_ACTIVATION_SILU, 0, 0, 0, 0};
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
  return s;
}

}  // namespace baracuda::causal_conv1d
