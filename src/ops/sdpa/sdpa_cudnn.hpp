// The attention ops' cuDNN candidates: cuDNN's fused attention
// (src/backends/cudnn) for f16 / bf16, forward and backward. Its graph is
// built at select for dense [B, H, S, D] tensors on the select's device and
// kept in the plan. Views it was not built for (other strides, pointers not
// 16-byte aligned, another current device) run the bespoke plan that select
// also keeps, the one BARACUDA_SELECT_BESPOKE_ONLY would have chosen: any
// strides stay served, and run stays allocation-free and capture-safe.
#pragma once

#include <memory>

#include "baracuda/core.h"
#include "core/candidates.hpp"
#include "ops/sdpa/sdpa_desc.hpp"

namespace baracuda::sdpa {

// A forward that cuDNN does not promise to repeat bit for bit (an f16
// decoding step, Q 1 K 300 D 64, gave another LSE on a second run on an H200
// in three sessions' suites); a backward whose dQ cuDNN sums with atomics,
// and its deterministic sibling (cuDNN's deterministic algorithm). Not
// bit-stable: views they do not serve run the bespoke kernels, with other
// rounding.
inline constexpr CandidateTraits kCudnnForward{"sdpa_fwd_cudnn", BARACUDA_BACKEND_CUDNN, false, false};
inline constexpr CandidateTraits kCudnnBackward{"sdpa_bwd_cudnn", BARACUDA_BACKEND_CUDNN, false, false};
inline constexpr CandidateTraits kCudnnBackwardDeterministic{"sdpa_bwd_cudnn_deterministic", BARACUDA_BACKEND_CUDNN,
                                                             true, false};

WhyNot cudnn_can_implement(const CandidateTraits &traits, const Spec &s, const SelectContext &ctx);
std::unique_ptr<Plan> cudnn_make_plan(const CandidateTraits &traits, const Spec &s, const SelectContext &ctx);

// The plan knows its workspace once its graph and bespoke sibling exist (make_plan sets it).
inline int128 cudnn_least_workspace(const Spec &) { return 0; }

template <const CandidateTraits &T>
constexpr Candidate<Spec> cudnn_candidate() {
  return {T, [](const Spec &s, const SelectContext &ctx) { return cudnn_can_implement(T, s, ctx); },
          cudnn_least_workspace,
          [](const Spec &s, const SelectContext &ctx) { return cudnn_make_plan(T, s, ctx); }};
}

// The bespoke plan for s as select chooses it with ctx (which excludes vendor
// libraries). Defined with the candidate lists, in sdpa_plan.cpp.
std::unique_ptr<Plan> select_bespoke(const Spec &s, const SelectContext &ctx);

}  // namespace baracuda::sdpa
