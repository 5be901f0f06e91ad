// Attention plans: the forward and the backward, and their candidate kernels
// (cuDNN's fused attention, tensor cores for f16 / bf16 on sm_90a (wgmma and
// TMA, the forward), sm_89 and sm_80 and for
// f32, split into tf32 halves; CUDA cores for f32 / f64, and for F32_STRICT, which
// rules out reduced-precision math).
#include <memory>
#include <string>
#include <type_traits>

#include "core/arch_limits.hpp"
#include "core/args.hpp"
#include "core/candidates.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/kernel_table.hpp"
#include "core/plan.hpp"
#include "core/plan_info.hpp"
#include "ops/sdpa/sdpa_cudnn.hpp"
#include "ops/sdpa/sdpa_desc.hpp"
#include "ops/sdpa/sdpa_ops.hpp"
#include "ops/sdpa/views_overlap.hpp"
#include "sdpa/sdpa_backward_heuristics.h"
#include "sdpa/sdpa_kernels.h"
#include "sdpa/sdpa_simt_heuristics.h"
#include "sdpa/sdpa_tc_heuristics.h"
#include "sdpa/sdpa_tf32x3_heuristics.h"
#include "sdpa/sdpa_visible_keys.h"
#include "sdpa/sm90/sdpa_backward_sm90_shape.h"
#include "sdpa/sm90/sdpa_forward_sm90_shape.h"

namespace baracuda::sdpa {

namespace {

constexpr int32_t kInvalid = BARACUDA_STATUS_INVALID_PROBLEM;
constexpr int32_t kMaxHeadSize = 256;

using ForwardFn = int (*)(const kernels::SdpaProblem &, cudaStream_t);
// Entries that take a workspace: every backward, and the Hopper forward.
using WorkspaceFn = int (*)(const kernels::SdpaProblem &, void *, size_t, cudaStream_t);

// A kernel family for one pass: the archs it is chosen for and its entry per dtype.
template <class Fn, size_t N = 2>
struct Variant {
  CandidateTraits traits;  // traits.name is also the stem of plan info's kernel name
  int32_t min_sm;
  int32_t only_sm;  // 0: every sm from min_sm on; else this sm alone
  Keyed<Fn> kernels[N];
  size_t (*workspace)(const kernels::SdpaProblem &);  // NULL: none (ForwardFn's entries)
  size_t (*least_smem)(const Spec &);  // the shared memory a block needs at the least
  bool needs_fast_tf32 = false;        // chosen only where tf32 MMAs far outrun f32 CUDA cores
  bool (*built)() = nullptr;           // NULL: always built; else whether this build holds its code
  // NULL: the checks above are all; else why it cannot serve s beyond them (null: it can).
  const char *(*refusal)(const Spec &) = nullptr;
};

// The Hopper forward's workspace: a shared last round's partial rows
// (sdpa_forward_sm90_shape.h), none where the kernel never shares one (a
// window, or a causal mask with keys other than queries: item_key_tiles).
size_t forward_workspace_sm90(const kernels::SdpaProblem &p) {
  if (p.window_left >= 0 || p.window_right >= 0 || (p.causal && p.queries != p.keys)) return 0;
  const int tile = kernels::sdpa_tc_head_dim_tile(p.head_dim, p.head_dim_v);
  const bool bounded = kernels::sdpa_visible_keys(p).bounded();
  const kernels::SdpaSm90Shape shape = kernels::sdpa_sm90_shape(tile, bounded);
  const int64_t tiles = p.batch * p.heads_q * ((p.queries + shape.block_m() - 1) / shape.block_m());
  return kernels::sdpa_sm90_forward_workspace_bytes(tile, bounded, tiles, (p.keys + shape.block_n - 1) / shape.block_n);
}
size_t forward_smem_sm90(const Spec &s) {
  return kernels::sdpa_sm90_most_smem_bytes(kernels::sdpa_tc_head_dim_tile(s.head_dim, s.head_dim_v));
}
size_t forward_smem_sm89(const Spec &s) {
  return kernels::sdpa_tc_smem_bytes(kernels::SdpaTcVariant::kSm89, s.head_dim, s.head_dim_v);
}
size_t forward_smem_sm80(const Spec &s) {
  return kernels::sdpa_tc_smem_bytes(kernels::SdpaTcVariant::kSm80, s.head_dim, s.head_dim_v);
}
size_t forward_smem_tf32x3(const Spec &s) { return kernels::sdpa_tf32x3_smem_bytes(s.head_dim, s.head_dim_v); }
size_t backward_smem_sm90(const Spec &s) {
  return kernels::sdpa_sm90_backward_smem_bytes(
      kernels::sdpa_sm90_backward_shape(kernels::sdpa_backward_head_tile(s.head_dim, s.head_dim_v)));
}
const char *backward_refusal_sm90(const Spec &s) {
  return kernels::sdpa_sm90_backward_extents_refusal(s.batch, s.heads_kv, s.queries, s.keys);
}
size_t backward_smem_sm80(const Spec &s) {
  return kernels::sdpa_backward_tile_facts(kernels::sdpa_backward_head_tile(s.head_dim, s.head_dim_v)).smem_bytes;
}
template <bool Backward>
size_t simt_smem(const Spec &s) {
  return kernels::sdpa_simt_least_smem(Backward, dtype_bytes(s.dtype), s.head_dim, s.head_dim_v);
}

// The Hopper kernel: sm_90a code, which runs on sm 90 alone. First among the
// bespoke kernels there: on the H200 (bf16) 1.2-2.3x the sm_80 kernel on the
// attention table (session 17's final run) and 1.9-3.0x on the decoding
// rows at D 128 (Q 1 to 16 against K 4096 to 32768, GQA 8), 1.1x at D 64
// (session 18's probe, bench/NOTES.md).
constexpr Variant<WorkspaceFn> kForwardSm90{
    {"sdpa_fwd_sm90_wgmma", BARACUDA_BACKEND_BESPOKE, true, true}, 90, 90,
    {{BARACUDA_DTYPE_F16, kernels::sdpa_forward_sm90_f16}, {BARACUDA_DTYPE_BF16, kernels::sdpa_forward_sm90_bf16}},
    forward_workspace_sm90, forward_smem_sm90, false, kernels::sdpa_forward_sm90_built};
// The sm_89 variant is tuned for that arch alone (its smaller shared memory
// and L2); elsewhere the sm_80 kernel is the better one. It has no backward:
// on sm 89 the backward is the sm_80 one.
constexpr Variant<ForwardFn> kForwardSm89{
    {"sdpa_fwd_sm89", BARACUDA_BACKEND_BESPOKE, true, true}, 89, 89,
    {{BARACUDA_DTYPE_F16, kernels::sdpa_forward_sm89_f16}, {BARACUDA_DTYPE_BF16, kernels::sdpa_forward_sm89_bf16}},
    nullptr, forward_smem_sm89};
constexpr Variant<ForwardFn> kForwardSm80{
    {"sdpa_fwd_sm80", BARACUDA_BACKEND_BESPOKE, true, true}, 80, 0,
    {{BARACUDA_DTYPE_F16, kernels::sdpa_forward_sm80_f16}, {BARACUDA_DTYPE_BF16, kernels::sdpa_forward_sm80_bf16}},
    nullptr, forward_smem_sm80};
// f32 on tensor cores, each operand split into tf32 halves: about 2^-20
// relative per product where the CUDA-core kernel has 2^-24, so F32_STRICT is
// not among its dtypes.
constexpr Variant<ForwardFn, 1> kForwardTf32x3{
    {"sdpa_fwd_sm80_3xtf32", BARACUDA_BACKEND_BESPOKE, true, true}, 80, 0,
    {{BARACUDA_DTYPE_F32, kernels::sdpa_forward_tf32x3_f32}}, nullptr, forward_smem_tf32x3, true};
constexpr Variant<ForwardFn, 3> kForwardSimt{
    {"sdpa_fwd_simt", BARACUDA_BACKEND_BESPOKE, true, true}, 80, 0,
    {{BARACUDA_DTYPE_F32, kernels::sdpa_forward_simt_f32}, {BARACUDA_DTYPE_F64, kernels::sdpa_forward_simt_f64},
     {BARACUDA_DTYPE_F32_STRICT, kernels::sdpa_forward_simt_f32}},
    nullptr, simt_smem<false>};
// dq summed with atomics: fast, its last bits vary from run to run.
constexpr Variant<WorkspaceFn> kBackwardSm80{
    {"sdpa_bwd_sm80", BARACUDA_BACKEND_BESPOKE, false, false}, 80, 0,
    {{BARACUDA_DTYPE_F16, kernels::sdpa_backward_sm80_f16}, {BARACUDA_DTYPE_BF16, kernels::sdpa_backward_sm80_bf16}},
    kernels::sdpa_backward_workspace_sm80, backward_smem_sm80};
// The Hopper backward (sm_90a, sm 90 alone), dq summed by TMA reductions
// (at the 256 tile by its consumers' reductions): the extents its grid and
// TMA take (select refuses the others; views TMA cannot read, which select
// does not see, run the sm_80 kernel under its plan). Measured on the H200
// (bf16, session 18's probes) at 0.91x to 0.98x cuDNN at D 64 and 128, and
// at 1.28x (1.31x causal) the sm_80 kernel at D 256, so first among the
// bespoke kernels everywhere.
constexpr Variant<WorkspaceFn> kBackwardSm90{
    {"sdpa_bwd_sm90_wgmma", BARACUDA_BACKEND_BESPOKE, false, false}, 90, 90,
    {{BARACUDA_DTYPE_F16, kernels::sdpa_backward_sm90_f16}, {BARACUDA_DTYPE_BF16, kernels::sdpa_backward_sm90_bf16}},
    kernels::sdpa_backward_workspace_sm80, backward_smem_sm90, false, kernels::sdpa_backward_sm90_built,
    backward_refusal_sm90};
// The same entries told p.deterministic: dq summed in a fixed order (the key
// tiles of a query tile one after the other, each waiting for the last's
// reductions to complete), every head size.
constexpr Variant<WorkspaceFn> kBackwardSm90Deterministic{
    {"sdpa_bwd_sm90_deterministic", BARACUDA_BACKEND_BESPOKE, true, true}, 90, 90,
    {{BARACUDA_DTYPE_F16, kernels::sdpa_backward_sm90_f16}, {BARACUDA_DTYPE_BF16, kernels::sdpa_backward_sm90_bf16}},
    kernels::sdpa_backward_workspace_sm80, backward_smem_sm90, false, kernels::sdpa_backward_sm90_built,
    backward_refusal_sm90};
constexpr Variant<WorkspaceFn> kBackwardSm80Deterministic{
    {"sdpa_bwd_sm80_deterministic", BARACUDA_BACKEND_BESPOKE, true, true}, 80, 0,
    {{BARACUDA_DTYPE_F16, kernels::sdpa_backward_sm80_f16}, {BARACUDA_DTYPE_BF16, kernels::sdpa_backward_sm80_bf16}},
    kernels::sdpa_backward_workspace_sm80, backward_smem_sm80};
constexpr Variant<WorkspaceFn, 3> kBackwardSimt{
    {"sdpa_bwd_simt", BARACUDA_BACKEND_BESPOKE, true, true}, 80, 0,
    {{BARACUDA_DTYPE_F32, kernels::sdpa_backward_simt_f32}, {BARACUDA_DTYPE_F64, kernels::sdpa_backward_simt_f64},
     {BARACUDA_DTYPE_F32_STRICT, kernels::sdpa_backward_simt_f32}},
    kernels::sdpa_backward_workspace_simt, simt_smem<true>};

static_assert((table_keys(kForwardSm80.kernels) | table_keys(kForwardSimt.kernels)) == kForward.dtypes &&
                  (table_keys(kBackwardSm80.kernels) | table_keys(kBackwardSimt.kernels)) == kBackward.dtypes,
              "the attention ops serve exactly their kernels' dtypes");

// Nothing to compute or write: no query row and, in the backward, no key
// either. Rows that see no key (K = 0) still get out = 0, lse = -inf and
// dq = 0, and keys that no query sees (Q = 0) dk = dv = 0: the kernels write
// them as they do for fully masked rows.
bool nothing_to_write(const Spec &s) {
  if (s.batch == 0 || s.heads_q == 0) return true;
  return s.backward() ? s.queries == 0 && s.keys == 0 : s.queries == 0;
}

// The extents and score options, no tensors yet.
kernels::SdpaProblem problem_of(const Spec &s, bool deterministic) {
  kernels::SdpaProblem p{};
  p.batch = s.batch;
  p.heads_q = s.heads_q;
  p.heads_kv = s.heads_kv;
  p.queries = s.queries;
  p.keys = s.keys;
  p.head_dim = s.head_dim;
  p.head_dim_v = s.head_dim_v;
  p.scale = s.scale;
  p.softcap = s.softcap;
  p.causal = s.causal;
  p.bottom_right = s.bottom_right;
  p.window_left = s.window_left;
  p.window_right = s.window_right;
  p.alibi = s.alibi;
  p.deterministic = deterministic;
  return p;
}

// "sdpa_fwd_sm80_bf16_d128", with "_dv64" when Dv differs from D.
std::string kernel_name(const Spec &s, const CandidateTraits &traits) {
  std::string name = cat(traits.name, "_", dtype_name(s.dtype), "_d", s.head_dim);
  if (s.head_dim_v != s.head_dim) name += cat("_dv", s.head_dim_v);
  return nothing_to_write(s) ? name + " (empty problem: no launch)" : name;
}

template <class Fn>
class SdpaPlan final : public Plan {
 public:
  template <size_t N>
  SdpaPlan(const Spec &spec, const Variant<Fn, N> &variant)
      : spec_(spec),
        deterministic_(variant.traits.deterministic),
        entry_(kernel_for_dtype(spec.op->name, variant.kernels, spec.dtype)) {
    set_accumulates(info, spec.dtype);
    set_kernel_name(info, kernel_name(spec, variant.traits));
  }

  void check(const baracuda_arg_t *args, int32_t num_args) const override { bind(args, num_args); }

  void run(const baracuda_arg_t *args, int32_t num_args, void *workspace, size_t workspace_bytes,
           baracuda_stream_t stream) const override {
    const kernels::SdpaProblem p = bind(args, num_args);
    if (nothing_to_write(spec_)) return;
    check_launch(launch(p, workspace, workspace_bytes, stream), spec_.op->name);
  }

 private:
  int launch(const kernels::SdpaProblem &p, void *workspace, size_t workspace_bytes, cudaStream_t stream) const {
    if constexpr (std::is_same_v<Fn, WorkspaceFn>) return entry_(p, workspace, workspace_bytes, stream);
    else return entry_(p, stream);
  }

  // Validates every argument and fills the kernels' problem.
  kernels::SdpaProblem bind(const baracuda_arg_t *args, int32_t num_args) const {
    const OpDef &op = *spec_.op;
    const BoundArgs t = bind_args(op, args, num_args);
    const Spec &s = spec_;
    const int64_t q[4] = {s.batch, s.heads_q, s.queries, s.head_dim}, k[4] = {s.batch, s.heads_kv, s.keys, s.head_dim},
                  v[4] = {s.batch, s.heads_kv, s.keys, s.head_dim_v},
                  out[4] = {s.batch, s.heads_q, s.queries, s.head_dim_v};
    const int32_t slopes_rank = s.per_batch_slopes ? 2 : 1;
    const int64_t *slopes_shape = s.per_batch_slopes ? q : q + 1;
    const struct {
      int32_t role;
      const int64_t *shape;
    } heads[] = {{BARACUDA_ARG_Q, q},    {BARACUDA_ARG_K, k},     {BARACUDA_ARG_V, v},   {BARACUDA_ARG_OUT, out},
                 {BARACUDA_ARG_DOUT, out}, {BARACUDA_ARG_DQ, q}, {BARACUDA_ARG_DK, k}, {BARACUDA_ARG_DV, v}};
    for (const auto &h : heads)
      if (op.find_role(h.role)) validate_arg(op, t, h.role, s.dtype, 4, h.shape);
    validate_arg(op, t, BARACUDA_ARG_LSE, s.stats_dtype(), 3, q);
    validate_arg(op, t, BARACUDA_ARG_SLOPES, s.stats_dtype(), slopes_rank, slopes_shape);
    if (s.alibi != 0 && !t[BARACUDA_ARG_SLOPES])
      fail(kInvalid, op.name, ": required arg SLOPES is missing (the descriptor asks for ALiBi)");
    if (s.alibi == 0 && t[BARACUDA_ARG_SLOPES])
      fail(kInvalid, op.name, ": arg SLOPES is given but the descriptor's alibi is 0");
    for (const auto &h : heads)
      if (const baracuda_tensor_t *x = t[h.role]; x && element_count(4, h.shape) > 0 && x->strides[3] != 1)
        fail(BARACUDA_STATUS_UNSUPPORTED, op.name, ": arg ", role_name(h.role), " strides[3] is ", x->strides[3],
             ", only 1 is served on the head-size axis");
    require_written_apart(t);

    kernels::SdpaProblem p = problem_of(s, deterministic_);
    auto view = [&](int32_t role) {
      kernels::SdpaTensor x{};
      if (const baracuda_tensor_t *a = t[role]) {
        x.data = a->data;
        for (int d = 0; d < 3; ++d) x.stride[d] = a->strides[d];
      }
      return x;
    };
    auto out_view = [&](int32_t role) {
      const kernels::SdpaTensor x = view(role);
      return kernels::SdpaOutTensor{const_cast<void *>(x.data), {x.stride[0], x.stride[1], x.stride[2]}};
    };
    p.q = view(BARACUDA_ARG_Q);
    p.k = view(BARACUDA_ARG_K);
    p.v = view(BARACUDA_ARG_V);
    p.dout = view(BARACUDA_ARG_DOUT);
    p.dq = out_view(BARACUDA_ARG_DQ);
    p.dk = out_view(BARACUDA_ARG_DK);
    p.dv = out_view(BARACUDA_ARG_DV);
    if (s.backward()) {
      const kernels::SdpaTensor o = view(BARACUDA_ARG_OUT);  // an input of the backward
      p.out = {const_cast<void *>(o.data), {o.stride[0], o.stride[1], o.stride[2]}};
    } else {
      p.out = out_view(BARACUDA_ARG_OUT);
    }
    if (const baracuda_tensor_t *lse = t[BARACUDA_ARG_LSE]) {
      p.lse = lse->data;
      for (int d = 0; d < 3; ++d) p.lse_stride[d] = lse->strides[d];
    }
    if (const baracuda_tensor_t *slopes = t[BARACUDA_ARG_SLOPES]) {
      p.slopes = slopes->data;
      // [Hq] slopes are shared by every batch: B's stride is 0.
      p.slope_stride[0] = s.per_batch_slopes ? slopes->strides[0] : 0;
      p.slope_stride[1] = slopes->strides[slopes_rank - 1];
    }
    return p;
  }

  // No output shares a byte with an input or with another output: the
  // kernels read the inputs while the outputs are being written. Inputs may
  // share (views of one packed QKV buffer), and so may nothing else.
  void require_written_apart(const BoundArgs &t) const {
    const OpDef &op = *spec_.op;
    for (size_t w = 0; w < op.num_roles; ++w) {
      const ArgRole &written = op.roles[w];
      if (written.flow == Flow::In || !t[written.role]) continue;
      for (size_t o = 0; o < op.num_roles; ++o) {
        const ArgRole &other = op.roles[o];
        // Each pair of outputs once; every input against every output.
        if (o == w || (other.flow != Flow::In && o < w) || !t[other.role]) continue;
        if (views_may_overlap(*t[written.role], *t[other.role]))
          fail(kInvalid, op.name, ": arg ", written.name, " overlaps arg ", other.name,
               " (an output may share no byte with an input or another output)");
      }
    }
  }

  Spec spec_;
  bool deterministic_;
  Fn entry_;
};

// Bounds what a backward workspace formula multiplies: f32 or f64 copies of
// dq and per-row statistics stay far below 2^64 bytes.
WhyNot backward_extents_bounded(const Spec &s) {
  const int64_t rows[3] = {s.batch, s.heads_q, s.queries + 256};
  const int128 bytes = element_count(3, rows) * (static_cast<int128>(s.head_dim) + s.head_dim_v + 16) * 16;
  if (within_extent_range(bytes)) return serves();
  return std::string("its workspace would pass 2^62 bytes for these extents");
}

template <class Fn, size_t N>
WhyNot variant_serves(const Variant<Fn, N> &v, const Spec &s, const SelectContext &ctx) {
  if (v.built != nullptr && !v.built()) return cat("this build holds no code for it (gpu_arch lacks ", v.min_sm, ")");
  if (v.only_sm != 0 && ctx.target_sm != v.only_sm) return cat("chosen only for target sm ", v.only_sm);
  if (ctx.target_sm < v.min_sm) return cat("needs sm ", v.min_sm, " or newer");
  if (v.needs_fast_tf32 && !fast_tf32(ctx.target_sm))
    return cat("sm ", ctx.target_sm, "'s tf32 MMAs do not outrun its f32 CUDA cores enough for several per product");
  if (!table_has(v.kernels, s.dtype))
    return cat("dtype ", dtype_name(s.dtype), " is not served (", dtype_list(table_keys(v.kernels)), ")");
  if (s.head_dim > kMaxHeadSize) return cat("head_dim ", s.head_dim, " is over ", kMaxHeadSize);
  if (s.head_dim_v > kMaxHeadSize) return cat("head_dim_v ", s.head_dim_v, " is over ", kMaxHeadSize);
  const size_t smem = v.least_smem(s), offered = max_shared_memory_per_block(ctx.target_sm);
  if (smem > offered)
    return cat("its blocks need ", smem / 1024, " KiB of shared memory for head_dim ", s.head_dim, ", head_dim_v ",
               s.head_dim_v, "; sm ", ctx.target_sm, " offers ", offered / 1024);
  if (v.refusal != nullptr)
    if (const char *why = v.refusal(s))
      return cat(why, ": B ", s.batch, ", Hkv ", s.heads_kv, ", Q ", s.queries, ", K ", s.keys, ", head_dim ",
                 s.head_dim, ", head_dim_v ", s.head_dim_v);
  return s.backward() ? backward_extents_bounded(s) : serves();
}

template <class Fn, const auto &V>
WhyNot can_implement(const Spec &s, const SelectContext &ctx) {
  return variant_serves(V, s, ctx);
}

template <class Fn, const auto &V>
int128 workspace(const Spec &s) {
  if constexpr (std::is_same_v<Fn, ForwardFn>) return 0;
  else return nothing_to_write(s) ? 0 : V.workspace(problem_of(s, V.traits.deterministic));
}

template <class Fn, const auto &V>
std::unique_ptr<Plan> make_plan(const Spec &s, const SelectContext &) {
  return std::make_unique<SdpaPlan<Fn>>(s, V);
}

template <class Fn, const auto &V>
constexpr Candidate<Spec> candidate() {
  return {V.traits, can_implement<Fn, V>, workspace<Fn, V>, make_plan<Fn, V>};
}

// In order of preference. cuDNN serves where the measured table
// (sdpa_backend_heuristics.hpp) puts it ahead; the Hopper kernels ahead of
// the sm_80 ones wherever they serve.
const Candidate<Spec> kForwardCandidates[] = {
    cudnn_candidate<kCudnnForward>(),
    candidate<WorkspaceFn, kForwardSm90>(),
    candidate<ForwardFn, kForwardSm89>(),
    candidate<ForwardFn, kForwardSm80>(),
    candidate<ForwardFn, kForwardTf32x3>(),
    candidate<ForwardFn, kForwardSimt>(),
};
const Candidate<Spec> kBackwardCandidates[] = {
    cudnn_candidate<kCudnnBackward>(),
    cudnn_candidate<kCudnnBackwardDeterministic>(),
    candidate<WorkspaceFn, kBackwardSm90>(),
    candidate<WorkspaceFn, kBackwardSm80>(),
    candidate<WorkspaceFn, kBackwardSm90Deterministic>(),
    candidate<WorkspaceFn, kBackwardSm80Deterministic>(),
    candidate<WorkspaceFn, kBackwardSimt>(),
};

}  // namespace

std::unique_ptr<Plan> select_bespoke(const Spec &s, const SelectContext &ctx) {
  if (s.backward()) return select_candidate(kBackward, s.dtype, s, ctx, kBackwardCandidates);
  return select_candidate(kForward, s.dtype, s, ctx, kForwardCandidates);
}

std::unique_ptr<Plan> select_forward(const baracuda_op_header_t *desc, const SelectContext &ctx) {
  const Spec spec = read_sdpa_desc(desc, kForward);
  return select_candidate(kForward, spec.dtype, spec, ctx, kForwardCandidates);
}
std::unique_ptr<Plan> select_backward(const baracuda_op_header_t *desc, const SelectContext &ctx) {
  const Spec spec = read_sdpa_desc(desc, kBackward);
  return select_candidate(kBackward, spec.dtype, spec, ctx, kBackwardCandidates);
}

}  // namespace baracuda::sdpa
