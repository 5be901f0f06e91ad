// Role-tagged arguments bound against an op's role table: unknown, repeated
// and missing required roles are rejected, with messages naming each role.
#pragma once

#include <cstdint>

#include "baracuda/core.h"
#include "core/op_def.hpp"
#include "core/roles.hpp"

namespace baracuda {

class BoundArgs {
 public:
  // The tensor given for role, or NULL when an optional role was left out.
  const baracuda_tensor_t *operator[](int32_t role) const { return role_known(role) ? by_role_[role] : nullptr; }

 private:
  friend BoundArgs bind_args(const OpDef &op, const baracuda_arg_t *args, int32_t num_args);
  const baracuda_tensor_t *by_role_[kRoleCount] = {};
};

BoundArgs bind_args(const OpDef &op, const baracuda_arg_t *args, int32_t num_args);

// Validates the tensor bound to role (when given) as that role's table entry
// says: outputs may not broadcast. Throws baracuda::Error.
void validate_arg(const OpDef &op, const BoundArgs &bound, int32_t role, baracuda_dtype_t dtype, int32_t rank,
                  const int64_t *shape);

}  // namespace baracuda
