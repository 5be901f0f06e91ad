#include "ops/pad/pad_desc.hpp"

#include <cstring>

#include "core/checked_math.hpp"
#include "core/descriptor.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/layout.hpp"
#include "ops/pad/pad_ops.hpp"

namespace baracuda::pad {

namespace {

// Pads may crop (constant mode), so they range over -2^62..2^62.
int64_t require_pad(const OpDef &op, const char *field, int32_t d, int64_t value) {
  if (value < -kMaxExtent || value > kMaxExtent)
    fail(BARACUDA_STATUS_INVALID_PROBLEM, op.name, ": ", field, "[", d, "] is ", value, ", must be -2^62 to 2^62");
  return value;
}

void require_mode_fits(const PadSpec &s, int32_t d) {
  constexpr int32_t invalid = BARACUDA_STATUS_INVALID_PROBLEM;
  const char *op = s.op->name;
  const int64_t n = s.input_shape[d], lo = s.pad_low[d], hi = s.pad_high[d];
  if (s.mode == BARACUDA_PAD_CONSTANT) return;
  if (lo < 0 || hi < 0)
    fail(invalid, op, ": pad_low[", d, "] is ", lo, " and pad_high[", d, "] is ", hi, "; only constant mode crops with negative pads");
  if (s.mode == BARACUDA_PAD_REFLECT && (lo >= n || hi >= n) && (lo > 0 || hi > 0))
    fail(invalid, op, ": reflect needs pad < input extent; axis ", d, " has input_shape ", n, ", pad_low ", lo,
         ", pad_high ", hi);
  if (s.mode == BARACUDA_PAD_REPLICATE && n == 0 && (lo > 0 || hi > 0))
    fail(invalid, op, ": replicate has nothing to repeat on axis ", d, " (input_shape[", d, "] is 0)");
  if (s.mode == BARACUDA_PAD_CIRCULAR && (lo > n || hi > n))
    fail(invalid, op, ": circular needs pad <= input extent; axis ", d, " has input_shape ", n, ", pad_low ", lo,
         ", pad_high ", hi);
}

// Reads axis d and forms its output extent in 128 bits: three terms of up to
// 2^62 each would wrap int64.
void read_axis(const baracuda_pad_desc_t &desc, PadSpec &s, int32_t d) {
  const OpDef &op = *s.op;
  s.input_shape[d] = require_extent(op, cat("input_shape[", d, "]"), desc.input_shape[d]);
  s.pad_low[d] = require_pad(op, "pad_low", d, desc.pad_low[d]);
  s.pad_high[d] = require_pad(op, "pad_high", d, desc.pad_high[d]);
  require_mode_fits(s, d);
  const int128 out = int128{s.input_shape[d]} + s.pad_low[d] + s.pad_high[d];
  if (!within_extent_range(out))
    fail(BARACUDA_STATUS_INVALID_PROBLEM, op.name, ": axis ", d, " output extent is ", to_decimal(out), " (input ",
         s.input_shape[d], " + pad_low ", s.pad_low[d], " + pad_high ", s.pad_high[d], "), must be 0 to 2^62");
  s.output_shape[d] = static_cast<int64_t>(out);
}

}  // namespace

const char *mode_name(int32_t mode) {
  switch (mode) {
    case BARACUDA_PAD_CONSTANT: return "constant";
    case BARACUDA_PAD_REFLECT: return "reflect";
    case BARACUDA_PAD_REPLICATE: return "replicate";
    case BARACUDA_PAD_CIRCULAR: return "circular";
    default: return "unknown";
  }
}

kernels::IndexMap index_map(int32_t mode) { return static_cast<kernels::IndexMap>(mode); }

PadSpec read_pad_desc(const baracuda_op_header_t *header, bool backward) {
  const OpDef &op = backward ? kPadBackward : kPad;
  const baracuda_pad_desc_t defaults = BARACUDA_PAD_DESC_INIT;
  const baracuda_pad_desc_t desc = read_descriptor(op, header, defaults);

  PadSpec s{};
  s.op = &op;
  s.backward = backward;
  s.dtype = desc.dtype;
  s.mode = desc.mode;
  s.rank = desc.rank;
  require_rank(op, desc.rank);
  if (desc.mode < BARACUDA_PAD_CONSTANT || desc.mode > BARACUDA_PAD_CIRCULAR)
    fail(BARACUDA_STATUS_INVALID_PROBLEM, op.name, ": mode is ", desc.mode, ", not a BARACUDA_PAD_* mode");
  require_zero(op, "reserved0", desc.reserved0);
  for (int32_t d = 0; d < s.rank; ++d) read_axis(desc, s, d);
  require_element_count(op, "input", s.rank, s.input_shape);
  require_element_count(op, "output", s.rank, s.output_shape);
  require_served_dtype(op, s.dtype);
  if (!backward && s.mode == BARACUDA_PAD_CONSTANT) encode_scalar(s.dtype, desc.value, desc.value_imag, "pad: value", s.fill);
  return s;
}

kernels::RowsProblem rows_problem(const PadSpec &spec, const baracuda_tensor_t &in, const baracuda_tensor_t &out) {
  const bool backward = spec.backward;
  // The iteration space is the written tensor; padded axes are pinned.
  const int64_t *out_shape = backward ? spec.input_shape : spec.output_shape;
  const int64_t *in_shape = backward ? spec.output_shape : spec.input_shape;
  AxisSet axes;
  axes.rank = spec.rank;
  axes.tensors = 2;
  for (int32_t d = 0; d < spec.rank; ++d) {
    axes.extent[d] = out_shape[d];
    axes.stride[0][d] = out.strides[d];
    axes.stride[1][d] = in.strides[d];
    axes.pinned[d] = spec.pad_low[d] != 0 || spec.pad_high[d] != 0;
    axes.origin[d] = d;
  }
  const AxisSet simple = simplify_axes(axes);
  kernels::RowsProblem p;
  p.rank = simple.rank;
  p.map = index_map(spec.mode);
  for (int32_t d = 0; d < simple.rank; ++d) {
    const int32_t o = simple.origin[d];
    p.out_extent[d] = simple.extent[d];
    p.in_extent[d] = simple.pinned[d] ? in_shape[o] : simple.extent[d];
    // The gather reads input index j - pad_low; a constant backward reads dy at i + pad_low.
    const int64_t low = backward && spec.mode == BARACUDA_PAD_CONSTANT ? -spec.pad_low[o] : spec.pad_low[o];
    p.pad_low[d] = simple.pinned[d] ? low : 0;
    p.out_stride[d] = simple.stride[0][d];
    p.in_stride[d] = simple.stride[1][d];
  }
  p.in = in.data;
  p.out = out.data;
  std::memcpy(p.fill, spec.fill, sizeof p.fill);
  return p;
}

}  // namespace baracuda::pad
