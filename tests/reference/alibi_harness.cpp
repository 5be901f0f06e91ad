#include "reference/alibi_harness.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "alibi/alibi_heuristics.h"
#include "reference/alibi_reference.hpp"
#include "reference/device_tensor.hpp"

namespace baracuda::check {

namespace {

void scores_strides(ScoresLayout l, int64_t H, int64_t Q, int64_t K, int64_t *s, int64_t &offset) {
  switch (l) {
    case ScoresLayout::Padded:
      offset = 3;
      s[3] = 1, s[2] = K + 3, s[1] = Q * s[2] + 5, s[0] = H * s[1] + 7;
      return;
    case ScoresLayout::HeadsInner:
      offset = 0;
      s[3] = 1, s[1] = K, s[2] = H * K, s[0] = Q * H * K;
      return;
    default:
      offset = l == ScoresLayout::Offset ? 1 : 0;
      s[3] = 1, s[2] = K, s[1] = Q * K, s[0] = H * Q * K;
      return;
  }
}

void slopes_strides(SlopesLayout l, int32_t rank, const int64_t *shape, int64_t *s) {
  switch (l) {
    case SlopesLayout::Strided:
      s[0] = 2;
      if (rank == 2) s[1] = 2 * shape[0];
      return;
    case SlopesLayout::Broadcast:
      s[0] = 0;
      if (rank == 2) s[1] = 1;
      return;
    default: dense_strides(rank, shape, s); return;
  }
}

baracuda_dtype_t slopes_dtype_of(const AlibiCase &c) {
  if (c.slopes_dtype != 0) return c.slopes_dtype;
  return c.dtype == BARACUDA_DTYPE_F64 ? BARACUDA_DTYPE_F64 : BARACUDA_DTYPE_F32;
}

// The header's bound on each DSLOPES element: the sum formed in the
// accumulator lies within (log2 N + 2 + P / 256) * eps * sum |dy * bias| of the exact
// one, and a slopes dtype narrower than the accumulator rounds it once more
// (half an ulp, relative). With dy of random signs the sum cancels, so this
// bound, not a fraction of max |dslopes|, is what an exact tree sum meets.
// The header's bound counts P, the blocks whose partial sums make one slope's
// sum: the kernels' tiles of one (b, h), times B for [H] slopes.
int64_t partials_per_slope(const reference::AlibiShape &s, baracuda_dtype_t dtype) {
  if (s.queries == 0 || s.keys == 0) return 0;
  const int64_t per_head =
      kernels::alibi_tiling(s.queries, s.keys, baracuda_dtype_bits(dtype) / 8).tiles_per_head;
  return s.per_batch_slopes ? per_head : per_head * s.batch;
}

std::vector<double> dslopes_bounds(const reference::AlibiSlopeGrads &g, baracuda_dtype_t dtype,
                                   baracuda_dtype_t slopes_dtype, int64_t partials) {
  const double eps = dtype == BARACUDA_DTYPE_F64 ? 0x1p-53 : 0x1p-24;
  const double unit = slopes_dtype == BARACUDA_DTYPE_F16 ? 0x1p-11 : slopes_dtype == BARACUDA_DTYPE_BF16 ? 0x1p-8 : 0;
  std::vector<double> bounds;
  for (size_t k = 0; k < g.dslopes.size(); ++k) {
    const double sum_bound =
        (std::log2(static_cast<double>(g.terms)) + 2 + static_cast<double>(partials) / 256) * eps * g.magnitude[k];
    bounds.push_back(sum_bound + unit * (std::fabs(g.dslopes[k]) + sum_bound));
  }
  return bounds;
}

// The loosest of the bounds as compare_to_reference's tolerance (max abs
// error over max abs reference); check_dslopes_bound holds each element to its own.
double dslopes_tolerance(const reference::AlibiSlopeGrads &g, const std::vector<double> &bounds) {
  double max_ref = 0, max_bound = 0;
  for (size_t k = 0; k < bounds.size(); ++k) {
    max_ref = std::max(max_ref, std::fabs(g.dslopes[k]));
    max_bound = std::max(max_bound, bounds[k]);
  }
  return max_ref > 0 ? max_bound / max_ref : max_bound;
}

void check_dslopes_bound(const TestTensor &t, const std::vector<unsigned char> &got,
                         const reference::AlibiSlopeGrads &g, const std::vector<double> &bounds) {
  std::vector<unsigned char> bytes = got;
  const reference::HostView v = t.view_of(bytes);
  size_t k = 0;
  reference::for_each_index(v.rank, v.shape, [&](const int64_t *idx) {
    const double found = reference::decode_float(t.tensor.dtype, v.elem(idx)), want = g.dslopes[k];
    if (!(std::fabs(found - want) <= bounds[k])) {
      std::ostringstream os;
      os.precision(17);
      os << "DSLOPES[" << k << "] is " << found << ", reference " << want << ": error " << std::fabs(found - want)
         << " over the bound " << bounds[k] << " (N = " << g.terms << ", sum |dy * bias| = " << g.magnitude[k]
         << ")";
      throw Fail{os.str()};
    }
    ++k;
  });
}

}  // namespace

const char *scores_layout_name(ScoresLayout l) {
  switch (l) {
    case ScoresLayout::Offset: return "offset";
    case ScoresLayout::Padded: return "padded";
    case ScoresLayout::HeadsInner: return "heads-inner";
    default: return "contiguous";
  }
}

const char *slopes_layout_name(SlopesLayout l) {
  switch (l) {
    case SlopesLayout::Strided: return "strided";
    case SlopesLayout::Broadcast: return "broadcast";
    default: return "dense";
  }
}

std::string describe(const AlibiCase &c) {
  std::ostringstream os;
  os << (c.op == BARACUDA_OP_ALIBI ? "alibi" : "alibi_backward") << ' ' << baracuda_dtype_name(c.dtype) << " slopes "
     << baracuda_dtype_name(slopes_dtype_of(c)) << (c.slopes_dtype == 0 ? " (default)" : "") << ' '
     << (c.convention == BARACUDA_ALIBI_SYMMETRIC ? "symmetric" : "signed") << ' '
     << (c.alignment == BARACUDA_ALIBI_BOTTOM_RIGHT ? "bottom-right" : "top-left") << " B" << c.batch << " H"
     << c.heads << " Q" << c.queries << " K" << c.keys << (c.per_batch_slopes ? " slopes [B,H] " : " slopes [H] ")
     << slopes_layout_name(c.slopes_layout) << ' ' << scores_layout_name(c.layout) << (c.in_place ? " in-place" : "");
  if (c.op == BARACUDA_OP_ALIBI_BACKWARD) os << (c.dscores ? "" : " no-dscores") << (c.dslopes ? "" : " no-dslopes");
  if (c.repeat_candidate) os << " repeated by " << c.repeat_candidate;
  os << " seed " << c.seed;
  return os.str();
}

Result run_alibi(const AlibiCase &c) {
  return guarded([&] {
    std::mt19937_64 rng(c.seed);
    const bool backward = c.op == BARACUDA_OP_ALIBI_BACKWARD;
    const int64_t B = c.batch, H = c.heads, Q = c.queries, K = c.keys;
    const int64_t scores_shape[4] = {B, H, Q, K};
    int64_t scores_st[4], scores_off;
    scores_strides(c.layout, H, Q, K, scores_st, scores_off);
    const int32_t slopes_rank = c.per_batch_slopes ? 2 : 1;
    const int64_t slopes_shape[2] = {c.per_batch_slopes ? B : H, H};
    int64_t slopes_st[2];
    slopes_strides(c.slopes_layout, slopes_rank, slopes_shape, slopes_st);
    const baracuda_dtype_t slopes_dtype = slopes_dtype_of(c);

    reference::AlibiShape shape;
    shape.batch = B, shape.heads = H, shape.queries = Q, shape.keys = K;
    shape.convention = c.convention, shape.alignment = c.alignment, shape.per_batch_slopes = c.per_batch_slopes;

    TestTensor scores, slopes, y, dy, dscores, dslopes;
    std::vector<baracuda_arg_t> args;
    std::vector<Output> outputs;
    reference::AlibiSlopeGrads grads;
    std::vector<double> bounds;
    if (!backward) {
      const std::vector<double> s = random_tensor(scores, c.dtype, 4, scores_shape, scores_st, scores_off, rng);
      const std::vector<double> k =
          random_tensor(slopes, slopes_dtype, slopes_rank, slopes_shape, slopes_st, 0, rng);
      TestTensor &out = c.in_place ? scores : y;
      if (!c.in_place) output_tensor(y, c.dtype, 4, scores_shape, scores_st, scores_off, rng);
      args = {{BARACUDA_ARG_SCORES, scores.tensor}, {BARACUDA_ARG_SLOPES, slopes.tensor}, {BARACUDA_ARG_Y, out.tensor}};
      outputs.push_back({&out, reference::alibi_forward(shape, s, k), "Y", tolerance(c.dtype)});
    } else {
      if (c.slopes_layout == SlopesLayout::Broadcast) throw Fail{"a broadcast DSLOPES is no valid output"};
      const std::vector<double> g = random_tensor(dy, c.dtype, 4, scores_shape, scores_st, scores_off, rng);
      args.push_back({BARACUDA_ARG_DY, dy.tensor});
      if (c.dscores) {
        TestTensor &out = c.in_place ? dy : dscores;
        if (!c.in_place) output_tensor(dscores, c.dtype, 4, scores_shape, scores_st, scores_off, rng);
        args.push_back({BARACUDA_ARG_DSCORES, out.tensor});
        outputs.push_back({&out, g, "DSCORES", 0.0});  // a copy: exact
      }
      if (c.dslopes) {
        output_tensor(dslopes, slopes_dtype, slopes_rank, slopes_shape, slopes_st, 0, rng);
        args.push_back({BARACUDA_ARG_DSLOPES, dslopes.tensor});
        grads = reference::alibi_backward_slopes(shape, g);
        bounds = dslopes_bounds(grads, c.dtype, slopes_dtype, partials_per_slope(shape, c.dtype));
        outputs.push_back({&dslopes, grads.dslopes, "DSLOPES", dslopes_tolerance(grads, bounds)});
      }
    }

    baracuda_alibi_desc_t desc = BARACUDA_ALIBI_DESC_INIT;
    desc.header.op = c.op;
    desc.dtype = c.dtype;
    desc.slopes_dtype = c.slopes_dtype;
    desc.convention = c.convention;
    desc.alignment = c.alignment;
    desc.per_batch_slopes = c.per_batch_slopes ? 1 : 0;
    desc.batch = B, desc.heads = H, desc.queries = Q, desc.keys = K;
    const std::vector<std::vector<unsigned char>> got =
        run_compare_repeat(&desc.header, args, outputs, c.repeat_candidate);
    if (backward && c.dslopes) check_dslopes_bound(dslopes, got.back(), grads, bounds);
  });
}

}  // namespace baracuda::check
