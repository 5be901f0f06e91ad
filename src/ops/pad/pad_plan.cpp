// pad forward and backward plans, and their candidate kernels.
#include <memory>

#include "core/args.hpp"
#include "core/candidates.hpp"
#include "core/checked_math.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/kernel_table.hpp"
#include "core/plan.hpp"
#include "core/plan_info.hpp"
#include "core/select_context.hpp"
#include "core/tensor.hpp"
#include "ops/pad/pad_desc.hpp"
#include "ops/pad/pad_ops.hpp"
#include "pad/pad_kernels.h"

namespace baracuda::pad {

namespace {

using Entry = kernels::RowsEntry;

inline constexpr Keyed<Entry> kGatherByWidth[] = {
    {1, kernels::pad_forward_b1_run}, {2, kernels::pad_forward_b2_run},   {4, kernels::pad_forward_b4_run},
    {8, kernels::pad_forward_b8_run}, {16, kernels::pad_forward_b16_run},
};
inline constexpr Keyed<Entry> kBackwardByDtype[] = {
    {BARACUDA_DTYPE_F32, kernels::pad_backward_f32_run},
    {BARACUDA_DTYPE_F16, kernels::pad_backward_f16_run},
    {BARACUDA_DTYPE_BF16, kernels::pad_backward_bf16_run},
    {BARACUDA_DTYPE_F64, kernels::pad_backward_f64_run},
};
static_assert(table_keys(kBackwardByDtype) == kPadBackward.dtypes, "pad_backward serves exactly its kernels' dtypes");

// Forward: X -> Y. Backward: DY -> DX. Same machinery, roles and shapes swapped.
class PadPlan final : public Plan {
 public:
  PadPlan(const PadSpec &spec, Entry entry) : spec_(spec), entry_(entry) {}

  void check(const baracuda_arg_t *args, int32_t num_args) const override { bind(args, num_args); }

  void run(const baracuda_arg_t *args, int32_t num_args, void *, size_t, baracuda_stream_t stream) const override {
    const Bound b = bind(args, num_args);
    if (element_count(spec_.rank, spec_.backward ? spec_.input_shape : spec_.output_shape) == 0) return;
    const kernels::RowsProblem p = rows_problem(spec_, *b.in, *b.out);
    check_launch(entry_(p, stream), spec_.op->name);
  }

 private:
  struct Bound {
    const baracuda_tensor_t *in;
    const baracuda_tensor_t *out;
  };

  Bound bind(const baracuda_arg_t *args, int32_t num_args) const {
    const OpDef &op = *spec_.op;
    const int32_t in_role = spec_.backward ? BARACUDA_ARG_DY : BARACUDA_ARG_X;
    const int32_t out_role = spec_.backward ? BARACUDA_ARG_DX : BARACUDA_ARG_Y;
    const BoundArgs bound = bind_args(op, args, num_args);
    validate_arg(op, bound, in_role, spec_.dtype, spec_.rank, spec_.backward ? spec_.output_shape : spec_.input_shape);
    validate_arg(op, bound, out_role, spec_.dtype, spec_.rank, spec_.backward ? spec_.input_shape : spec_.output_shape);
    return {bound[in_role], bound[out_role]};
  }

  PadSpec spec_;
  Entry entry_;
};

WhyNot gather_can_implement(const PadSpec &s, const SelectContext &) {
  if (!table_has(kGatherByWidth, dtype_bytes(s.dtype))) return cat("no kernel for ", width_text(s.dtype));
  return serves();
}

// Constant mode's backward is a slice of dy (zeros where the forward cropped):
// a forward gather from dy with the pads negated, no arithmetic at all.
WhyNot slice_can_implement(const PadSpec &s, const SelectContext &ctx) {
  if (s.mode != BARACUDA_PAD_CONSTANT) return cat(mode_name(s.mode), " mode's backward sums, it is not a slice");
  return gather_can_implement(s, ctx);
}

WhyNot rows_backward_can_implement(const PadSpec &s, const SelectContext &) {
  if (s.mode == BARACUDA_PAD_CONSTANT) return std::string("constant mode's backward is a slice, not a sum");
  return serves();
}

int128 no_workspace(const PadSpec &) { return 0; }

std::unique_ptr<Plan> make_gather(const PadSpec &s, const SelectContext &) {
  auto plan = std::make_unique<PadPlan>(s, kernel_for_width(s.op->name, kGatherByWidth, s.dtype));
  set_moves_data(plan->info);
  set_kernel_name(plan->info, cat("pad_gather_rows_b", dtype_bytes(s.dtype), "_", mode_name(s.mode)));
  return plan;
}

std::unique_ptr<Plan> make_rows_backward(const PadSpec &s, const SelectContext &) {
  const Entry entry = kernel_for_dtype(s.op->name, kBackwardByDtype, s.dtype);
  auto plan = std::make_unique<PadPlan>(s, entry);
  set_accumulates(plan->info, s.dtype);
  set_kernel_name(plan->info, cat("pad_backward_rows_", dtype_name(s.dtype), "_", mode_name(s.mode)));
  return plan;
}

// Every candidate gathers in a fixed order with no atomics.
constexpr CandidateTraits kGatherTraits = {"pad_gather_rows", BARACUDA_BACKEND_BESPOKE, true, true};
constexpr CandidateTraits kSliceTraits = {"pad_backward_slice", BARACUDA_BACKEND_BESPOKE, true, true};
constexpr CandidateTraits kRowsBackwardTraits = {"pad_backward_rows", BARACUDA_BACKEND_BESPOKE, true, true};

const Candidate<PadSpec> kForwardCandidates[] = {
    {kGatherTraits, gather_can_implement, no_workspace, make_gather},
};
const Candidate<PadSpec> kBackwardCandidates[] = {
    {kSliceTraits, slice_can_implement, no_workspace, make_gather},
    {kRowsBackwardTraits, rows_backward_can_implement, no_workspace, make_rows_backward},
};

}  // namespace

std::unique_ptr<Plan> select_pad(const baracuda_op_header_t *desc, const SelectContext &ctx) {
  const PadSpec spec = read_pad_desc(desc, false);
  return select_candidate(kPad, spec.dtype, spec, ctx, kForwardCandidates);
}

std::unique_ptr<Plan> select_pad_backward(const baracuda_op_header_t *desc, const SelectContext &ctx) {
  const PadSpec spec = read_pad_desc(desc, true);
  return select_candidate(kPadBackward, spec.dtype, spec, ctx, kBackwardCandidates);
}

}  // namespace baracuda::pad
