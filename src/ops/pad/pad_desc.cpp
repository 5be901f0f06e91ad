#include "ops/pad/pad_desc.hpp"

#include <cstring>

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/layout.hpp"
#include "core/versioned.hpp"
#include "ops/pad/pad_ops.hpp"

namespace baracuda::pad {

namespace {

// No extent or element count may come near int64's range, so that every
// offset the kernels form stays exact.
constexpr int64_t kMaxExtent = int64_t{1} << 62;

void validate_axis(const PadSpec &s, int32_t d) {
  constexpr int32_t invalid = BARACUDA_STATUS_INVALID_PROBLEM;
  const int64_t n = s.input_shape[d], lo = s.pad_low[d], hi = s.pad_high[d];
  if (n < 0) fail(invalid, s.op, ": input_shape[", d, "] is ", n, ", must be >= 0");
  if (n > kMaxExtent || lo > kMaxExtent || hi > kMaxExtent || lo < -kMaxExtent || hi < -kMaxExtent)
    fail(invalid, s.op, ": axis ", d, " extent or pad is beyond 2^62");
  if (s.mode == BARACUDA_PAD_CONSTANT) {
    if (n + lo + hi < 0)
      fail(invalid, s.op, ": axis ", d, " output extent is ", n + lo + hi, " (input ", n, " + pad_low ", lo,
           " + pad_high ", hi, "), must be >= 0");
    return;
  }
  if (lo < 0 || hi < 0)
    fail(invalid, s.op, ": pad_low[", d, "] is ", lo, " and pad_high[", d, "] is ", hi, "; only constant mode crops with negative pads");
  if (s.mode == BARACUDA_PAD_REFLECT && (lo >= n || hi >= n) && (lo > 0 || hi > 0))
    fail(invalid, s.op, ": reflect needs pad < input extent; axis ", d, " has input_shape ", n, ", pad_low ", lo,
         ", pad_high ", hi);
  if (s.mode == BARACUDA_PAD_REPLICATE && n == 0 && (lo > 0 || hi > 0))
    fail(invalid, s.op, ": replicate has nothing to repeat on axis ", d, " (input_shape[", d, "] is 0)");
  if (s.mode == BARACUDA_PAD_CIRCULAR && (lo > n || hi > n))
    fail(invalid, s.op, ": circular needs pad <= input extent; axis ", d, " has input_shape ", n, ", pad_low ", lo,
         ", pad_high ", hi);
}

void check_numel(const char *op, const char *what, int32_t rank, const int64_t *shape) {
  __int128 n = 1;
  for (int32_t d = 0; d < rank; ++d) {
    n *= shape[d];
    if (n > kMaxExtent) fail(BARACUDA_STATUS_INVALID_PROBLEM, op, ": ", what, " has over 2^62 elements");
  }
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
  constexpr int32_t invalid = BARACUDA_STATUS_INVALID_PROBLEM;
  const char *op = backward ? "pad_backward" : "pad";
  const baracuda_pad_desc_t defaults = BARACUDA_PAD_DESC_INIT;
  const baracuda_pad_desc_t desc =
      read_versioned(op, "descriptor", header, header->struct_size, sizeof(baracuda_pad_desc_t), defaults);

  PadSpec s{};
  s.op = op;
  s.dtype = desc.dtype;
  s.mode = desc.mode;
  s.rank = desc.rank;
  if (!dtype_valid(desc.dtype)) fail(invalid, op, ": dtype ", desc.dtype, " is not a dtype");
  if (desc.rank < 1 || desc.rank > BARACUDA_MAX_RANK) fail(invalid, op, ": rank is ", desc.rank, ", must be 1 to 8");
  if (desc.mode < BARACUDA_PAD_CONSTANT || desc.mode > BARACUDA_PAD_CIRCULAR)
    fail(invalid, op, ": mode is ", desc.mode, ", not a BARACUDA_PAD_* mode");
  if (desc.reserved0 != 0) fail(invalid, op, ": reserved0 is ", desc.reserved0, ", must be 0");
  for (int32_t d = 0; d < s.rank; ++d) {
    s.input_shape[d] = desc.input_shape[d];
    s.pad_low[d] = desc.pad_low[d];
    s.pad_high[d] = desc.pad_high[d];
    validate_axis(s, d);
    s.output_shape[d] = s.input_shape[d] + s.pad_low[d] + s.pad_high[d];
  }
  check_numel(op, "input", s.rank, s.input_shape);
  check_numel(op, "output", s.rank, s.output_shape);

  if (backward) {
    if (!(pad_backward_dtypes() & dtype_bit(s.dtype)))
      fail(BARACUDA_STATUS_UNSUPPORTED, op, ": dtype ", dtype_name(s.dtype), " is not served (f32, f16, bf16, f64)");
  } else {
    if (dtype_bytes(s.dtype) == 0)
      fail(BARACUDA_STATUS_UNSUPPORTED, op, ": dtype ", dtype_name(s.dtype),
           " is not served (every byte-aligned dtype is; packed ones are not)");
    if (s.mode == BARACUDA_PAD_CONSTANT) encode_scalar(s.dtype, desc.value, desc.value_imag, "pad: value", s.fill);
  }
  return s;
}

kernels::RowsProblem rows_problem(const PadSpec &spec, const baracuda_tensor_t &in, const baracuda_tensor_t &out,
                                  bool backward) {
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
