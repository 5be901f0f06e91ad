// pad forward and backward plans.
#include <cstdio>
#include <memory>

#include "core/args.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/plan.hpp"
#include "core/select_context.hpp"
#include "core/tensor.hpp"
#include "ops/pad/pad_desc.hpp"
#include "ops/pad/pad_ops.hpp"
#include "pad/pad_kernels.h"

namespace baracuda::pad {

namespace {

using Entry = kernels::RowsEntry;

Entry backward_entry(baracuda_dtype_t dtype) {
  switch (dtype) {
    case BARACUDA_DTYPE_F16: return kernels::pad_backward_f16_run;
    case BARACUDA_DTYPE_BF16: return kernels::pad_backward_bf16_run;
    case BARACUDA_DTYPE_F64: return kernels::pad_backward_f64_run;
    default: return kernels::pad_backward_f32_run;
  }
}

// Constant mode's backward is a slice of dy (zeros where the forward cropped):
// a forward gather from dy with the pads negated, no arithmetic at all.
bool slice_backward(const PadSpec &spec, bool backward) { return backward && spec.mode == BARACUDA_PAD_CONSTANT; }

// Forward: X -> Y. Backward: DY -> DX. Same machinery, roles and shapes swapped.
class PadPlan final : public Plan {
 public:
  PadPlan(const PadSpec &spec, const SelectContext &ctx, bool backward)
      : spec_(spec),
        backward_(backward),
        entry_(backward && !slice_backward(spec, backward) ? backward_entry(spec.dtype)
                                                           : kernels::kPadForwardByWidth[kernels::width_slot(dtype_bytes(spec.dtype))]) {
    info.op = backward ? BARACUDA_OP_PAD_BACKWARD : BARACUDA_OP_PAD;
    info.dtype = spec.dtype;
    info.target_sm = ctx.target_sm;
    info.backend = BARACUDA_BACKEND_BESPOKE;
    const baracuda_dtype_t acc = spec.dtype == BARACUDA_DTYPE_F64 ? BARACUDA_DTYPE_F64 : BARACUDA_DTYPE_F32;
    const bool sums = backward && !slice_backward(spec, backward);
    info.math_precision = sums ? acc : BARACUDA_DTYPE_INVALID;
    info.accumulator = sums ? acc : BARACUDA_DTYPE_INVALID;
    info.deterministic = 1;
    info.bit_stable = 1;
    if (sums)
      std::snprintf(info.kernel_name, sizeof info.kernel_name, "pad_backward_rows_%s_%s", dtype_name(spec.dtype),
                    mode_name(spec.mode));
    else
      std::snprintf(info.kernel_name, sizeof info.kernel_name, "pad_gather_rows_b%d_%s", dtype_bytes(spec.dtype),
                    mode_name(spec.mode));
  }

  void check(const baracuda_arg_t *args, int32_t num_args) const override { bind(args, num_args); }

  void run(const baracuda_arg_t *args, int32_t num_args, void *, size_t, baracuda_stream_t stream) const override {
    const Bound b = bind(args, num_args);
    if (shape_numel(spec_.rank, backward_ ? spec_.input_shape : spec_.output_shape) == 0) return;
    const kernels::RowsProblem p = rows_problem(spec_, *b.in, *b.out, backward_);
    check_launch(entry_(p, stream), spec_.op);
  }

 private:
  struct Bound {
    const baracuda_tensor_t *in;
    const baracuda_tensor_t *out;
  };

  Bound bind(const baracuda_arg_t *args, int32_t num_args) const {
    const RoleSpec roles[2] = {{backward_ ? BARACUDA_ARG_DY : BARACUDA_ARG_X, true},
                               {backward_ ? BARACUDA_ARG_DX : BARACUDA_ARG_Y, true}};
    const baracuda_tensor_t *t[2];
    bind_args(spec_.op, args, num_args, roles, 2, t);
    const int64_t *in_shape = backward_ ? spec_.output_shape : spec_.input_shape;
    const int64_t *out_shape = backward_ ? spec_.input_shape : spec_.output_shape;
    validate_tensor(*t[0], {spec_.op, role_name(roles[0].role), spec_.dtype, spec_.rank, in_shape, false});
    validate_tensor(*t[1], {spec_.op, role_name(roles[1].role), spec_.dtype, spec_.rank, out_shape, true});
    return {t[0], t[1]};
  }

  PadSpec spec_;
  bool backward_;
  Entry entry_;
};

}  // namespace

std::unique_ptr<Plan> select_pad(const baracuda_op_header_t *desc, const SelectContext &ctx) {
  return std::make_unique<PadPlan>(read_pad_desc(desc, false), ctx, false);
}

std::unique_ptr<Plan> select_pad_backward(const baracuda_op_header_t *desc, const SelectContext &ctx) {
  return std::make_unique<PadPlan>(read_pad_desc(desc, true), ctx, true);
}

uint64_t pad_dtypes() { return byte_aligned_dtype_mask(); }

uint64_t pad_backward_dtypes() {
  return dtype_bit(BARACUDA_DTYPE_F32) | dtype_bit(BARACUDA_DTYPE_F16) | dtype_bit(BARACUDA_DTYPE_BF16) |
         dtype_bit(BARACUDA_DTYPE_F64);
}

}  // namespace baracuda::pad
