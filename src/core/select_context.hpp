// The resolved baracuda_select_options_t: which arch a plan is for.
#pragma once

#include <cstdint>

#include "baracuda/core.h"

namespace baracuda {

struct SelectContext {
  int32_t target_sm;
  uint32_t flags;
};

// Reads opts (NULL = defaults), queries the device only when target_sm is 0,
// and refuses archs this build has no code for.
SelectContext resolve_select_options(const char *op, const baracuda_select_options_t *opts);

// The archs compiled into this library, from the build system.
const baracuda_build_info_t &build_info();

}  // namespace baracuda
