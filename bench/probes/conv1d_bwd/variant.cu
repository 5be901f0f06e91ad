// One tree's causal conv1d backward behind C entries named PROBE_ENTRY and
// PROBE_ENTRY_workspace (its namespace renamed on the command line, so that
// several trees link into one library): the main kernel the tree's
// heuristics pick for a dense problem ([B, C, L] or channels-last) with
// bias, SiLU on or off, then the reduction of its dw/db partial sums: the
// tree's backward_launch (widths 2-4, 2-8 with PROBE_WIDE).
// PROBE_SILU_TEMPLATE: a tree whose kernels take SiLU and the direct sums as
// template arguments (session 19's): its staged and register kernels alone,
// launched as its backward_launch would. PROBE_DTYPE picks the element and
// weight types of the TU (4: f64, through the tree's backward entry).
#include <cstdint>

#if PROBE_DTYPE == 4  // f64 throughout, through the tree's whole backward entry (a check of its dispatch)
#undef PROBE_DTYPE
#define PROBE_F64
#endif
#include "../common/conv1d_probe_view.h"
#include "causal_conv1d/causal_conv1d_impl.cuh"
#ifdef PROBE_F64
namespace {
using T = double;
using Wt = double;
}  // namespace
#endif

namespace {

using baracuda::kernels::Conv1dProblem;

#ifndef PROBE_F64
template <int W>
int launch(const Conv1dProblem &p, float *partials, cudaStream_t s) {
  using namespace baracuda::kernels;
  using namespace baracuda::kernels::conv1d;
  const Conv1dLaunch l = choose_conv1d_launch(Conv1dPass::Backward, sizeof(T), p);
#ifdef PROBE_SILU_TEMPLATE
  const dim3 grid = grid_of(l);
  float *slots = l.sums_direct ? nullptr : partials;
  if (l.kernel == Conv1dKernel::StagedTimeTiles) {
    with_silu(p.silu, [&](auto silu) {
      if (l.sums_direct)
        backward_time_tiles_kernel<T, W, silu, Wt, true><<<grid, kThreads, 0, s>>>(p, nullptr);
      else
        backward_time_tiles_kernel<T, W, silu, Wt><<<grid, kThreads, 0, s>>>(p, partials);
    });
  } else if (l.kernel == Conv1dKernel::StagedRowGroups) {
    with_silu(p.silu, [&](auto silu) { backward_row_groups_kernel<T, W, silu, Wt><<<grid, kThreads, 0, s>>>(p, slots); });
  } else if (l.kernel == Conv1dKernel::RegisterTimeTiles) {
    if constexpr (kHaloVecs<T, W> == 1) {  // (as the tree's dispatch: the heuristics take no other)
      with_silu(p.silu, [&](auto silu) {
        if (l.sums_direct)
          backward_register_tiles_kernel<T, W, silu, Wt, true><<<grid, kThreads, 0, s>>>(p, nullptr);
        else
          backward_register_tiles_kernel<T, W, silu, Wt><<<grid, kThreads, 0, s>>>(p, partials);
      });
    }
  } else if (l.kernel == Conv1dKernel::StagedChannelTiles) {
    with_silu(p.silu, [&](auto silu) {
      with_seq(p, [&](auto seq) {
        backward_channel_tiles_kernel<T, W, silu, seq, Wt><<<grid, kThreads, 0, s>>>(p, partials, static_cast<int>(l.chunk));
      });
    });
  } else {
    return 1000 + static_cast<int>(l.kernel);  // not a kernel this probe builds
  }
  if (const int rc = launch_error()) return rc;
  if ((p.dweight.data || p.dbias.data) && !l.sums_direct)
    return launch_overlapping(reduce_partials_kernel<T, W, Wt>, blocks_for(p.channels * (W + 1)), kThreads, s, p,
                              static_cast<const float *>(partials), l.partial_slots);
  return 0;
#else
  return backward_launch<T, Wt, W>(p, l, partials, s);  // the tree's own dispatch
#endif
}
#endif

}  // namespace

// x, dy, dx [B, C, L] dense (layout 0) or channels-last ([B, L, C] memory,
// layout 1); weight [C, W], bias, db [C], dw [C, W]; dw and db null: the
// main kernel alone (no reduction launch); seq_idx [B, L] int32 or null.
extern "C" int PROBE_ENTRY(void *x, void *weight, void *bias, void *dy, void *dx, void *dw, void *db, int64_t B,
                           int64_t C, int64_t L, int32_t W, void *workspace, int64_t workspace_bytes, void *stream,
                           int32_t silu, int32_t layout, void *seq_idx) {
  using namespace baracuda::kernels;
  Conv1dProblem p;
  p.batch = B, p.channels = C, p.length = L, p.width = W, p.silu = silu;
  const int64_t sc = layout ? 1 : L, sl = layout ? C : 1;
  p.x = view(x, C * L, sc, sl);
  p.dy = view(dy, C * L, sc, sl);
  p.dx = view(dx, C * L, sc, sl);
  p.weight = view(weight, W, 1, 0);
  p.bias = view(bias, 1, 0, 0);
  p.dweight = view(dw, W, 1, 0);
  p.dbias = view(db, 1, 0, 0);
  p.seq_idx = view(seq_idx, L, 1, 0);  // [B, L] int32 or null
  cudaStream_t s = static_cast<cudaStream_t>(stream);
#ifdef PROBE_F64
  return conv1d::backward<T, Wt>(p, workspace, static_cast<size_t>(workspace_bytes), s);
#else
  if (workspace_bytes < causal_conv1d_backward_workspace(B, C, L, W, false)) return 4;
  auto *partials = static_cast<float *>(workspace);
  switch (W) {
    case 2: return launch<2>(p, partials, s);
    case 3: return launch<3>(p, partials, s);
    case 4: return launch<4>(p, partials, s);
#ifdef PROBE_WIDE  // widths 5-8 too (a correctness pass)
    case 5: return launch<5>(p, partials, s);
    case 6: return launch<6>(p, partials, s);
    case 7: return launch<7>(p, partials, s);
    case 8: return launch<8>(p, partials, s);
#endif
  }
  return 3;
#endif
}

#define PROBE_CAT2(a, b) a##b
#define PROBE_CAT(a, b) PROBE_CAT2(a, b)

// The backward's row ends alone (DINITIAL_STATES, and dx's last W-1 with
// DFINAL_STATES), [B, C, L] dense, initial states [B, C, W-1] and seq_idx
// [B, L] optional: row_ends_kernel as the tree's backward_width launches it.
extern "C" int PROBE_CAT(PROBE_ENTRY, _row_ends)(void *x, void *weight, void *bias, void *dy, void *dx, void *initial,
                                                  void *dinitial, void *dfinal, void *seq_idx, int64_t B, int64_t C,
                                                  int64_t L, int32_t W, int32_t silu, void *stream) {
  using namespace baracuda::kernels;
  using namespace baracuda::kernels::conv1d;
  Conv1dProblem p;
  p.batch = B, p.channels = C, p.length = L, p.width = W, p.silu = silu;
  p.x = view(x, C * L, L, 1);
  p.dy = view(dy, C * L, L, 1);
  p.dx = view(dx, C * L, L, 1);
  p.weight = view(weight, W, 1, 0);
  p.bias = view(bias, 1, 0, 0);
  p.initial = view(initial, C * (W - 1), W - 1, 1);
  p.dinitial = view(dinitial, C * (W - 1), W - 1, 1);
  p.dfinal = view(dfinal, C * (W - 1), W - 1, 1);
  p.seq_idx = view(seq_idx, L, 1, 0);
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  return with_width(W, [&](auto w) {
    row_ends_kernel<T, decltype(w)::value, Wt><<<blocks_for(B * C), kThreads, 0, s>>>(p);
    return launch_error();
  });
}
extern "C" int64_t PROBE_CAT(PROBE_ENTRY, _workspace)(int64_t B, int64_t C, int64_t L, int32_t W) {
  return static_cast<int64_t>(baracuda::kernels::causal_conv1d_backward_workspace(B, C, L, W, sizeof(T) == 8));
}

#ifdef PROBE_ALIASES
// Variants of the tree's host heuristics without a build of their own: entries probe_bwd_<alias>_<d> that set the
// staged heuristics' globals around the tree's entry (the graph capture runs the heuristics, so each alias's
// graph holds its own launches). The staged tree declares them (session 24: probe_tpb, probe_min_blocks,
// probe_narrow, probe_channel_blocks in conv1d_heuristics, used where the constants of conv1d_traits.h were).
namespace {
struct ProbeSetting {
  int tpb;
  int64_t min_blocks;
  int narrow;
  int64_t channel_blocks;
};
template <class F>
auto with_setting(ProbeSetting s, F f) {
  namespace h = baracuda::kernels::conv1d_heuristics;
  const ProbeSetting saved{h::probe_tpb, h::probe_min_blocks, h::probe_narrow, h::probe_channel_blocks};
  const auto set = [](const ProbeSetting &v) {
    h::probe_tpb = v.tpb, h::probe_min_blocks = v.min_blocks, h::probe_narrow = v.narrow;
    h::probe_channel_blocks = v.channel_blocks;
  };
  set(s);
  const auto rc = f();
  set(saved);
  return rc;
}
}  // namespace
#define PROBE_ALIAS(name, tpb, min_blocks, narrow, cb)                                                                 \
  extern "C" int PROBE_CAT(PROBE_CAT(probe_bwd_, name), PROBE_CAT(_, PROBE_DTYPE))(                                 \
      void *x, void *weight, void *bias, void *dy, void *dx, void *dw, void *db, int64_t B, int64_t C, int64_t L,   \
      int32_t W, void *workspace, int64_t workspace_bytes, void *stream, int32_t silu, int32_t layout, void *seq) { \
    return with_setting({tpb, min_blocks, narrow, cb}, [&] {                                                            \
      return PROBE_ENTRY(x, weight, bias, dy, dx, dw, db, B, C, L, W, workspace, workspace_bytes, stream, silu,    \
                         layout, seq);                                                                              \
    });                                                                                                             \
  }                                                                                                                 \
  extern "C" int64_t PROBE_CAT(PROBE_CAT(probe_bwd_, name), PROBE_CAT(_, PROBE_CAT(PROBE_DTYPE, _workspace)))(                 \
      int64_t B, int64_t C, int64_t L, int32_t W) {                                                                 \
    return with_setting({tpb, min_blocks, narrow, cb}, [&] { return PROBE_CAT(PROBE_ENTRY, _workspace)(B, C, L, W); });                                                      \
  }
PROBE_ALIAS(t2, 2, 32768, 32, 512)
PROBE_ALIAS(m16, 8, 16384, 32, 512)
PROBE_ALIAS(t4, 4, 32768, 32, 512)
PROBE_ALIAS(r128, 8, 32768, 128, 512)
#endif
