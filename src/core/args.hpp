// Role-tagged arguments: finds each role an op takes, rejecting unknown,
// repeated and missing required ones.
#pragma once

#include <cstddef>
#include <cstdint>

#include "baracuda/core.h"

namespace baracuda {

struct RoleSpec {
  int32_t role;
  bool required;
};

// "X", "DEST", ...; "unknown" for values that name no role.
const char *role_name(int32_t role);

// out[i] is the tensor given for specs[i].role, or NULL when an optional role
// was left out.
void bind_args(const char *op, const baracuda_arg_t *args, int32_t num_args, const RoleSpec *specs,
               size_t num_specs, const baracuda_tensor_t **out);

}  // namespace baracuda
