// Candidate implementations of an op, tried in order (CUTLASS's
// can_implement / workspace / run per kernel, oneDNN's list of
// implementations per primitive). select keeps the first candidate that the
// select flags allow and that can implement the problem on the target arch;
// when none can, UNSUPPORTED lists every candidate's reason.
//
// BARACUDA_FORCE_CANDIDATE=<name> (read at select; for tests and benchmarks)
// makes select consider that candidate alone, for the ops that list it; the
// others' selections are unchanged. Flags still apply.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "baracuda/core.h"
#include "core/checked_math.hpp"
#include "core/op_def.hpp"
#include "core/plan.hpp"
#include "core/select_context.hpp"

namespace baracuda {

// Why a candidate cannot serve a problem; nullopt when it can.
using WhyNot = std::optional<std::string>;
inline WhyNot serves() { return std::nullopt; }

struct CandidateTraits {
  const char *name;
  int32_t backend;  // BARACUDA_BACKEND_*
  bool deterministic;
  bool bit_stable;
};

template <class Problem>
struct Candidate {
  CandidateTraits traits;
  WhyNot (*can_implement)(const Problem &problem, const SelectContext &ctx);
  // Bytes, exact: select refuses a candidate whose workspace passes 2^62. A
  // plan that learns its need only while it is built (a vendor library's
  // workspace) sets info.workspace_bytes in make_plan; the larger counts.
  int128 (*workspace)(const Problem &problem);
  std::unique_ptr<Plan> (*make_plan)(const Problem &problem, const SelectContext &ctx);
};

// Why ctx's flags rule the candidate out; nullopt when they allow it.
WhyNot excluded_by_flags(const CandidateTraits &traits, const SelectContext &ctx);

// Why ctx's BARACUDA_FORCE_CANDIDATE rules the candidate out: it names
// another candidate of this list. names_in_list says whether it names any.
WhyNot excluded_by_force(const CandidateTraits &traits, const SelectContext &ctx, bool names_in_list);

// Why a workspace of this size cannot be served; nullopt when it fits.
WhyNot workspace_unservable(int128 bytes);

// The plan-info fields that select decides: op, dtype, target sm, and the
// chosen candidate's backend, determinism and workspace.
void stamp_plan_info(baracuda_plan_info_t &info, const OpDef &op, baracuda_dtype_t dtype, const SelectContext &ctx,
                     const CandidateTraits &traits, size_t workspace_bytes);

using Rejections = std::vector<std::pair<const char *, std::string>>;

[[noreturn]] void fail_no_candidate(const OpDef &op, const SelectContext &ctx, const Rejections &rejected);

template <class Problem, size_t N>
std::unique_ptr<Plan> select_candidate(const OpDef &op, baracuda_dtype_t dtype, const Problem &problem,
                                       const SelectContext &ctx, const Candidate<Problem> (&candidates)[N]) {
  Rejections rejected;
  bool forced_here = false;
  for (const Candidate<Problem> &c : candidates) forced_here |= ctx.forces(c.traits.name);
  for (const Candidate<Problem> &c : candidates) {
    WhyNot why = excluded_by_force(c.traits, ctx, forced_here);
    if (!why) why = excluded_by_flags(c.traits, ctx);
    if (!why) why = c.can_implement(problem, ctx);
    const int128 workspace = why ? 0 : c.workspace(problem);
    if (!why) why = workspace_unservable(workspace);
    if (why) {
      rejected.emplace_back(c.traits.name, *std::move(why));
      continue;
    }
    std::unique_ptr<Plan> plan = c.make_plan(problem, ctx);
    const size_t bytes = std::max(static_cast<size_t>(workspace), plan->workspace_size());
    stamp_plan_info(plan->info, op, dtype, ctx, c.traits, bytes);
    return plan;
  }
  fail_no_candidate(op, ctx, rejected);
}

}  // namespace baracuda
