// The plan behind the opaque baracuda_plan_t handle. Each op family derives
// from it; a plan is immutable after select, so run() is const and may be
// called from many threads at once.
#pragma once

#include <cstddef>
#include <cstdint>

#include "baracuda/core.h"

struct baracuda_plan_s {
  virtual ~baracuda_plan_s() = default;
  // Decided at select, with the candidate (see core/candidates.hpp).
  size_t workspace_size() const { return static_cast<size_t>(info.workspace_bytes); }
  // Everything run() validates, without launching.
  virtual void check(const baracuda_arg_t *args, int32_t num_args) const = 0;
  // Validates, then enqueues on stream. The workspace is already checked.
  virtual void run(const baracuda_arg_t *args, int32_t num_args, void *workspace, size_t workspace_bytes,
                   baracuda_stream_t stream) const = 0;

  baracuda_plan_info_t info = BARACUDA_PLAN_INFO_INIT;
};

namespace baracuda {
using Plan = ::baracuda_plan_s;
}
