// causal conv1d plans: forward, backward and the decoding update.
#include <cstdio>
#include <memory>

#include "baracuda/causal_conv1d.h"
#include "causal_conv1d/causal_conv1d_kernels.h"
#include "core/args.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/plan.hpp"
#include "core/tensor.hpp"
#include "core/versioned.hpp"
#include "ops/causal_conv1d/causal_conv1d_ops.hpp"

namespace baracuda::causal_conv1d {

namespace {

constexpr int64_t kMaxExtent = int64_t{1} << 62;

enum class Kind { Forward, Backward, Update };

const char *op_name(Kind k) {
  return k == Kind::Forward ? "causal_conv1d" : k == Kind::Backward ? "causal_conv1d_backward" : "causal_conv1d_update";
}

struct Spec {
  Kind kind;
  const char *op;
  baracuda_dtype_t dtype;
  int32_t width;
  bool silu;
  int64_t batch, channels, length, state_len;
};

Spec read_desc(const baracuda_op_header_t *header, Kind kind) {
  constexpr int32_t invalid = BARACUDA_STATUS_INVALID_PROBLEM;
  const char *op = op_name(kind);
  const baracuda_causal_conv1d_desc_t defaults = BARACUDA_CAUSAL_CONV1D_DESC_INIT;
  const baracuda_causal_conv1d_desc_t d = read_versioned(op, "descriptor", header, header->struct_size,
                                                         sizeof(baracuda_causal_conv1d_desc_t), defaults);
  Spec s{kind, op, d.dtype, d.width, d.activation == BARACUDA_ACTIVATION_SILU, d.batch, d.channels, d.seq_len,
         d.state_len};
  if (!dtype_valid(d.dtype)) fail(invalid, op, ": dtype ", d.dtype, " is not a dtype");
  if (d.activation != BARACUDA_ACTIVATION_NONE && d.activation != BARACUDA_ACTIVATION_SILU)
    fail(invalid, op, ": activation is ", d.activation, ", not a BARACUDA_ACTIVATION_* value");
  if (d.reserved0 != 0) fail(invalid, op, ": reserved0 is ", d.reserved0, ", must be 0");
  if (d.width < 1) fail(invalid, op, ": width is ", d.width, ", must be >= 1");
  const int64_t extents[3] = {d.batch, d.channels, d.seq_len};
  const char *names[3] = {"batch", "channels", "seq_len"};
  __int128 numel = 1;
  for (int i = 0; i < 3; ++i) {
    if (extents[i] < 0 || extents[i] > kMaxExtent)
      fail(invalid, op, ": ", names[i], " is ", extents[i], ", must be 0 to 2^62");
    numel *= extents[i];
  }
  if (numel > kMaxExtent) fail(invalid, op, ": batch * channels * seq_len is over 2^62");
  const int64_t per_row = kind == Kind::Update && d.state_len > d.width ? d.state_len : d.width;  // states, taps
  const __int128 rows = static_cast<__int128>(d.batch) * d.channels;  // each factor <= 2^62: no overflow
  if (rows > kMaxExtent || rows * per_row > kMaxExtent)
    fail(invalid, op, ": batch * channels * ", kind == Kind::Update ? "max(width, state_len)" : "width",
         " is over 2^62");
  if (kind == Kind::Update && (d.state_len < d.width - 1 || d.state_len > kMaxExtent))
    fail(invalid, op, ": state_len is ", d.state_len, ", must be >= width - 1 (", d.width - 1, ")");
  if (!(causal_conv1d_dtypes() & dtype_bit(d.dtype)))
    fail(BARACUDA_STATUS_UNSUPPORTED, op, ": dtype ", dtype_name(d.dtype), " is not served (f32, f16, bf16, f64)");
  if (d.width < 2 || d.width > 4)
    fail(BARACUDA_STATUS_UNSUPPORTED, op, ": width ", d.width, " is not served (2, 3 or 4)");
  return s;
}

const kernels::Conv1dEntries &entries(baracuda_dtype_t dtype) {
  switch (dtype) {
    case BARACUDA_DTYPE_F16: return kernels::kCausalConv1dF16;
    case BARACUDA_DTYPE_BF16: return kernels::kCausalConv1dBf16;
    case BARACUDA_DTYPE_F64: return kernels::kCausalConv1dF64;
    default: return kernels::kCausalConv1dF32;
  }
}

// The roles each op takes, in this order.
enum Slot { kX, kWeight, kBias, kY, kInitial, kFinal, kDy, kDx, kDw, kDb, kDinitial, kState, kSeqlens, kSlots };
constexpr int32_t kRoleOf[kSlots] = {
    BARACUDA_ARG_X,  BARACUDA_ARG_WEIGHT, BARACUDA_ARG_BIAS, BARACUDA_ARG_Y,  BARACUDA_ARG_INITIAL_STATES,
    BARACUDA_ARG_FINAL_STATES, BARACUDA_ARG_DY, BARACUDA_ARG_DX, BARACUDA_ARG_DW, BARACUDA_ARG_DB,
    BARACUDA_ARG_DINITIAL_STATES, BARACUDA_ARG_STATE, BARACUDA_ARG_CACHE_SEQLENS};

class CausalConv1dPlan final : public Plan {
 public:
  CausalConv1dPlan(const Spec &spec, const SelectContext &ctx) : spec_(spec) {
    info.op = spec.kind == Kind::Forward    ? BARACUDA_OP_CAUSAL_CONV1D
              : spec.kind == Kind::Backward ? BARACUDA_OP_CAUSAL_CONV1D_BACKWARD
                                            : BARACUDA_OP_CAUSAL_CONV1D_UPDATE;
    info.dtype = spec.dtype;
    info.target_sm = ctx.target_sm;
    info.backend = BARACUDA_BACKEND_BESPOKE;
    const baracuda_dtype_t acc = spec.dtype == BARACUDA_DTYPE_F64 ? BARACUDA_DTYPE_F64 : BARACUDA_DTYPE_F32;
    info.math_precision = acc;
    info.accumulator = acc;
    info.deterministic = 1;
    info.bit_stable = 1;
    info.workspace_bytes = workspace_size();
    kernels::write_dense_conv1d_kernel_name(
        info.kernel_name, sizeof info.kernel_name, spec.op,
        spec.kind == Kind::Forward    ? kernels::Conv1dPass::Forward
        : spec.kind == Kind::Backward ? kernels::Conv1dPass::Backward
                                      : kernels::Conv1dPass::Update,
        dtype_bytes(spec.dtype), spec.batch, spec.channels, spec.length, spec.width, dtype_name(spec.dtype));
  }

  size_t workspace_size() const override {
    if (spec_.kind != Kind::Backward) return 0;
    return kernels::causal_conv1d_backward_workspace(spec_.batch, spec_.channels, spec_.length, spec_.width,
                                                     spec_.dtype == BARACUDA_DTYPE_F64);
  }

  void check(const baracuda_arg_t *args, int32_t num_args) const override { bind(args, num_args); }

  void run(const baracuda_arg_t *args, int32_t num_args, void *workspace, size_t workspace_bytes,
           baracuda_stream_t stream) const override {
    const kernels::Conv1dProblem p = bind(args, num_args);
    const kernels::Conv1dEntries &e = entries(spec_.dtype);
    const int rc = spec_.kind == Kind::Forward    ? e.forward(p, stream)
                   : spec_.kind == Kind::Backward ? e.backward(p, workspace, workspace_bytes, stream)
                                                  : e.update(p, stream);
    check_launch(rc, spec_.op);
  }

 private:
  // Validates every argument and fills the kernels' problem.
  kernels::Conv1dProblem bind(const baracuda_arg_t *args, int32_t num_args) const {
    const Kind k = spec_.kind;
    const bool fwd = k == Kind::Forward, bwd = k == Kind::Backward, upd = k == Kind::Update;
    // Required, optional, or not taken (left out of the list).
    RoleSpec roles[kSlots];
    int slot_of[kSlots];
    size_t n = 0;
    auto take = [&](Slot s, bool required) {
      slot_of[n] = s;
      roles[n++] = {kRoleOf[s], required};
    };
    take(kX, true);
    take(kWeight, true);
    take(kBias, false);
    if (fwd || upd) take(kY, true);
    if (fwd || bwd) take(kInitial, false);
    if (fwd) take(kFinal, false);
    if (bwd) {
      take(kDy, true);
      take(kDx, true);
      take(kDw, false);
      take(kDb, false);
      take(kDinitial, false);
    }
    if (upd) {
      take(kState, true);
      take(kSeqlens, false);
    }
    const baracuda_tensor_t *bound[kSlots];
    bind_args(spec_.op, args, num_args, roles, n, bound);
    const baracuda_tensor_t *t[kSlots] = {};
    for (size_t i = 0; i < n; ++i) t[slot_of[i]] = bound[i];

    const int64_t B = spec_.batch, C = spec_.channels, L = spec_.length, W = spec_.width;
    const int64_t seq[3] = {B, C, L}, taps[2] = {C, W}, chan[1] = {C}, ends[3] = {B, C, W - 1},
                  state[3] = {B, C, spec_.state_len}, batch[1] = {B};
    // The update takes x and y as [B, C] when it steps one token.
    const int32_t seq_rank = upd && t[kX]->rank == 2 && L == 1 ? 2 : 3;
    auto check = [&](Slot s, const char *name, int32_t rank, const int64_t *shape, bool written,
                     baracuda_dtype_t dtype) {
      if (t[s]) validate_tensor(*t[s], {spec_.op, name, dtype, rank, shape, written});
    };
    const baracuda_dtype_t dt = spec_.dtype;
    check(kX, "X", seq_rank, seq, false, dt);
    check(kWeight, "WEIGHT", 2, taps, false, dt);
    check(kBias, "BIAS", 1, chan, false, dt);
    check(kY, "Y", seq_rank, seq, true, dt);
    check(kInitial, "INITIAL_STATES", 3, ends, false, dt);
    check(kFinal, "FINAL_STATES", 3, ends, true, dt);
    check(kDy, "DY", 3, seq, false, dt);
    check(kDx, "DX", 3, seq, true, dt);
    check(kDw, "DW", 2, taps, true, dt);
    check(kDb, "DB", 1, chan, true, dt);
    check(kDinitial, "DINITIAL_STATES", 3, ends, true, dt);
    check(kState, "STATE", 3, state, true, dt);
    check(kSeqlens, "CACHE_SEQLENS", 1, batch, false, BARACUDA_DTYPE_I32);
    if (t[kDb] && !t[kBias]) fail(BARACUDA_STATUS_INVALID_PROBLEM, spec_.op, ": arg DB is given without BIAS");
    auto same = [&](Slot a, Slot b) { return t[a] && t[b] && t[a]->data == t[b]->data && t[a]->data; };
    if (same(kY, kX) || same(kDx, kDy) || same(kDx, kX))
      fail(BARACUDA_STATUS_INVALID_PROBLEM, spec_.op, ": an output shares its data with an input (no in-place)");

    kernels::Conv1dProblem p;
    p.batch = B;
    p.channels = C;
    p.length = L;
    p.width = spec_.width;
    p.silu = spec_.silu;
    p.state_len = spec_.state_len;
    auto view = [&](Slot s, int32_t rank) {
      kernels::Conv1dView v;
      if (!t[s]) return v;
      v.data = t[s]->data;
      // [B, C] x and y of a one-token update: L's stride is irrelevant (one step).
      for (int32_t d = 0; d < rank; ++d) v.stride[d] = t[s]->strides[d];
      return v;
    };
    p.x = view(kX, seq_rank);
    p.weight = view(kWeight, 2);
    p.bias = view(kBias, 1);
    p.y = view(kY, seq_rank);
    p.initial = view(kInitial, 3);
    p.final_states = view(kFinal, 3);
    p.dy = view(kDy, 3);
    p.dx = view(kDx, 3);
    p.dweight = view(kDw, 2);
    p.dbias = view(kDb, 1);
    p.dinitial = view(kDinitial, 3);
    p.state = view(kState, 3);
    p.cache_seqlens = view(kSeqlens, 1);
    return p;
  }

  Spec spec_;
};

}  // namespace

std::unique_ptr<Plan> select_forward(const baracuda_op_header_t *desc, const SelectContext &ctx) {
  return std::make_unique<CausalConv1dPlan>(read_desc(desc, Kind::Forward), ctx);
}
std::unique_ptr<Plan> select_backward(const baracuda_op_header_t *desc, const SelectContext &ctx) {
  return std::make_unique<CausalConv1dPlan>(read_desc(desc, Kind::Backward), ctx);
}
std::unique_ptr<Plan> select_update(const baracuda_op_header_t *desc, const SelectContext &ctx) {
  return std::make_unique<CausalConv1dPlan>(read_desc(desc, Kind::Update), ctx);
}

uint64_t causal_conv1d_dtypes() {
  return dtype_bit(BARACUDA_DTYPE_F32) | dtype_bit(BARACUDA_DTYPE_F16) | dtype_bit(BARACUDA_DTYPE_BF16) |
         dtype_bit(BARACUDA_DTYPE_F64);
}

}  // namespace baracuda::causal_conv1d
