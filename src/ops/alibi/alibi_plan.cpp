// ALiBi plans: the forward and the single-pass backward, and their candidate
// kernels.
#include <memory>
#include <string>

#include "alibi/alibi_kernels.h"
#include "core/args.hpp"
#include "core/candidates.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/kernel_table.hpp"
#include "core/plan.hpp"
#include "core/plan_info.hpp"
#include "ops/alibi/alibi_desc.hpp"
#include "ops/alibi/alibi_ops.hpp"

namespace baracuda::alibi {

namespace {

constexpr int32_t kInvalid = BARACUDA_STATUS_INVALID_PROBLEM;

inline constexpr Keyed<const kernels::AlibiEntries *> kEntriesByDtype[] = {
    {BARACUDA_DTYPE_F32, &kernels::kAlibiF32},
    {BARACUDA_DTYPE_F16, &kernels::kAlibiF16},
    {BARACUDA_DTYPE_BF16, &kernels::kAlibiBf16},
    {BARACUDA_DTYPE_F64, &kernels::kAlibiF64},
};
static_assert(table_keys(kEntriesByDtype) == kForward.dtypes && kForward.dtypes == kBackward.dtypes,
              "the ALiBi ops serve exactly their kernels' dtypes");

// The tiles the kernels cut the problem into, in the name, how the backward
// adds its sums, and what an empty problem launches: nothing, or the
// backward's reduction alone to write zero dslopes.
std::string kernel_name(const Spec &s, bool clusters) {
  const std::string base =
      cat(s.op->name, "_", dtype_name(s.dtype), "_", dtype_name(s.slopes_dtype), "_slopes");
  if (s.batch == 0 || s.heads == 0) return base + " (empty problem: no launch)";
  if (s.queries == 0 || s.keys == 0)
    return base + (s.backward() ? " (dslopes zeroed)" : " (empty problem: no launch)");
  const kernels::AlibiTiling t = kernels::alibi_tiling(s.queries, s.keys, dtype_bytes(s.dtype));
  const std::string tiles = cat(base, " tiles ", t.tile_rows, "x", t.chunk_cols);
  if (!s.backward()) return tiles;
  if (!clusters) return tiles + " pass + reduction";
  return cat(tiles, " clusters of ", kernels::alibi_tiles_per_slope(s.batch, s.per_batch_slopes, t));
}

class AlibiPlan final : public Plan {
 public:
  AlibiPlan(const Spec &spec, bool clusters)
      : spec_(spec),
        clusters_(clusters),
        entries_(*kernel_for_dtype(spec.op->name, kEntriesByDtype, spec.dtype)) {
    set_accumulates(info, spec.dtype);
    set_kernel_name(info, kernel_name(spec, clusters));
  }

  void check(const baracuda_arg_t *args, int32_t num_args) const override { bind(args, num_args); }

  void run(const baracuda_arg_t *args, int32_t num_args, void *workspace, size_t workspace_bytes,
           baracuda_stream_t stream) const override {
    const kernels::AlibiProblem p = bind(args, num_args);
    const int rc = spec_.backward() ? entries_.backward(p, workspace, workspace_bytes, stream)
                                    : entries_.forward(p, stream);
    check_launch(rc, spec_.op->name);
  }

 private:
  // Validates every argument and fills the kernels' problem.
  kernels::AlibiProblem bind(const baracuda_arg_t *args, int32_t num_args) const {
    const OpDef &op = *spec_.op;
    const BoundArgs t = bind_args(op, args, num_args);
    const int64_t scores[4] = {spec_.batch, spec_.heads, spec_.queries, spec_.keys};
    const int32_t slopes_rank = spec_.per_batch_slopes ? 2 : 1;
    const int64_t *slopes_shape = spec_.per_batch_slopes ? scores : scores + 1;
    const int32_t in_role = spec_.backward() ? BARACUDA_ARG_DY : BARACUDA_ARG_SCORES;
    const int32_t out_role = spec_.backward() ? BARACUDA_ARG_DSCORES : BARACUDA_ARG_Y;
    const int32_t slopes_role = spec_.backward() ? BARACUDA_ARG_DSLOPES : BARACUDA_ARG_SLOPES;
    validate_arg(op, t, in_role, spec_.dtype, 4, scores);
    validate_arg(op, t, out_role, spec_.dtype, 4, scores);
    validate_arg(op, t, slopes_role, spec_.slopes_dtype, slopes_rank, slopes_shape);
    if (!t[out_role] && !t[slopes_role])
      fail(kInvalid, op.name, ": both outputs, DSCORES and DSLOPES, are left out (give at least one)");
    for (int32_t role : {in_role, out_role})
      if (t[role] && spec_.keys > 1 && t[role]->strides[3] != 1)
        fail(BARACUDA_STATUS_UNSUPPORTED, op.name, ": arg ", role_name(role), " strides[3] is ", t[role]->strides[3],
             ", only 1 is served on the keys axis");
    require_no_alias(t, in_role, out_role, slopes_role);

    kernels::AlibiProblem p{};
    p.batch = spec_.batch;
    p.heads = spec_.heads;
    p.queries = spec_.queries;
    p.keys = spec_.keys;
    p.symmetric = spec_.symmetric;
    p.bottom_right = spec_.bottom_right;
    p.per_batch_slopes = spec_.per_batch_slopes;
    p.f32_slopes = spec_.slopes_dtype == BARACUDA_DTYPE_F32;
    p.clusters = clusters_;
    p.in = t[in_role]->data;
    for (int d = 0; d < 3; ++d) p.in_stride[d] = t[in_role]->strides[d];
    if (const baracuda_tensor_t *out = t[out_role]) {
      p.out = out->data;
      for (int d = 0; d < 3; ++d) p.out_stride[d] = out->strides[d];
    }
    if (const baracuda_tensor_t *slopes = t[slopes_role]) {
      if (spec_.backward()) p.dslopes = slopes->data;
      else p.slopes = slopes->data;
      // [H] slopes are shared by every batch: B's stride is 0.
      p.slope_stride[0] = spec_.per_batch_slopes ? slopes->strides[0] : 0;
      p.slope_stride[1] = slopes->strides[slopes_rank - 1];
    }
    return p;
  }

  // The output may be the input itself (same data, same strides: in place),
  // never another view of it.
  void require_no_alias(const BoundArgs &t, int32_t in_role, int32_t out_role, int32_t slopes_role) const {
    const char *name = spec_.op->name;
    const baracuda_tensor_t *in = t[in_role], *out = t[out_role], *slopes = t[slopes_role];
    auto shares = [](const baracuda_tensor_t *a, const baracuda_tensor_t *b) {
      return a && b && a->data && a->data == b->data;
    };
    const int64_t extent[4] = {spec_.batch, spec_.heads, spec_.queries, spec_.keys};
    const bool empty = extent[0] == 0 || extent[1] == 0 || extent[2] == 0 || extent[3] == 0;
    if (shares(in, out) && !empty)
      for (int d = 0; d < 4; ++d)
        if (extent[d] > 1 && in->strides[d] != out->strides[d])
          fail(kInvalid, name, ": arg ", role_name(out_role), " shares its data with ", role_name(in_role),
               " but strides[", d, "] is ", out->strides[d], ", not ", in->strides[d], " (in place needs the same view)");
    // Two inputs may share data (the forward's SCORES and SLOPES); DSLOPES
    // overlaps nothing.
    const bool slopes_written = spec_.backward();
    if ((slopes_written && shares(slopes, in)) || shares(slopes, out))
      fail(kInvalid, name, ": arg ", role_name(slopes_role), " shares its data with ",
           role_name(shares(slopes, out) ? out_role : in_role));
  }

  Spec spec_;
  bool clusters_;
  const kernels::AlibiEntries &entries_;
};

WhyNot serves_all(const Spec &, const SelectContext &) { return serves(); }

WhyNot fits_clusters(const Spec &s, const SelectContext &ctx) {
  if (ctx.target_sm < 90) return cat("thread-block clusters need sm 90, the target is sm ", ctx.target_sm);
  if (!kernels::alibi_backward_fits_clusters(s.batch, s.heads, s.queries, s.keys, s.per_batch_slopes,
                                             dtype_bytes(s.dtype)))
    return cat("a slope has over ", kernels::AlibiTraits::kMaxClusterTiles, " tiles, or Q * K = 0");
  return serves();
}

int128 no_workspace(const Spec &) { return 0; }

// One partial sum of dy * bias per tile, reduced in a fixed order.
int128 backward_workspace(const Spec &s) {
  return kernels::alibi_backward_workspace(s.batch, s.heads, s.queries, s.keys, dtype_bytes(s.dtype));
}

std::unique_ptr<Plan> make_plan(const Spec &s, const SelectContext &) { return std::make_unique<AlibiPlan>(s, false); }

std::unique_ptr<Plan> make_cluster_plan(const Spec &s, const SelectContext &) {
  return std::make_unique<AlibiPlan>(s, true);
}

// No atomics anywhere: every sum has a fixed order, whatever the grid, and
// both backward candidates add the same numbers in the same order. The
// cluster candidate needs no workspace; without DSLOPES it runs the pass alone.
const Candidate<Spec> kForwardCandidates[] = {
    {{"alibi_fwd", BARACUDA_BACKEND_BESPOKE, true, true}, serves_all, no_workspace, make_plan},
};
const Candidate<Spec> kBackwardCandidates[] = {
    {{"alibi_bwd_clusters", BARACUDA_BACKEND_BESPOKE, true, true}, fits_clusters, no_workspace, make_cluster_plan},
    {{"alibi_bwd", BARACUDA_BACKEND_BESPOKE, true, true}, serves_all, backward_workspace, make_plan},
};

}  // namespace

std::unique_ptr<Plan> select_forward(const baracuda_op_header_t *desc, const SelectContext &ctx) {
  const Spec spec = read_alibi_desc(desc, kForward);
  return select_candidate(kForward, spec.dtype, spec, ctx, kForwardCandidates);
}
std::unique_ptr<Plan> select_backward(const baracuda_op_header_t *desc, const SelectContext &ctx) {
  const Spec spec = read_alibi_desc(desc, kBackward);
  return select_candidate(kBackward, spec.dtype, spec, ctx, kBackwardCandidates);
}

}  // namespace baracuda::alibi
