// causal conv1d plans: forward, backward and the decoding update, and their
// candidate kernels.
#include <memory>
#include <string>

#include "causal_conv1d/causal_conv1d_kernels.h"
#include "core/args.hpp"
#include "core/candidates.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/kernel_table.hpp"
#include "core/plan.hpp"
#include "core/plan_info.hpp"
#include "core/tensor.hpp"
#include "ops/causal_conv1d/causal_conv1d_desc.hpp"
#include "ops/causal_conv1d/causal_conv1d_ops.hpp"

namespace baracuda::causal_conv1d {

namespace {

inline constexpr Keyed<const kernels::Conv1dEntries *> kEntriesByDtype[] = {
    {BARACUDA_DTYPE_F32, &kernels::kCausalConv1dF32},
    {BARACUDA_DTYPE_F16, &kernels::kCausalConv1dF16},
    {BARACUDA_DTYPE_BF16, &kernels::kCausalConv1dBf16},
    {BARACUDA_DTYPE_F64, &kernels::kCausalConv1dF64},
};
static_assert(table_keys(kEntriesByDtype) == kForward.dtypes && kForward.dtypes == kBackward.dtypes &&
                  kBackward.dtypes == kUpdate.dtypes,
              "the causal conv1d ops serve exactly their kernels' dtypes");
// 16-bit x with f32 weights, by x's dtype.
inline constexpr Keyed<const kernels::Conv1dEntries *> kF32WeightEntriesByDtype[] = {
    {BARACUDA_DTYPE_F16, &kernels::kCausalConv1dF16F32w},
    {BARACUDA_DTYPE_BF16, &kernels::kCausalConv1dBf16F32w},
};

const kernels::Conv1dEntries &entries_of(const Spec &spec) {
  if (spec.weight_dtype == spec.dtype) return *kernel_for_dtype(spec.op->name, kEntriesByDtype, spec.dtype);
  return *kernel_for_dtype(spec.op->name, kF32WeightEntriesByDtype, spec.dtype);
}

kernels::Conv1dPass pass_of(Kind kind) {
  return kind == Kind::Forward    ? kernels::Conv1dPass::Forward
         : kind == Kind::Backward ? kernels::Conv1dPass::Backward
                                  : kernels::Conv1dPass::Update;
}

// The kernel the dense layout (contiguous, 16-byte aligned) runs. Strided or
// misaligned views may take another, which run chooses through the same
// heuristics once it sees the strides.
std::string kernel_name(const Spec &spec) {
  const int64_t steps = spec.kind == Kind::Update ? 1 : spec.length;  // the update's grid is over (b, c) alone
  if (spec.batch == 0 || spec.channels == 0 || steps == 0)
    return cat(spec.op->name, "_w", spec.width, "_", dtype_name(spec.dtype), " (empty problem: no launch)");
  char name[sizeof(baracuda_plan_info_t{}.kernel_name)];
  // Mixed precision names both dtypes: "bf16_f32w" is bf16 x with f32 weights.
  const std::string dtypes = spec.weight_dtype == spec.dtype
                                 ? std::string(dtype_name(spec.dtype))
                                 : cat(dtype_name(spec.dtype), "_", dtype_name(spec.weight_dtype), "w");
  kernels::write_dense_conv1d_kernel_name(name, sizeof name, spec.op->name, pass_of(spec.kind), dtype_bytes(spec.dtype),
                                          spec.batch, spec.channels, spec.length, spec.width, dtypes.c_str());
  return name;
}

class CausalConv1dPlan final : public Plan {
 public:
  explicit CausalConv1dPlan(const Spec &spec)
      : spec_(spec),
        entries_(entries_of(spec)) {
    set_accumulates(info, spec.dtype);
    set_kernel_name(info, kernel_name(spec));
  }

  void check(const baracuda_arg_t *args, int32_t num_args) const override { bind(args, num_args); }

  void run(const baracuda_arg_t *args, int32_t num_args, void *workspace, size_t workspace_bytes,
           baracuda_stream_t stream) const override {
    const kernels::Conv1dProblem p = bind(args, num_args);
    const int rc = spec_.kind == Kind::Forward    ? entries_.forward(p, stream)
                   : spec_.kind == Kind::Backward ? entries_.backward(p, workspace, workspace_bytes, stream)
                                                  : entries_.update(p, stream);
    check_launch(rc, spec_.op->name);
  }

 private:
  // Validates every argument and fills the kernels' problem.
  kernels::Conv1dProblem bind(const baracuda_arg_t *args, int32_t num_args) const {
    const OpDef &op = *spec_.op;
    const BoundArgs t = bind_args(op, args, num_args);
    const int64_t B = spec_.batch, C = spec_.channels, L = spec_.length, W = spec_.width;
    const int64_t pool = state_pool_rows(t);
    const int64_t seq[3] = {B, C, L}, taps[2] = {C, W}, chan[1] = {C}, ends[3] = {B, C, W - 1},
                  state[3] = {pool, C, spec_.state_len}, batch[1] = {B}, rows[2] = {B, L};
    // The update takes x and y as [B, C] when it steps one token.
    const int32_t seq_rank = spec_.kind == Kind::Update && t[BARACUDA_ARG_X]->rank == 2 && L == 1 ? 2 : 3;
    auto check = [&](int32_t role, int32_t rank, const int64_t *shape, baracuda_dtype_t dtype) {
      if (op.find_role(role)) validate_arg(op, t, role, dtype, rank, shape);
    };
    const baracuda_dtype_t dt = spec_.dtype, wdt = spec_.weight_dtype;
    check(BARACUDA_ARG_X, seq_rank, seq, dt);
    check(BARACUDA_ARG_WEIGHT, 2, taps, wdt);
    check(BARACUDA_ARG_BIAS, 1, chan, wdt);
    check(BARACUDA_ARG_Y, seq_rank, seq, dt);
    check(BARACUDA_ARG_INITIAL_STATES, 3, ends, dt);
    check(BARACUDA_ARG_FINAL_STATES, 3, ends, dt);
    check(BARACUDA_ARG_DY, 3, seq, dt);
    check(BARACUDA_ARG_DX, 3, seq, dt);
    check(BARACUDA_ARG_DW, 2, taps, wdt);
    check(BARACUDA_ARG_DB, 1, chan, wdt);
    check(BARACUDA_ARG_DINITIAL_STATES, 3, ends, dt);
    check(BARACUDA_ARG_DFINAL_STATES, 3, ends, dt);
    check(BARACUDA_ARG_STATE, 3, state, dt);
    check(BARACUDA_ARG_CACHE_SEQLENS, 1, batch, BARACUDA_DTYPE_I32);
    check(BARACUDA_ARG_CONV_STATE_INDICES, 1, batch, BARACUDA_DTYPE_I32);
    check(BARACUDA_ARG_SEQ_IDX, 2, rows, BARACUDA_DTYPE_I32);
    if (t[BARACUDA_ARG_DB] && !t[BARACUDA_ARG_BIAS])
      fail(BARACUDA_STATUS_INVALID_PROBLEM, op.name, ": arg DB is given without BIAS");
    auto same = [&](int32_t a, int32_t b) { return t[a] && t[b] && t[a]->data == t[b]->data && t[a]->data; };
    if (same(BARACUDA_ARG_Y, BARACUDA_ARG_X) || same(BARACUDA_ARG_DX, BARACUDA_ARG_DY) ||
        same(BARACUDA_ARG_DX, BARACUDA_ARG_X))
      fail(BARACUDA_STATUS_INVALID_PROBLEM, op.name, ": an output shares its data with an input (no in-place)");

    kernels::Conv1dProblem p;
    p.batch = B;
    p.channels = C;
    p.length = L;
    p.width = spec_.width;
    p.silu = spec_.silu;
    p.state_len = spec_.state_len;
    p.state_rows = pool;
    auto view = [&](int32_t role, int32_t rank) {
      kernels::Conv1dView v;
      if (!t[role]) return v;
      v.data = t[role]->data;
      // [B, C] x and y of a one-token update: L's stride is irrelevant (one step).
      for (int32_t d = 0; d < rank; ++d) v.stride[d] = t[role]->strides[d];
      return v;
    };
    p.x = view(BARACUDA_ARG_X, seq_rank);
    p.weight = view(BARACUDA_ARG_WEIGHT, 2);
    p.bias = view(BARACUDA_ARG_BIAS, 1);
    p.y = view(BARACUDA_ARG_Y, seq_rank);
    p.initial = view(BARACUDA_ARG_INITIAL_STATES, 3);
    p.final_states = view(BARACUDA_ARG_FINAL_STATES, 3);
    p.dy = view(BARACUDA_ARG_DY, 3);
    p.dx = view(BARACUDA_ARG_DX, 3);
    p.dweight = view(BARACUDA_ARG_DW, 2);
    p.dbias = view(BARACUDA_ARG_DB, 1);
    p.dinitial = view(BARACUDA_ARG_DINITIAL_STATES, 3);
    p.state = view(BARACUDA_ARG_STATE, 3);
    p.cache_seqlens = view(BARACUDA_ARG_CACHE_SEQLENS, 1);
    p.dfinal = view(BARACUDA_ARG_DFINAL_STATES, 3);
    p.state_indices = view(BARACUDA_ARG_CONV_STATE_INDICES, 1);
    p.seq_idx = view(BARACUDA_ARG_SEQ_IDX, 2);
    return p;
  }

  // The update's STATE rows: B, or with CONV_STATE_INDICES a pool of any size
  // (STATE's own shape[0]); 0 for the ops without a state.
  int64_t state_pool_rows(const BoundArgs &t) const {
    const baracuda_tensor_t *state = t[BARACUDA_ARG_STATE];
    if (spec_.kind != Kind::Update || !state) return 0;
    if (!t[BARACUDA_ARG_CONV_STATE_INDICES] || state->rank < 1) return spec_.batch;
    if (state->shape[0] < 0)
      fail(BARACUDA_STATUS_INVALID_PROBLEM, spec_.op->name, ": arg STATE shape[0] is ", state->shape[0],
           ", must be >= 0 (the rows of the state pool)");
    return state->shape[0];
  }

  Spec spec_;
  const kernels::Conv1dEntries &entries_;
};

WhyNot width_served(const Spec &s, const SelectContext &) {
  using Traits = kernels::Conv1dTraits;
  if (s.width < Traits::kMinWidth || s.width > Traits::kMaxWidth)
    return cat("width ", s.width, " is not served (", Traits::kMinWidth, " to ", Traits::kMaxWidth, ")");
  return serves();
}

int128 no_workspace(const Spec &) { return 0; }

// One partial dw/db sum per (batch, chunk of time, channel), reduced in a fixed order.
int128 backward_workspace(const Spec &s) {
  return kernels::causal_conv1d_backward_workspace(s.batch, s.channels, s.length, s.width,
                                                   s.dtype == BARACUDA_DTYPE_F64);
}

std::unique_ptr<Plan> make_plan(const Spec &s, const SelectContext &) { return std::make_unique<CausalConv1dPlan>(s); }

// No atomics anywhere: every sum has a fixed order.
const Candidate<Spec> kForwardCandidates[] = {
    {{"causal_conv1d_fwd", BARACUDA_BACKEND_BESPOKE, true, true}, width_served, no_workspace, make_plan},
};
const Candidate<Spec> kBackwardCandidates[] = {
    {{"causal_conv1d_bwd", BARACUDA_BACKEND_BESPOKE, true, true}, width_served, backward_workspace, make_plan},
};
const Candidate<Spec> kUpdateCandidates[] = {
    {{"causal_conv1d_update", BARACUDA_BACKEND_BESPOKE, true, true}, width_served, no_workspace, make_plan},
};

}  // namespace

std::unique_ptr<Plan> select_forward(const baracuda_op_header_t *desc, const SelectContext &ctx) {
  const Spec spec = read_conv1d_desc(desc, Kind::Forward);
  return select_candidate(kForward, spec.dtype, spec, ctx, kForwardCandidates);
}
std::unique_ptr<Plan> select_backward(const baracuda_op_header_t *desc, const SelectContext &ctx) {
  const Spec spec = read_conv1d_desc(desc, Kind::Backward);
  return select_candidate(kBackward, spec.dtype, spec, ctx, kBackwardCandidates);
}
std::unique_ptr<Plan> select_update(const baracuda_op_header_t *desc, const SelectContext &ctx) {
  const Spec spec = read_conv1d_desc(desc, Kind::Update);
  return select_candidate(kUpdate, spec.dtype, spec, ctx, kUpdateCandidates);
}

}  // namespace baracuda::causal_conv1d
