// The resolved baracuda_select_options_t: which arch a plan is for.
#pragma once

#include <cstdint>
#include <string>

#include "baracuda/core.h"

namespace baracuda {

struct SelectContext {
  int32_t target_sm;
  uint32_t flags;
  // The GPU select planned on; -1 when target_sm named an arch and no GPU was
  // touched (vendor backends that build per device need one).
  int32_t device = -1;
  // BARACUDA_FORCE_CANDIDATE at select: a candidate name that select then
  // considers alone (a test and benchmark hook; see core/candidates.hpp).
  std::string forced_candidate{};

  bool forces(const char *name) const { return forced_candidate == name; }
};

// Reads opts (NULL = defaults), queries the device only when target_sm is 0,
// refuses archs this build has no code for, and reads BARACUDA_FORCE_CANDIDATE.
SelectContext resolve_select_options(const char *op, const baracuda_select_options_t *opts);

// The archs compiled into this library, from the build system.
const baracuda_build_info_t &build_info();

}  // namespace baracuda
