// What the plan layer knows about an op before any descriptor arrives: its id,
// its one name, the dtypes it serves and the roles it takes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/roles.hpp"

namespace baracuda {

struct OpDef {
  int32_t id;
  const char *name;
  uint64_t dtypes;  // bit (1 << dtype) per dtype served
  const ArgRole *roles;
  size_t num_roles;

  // The entry for role, or NULL when the op does not take it.
  constexpr const ArgRole *find_role(int32_t role) const {
    for (size_t i = 0; i < num_roles; ++i)
      if (roles[i].role == role) return &roles[i];
    return nullptr;
  }
};

template <size_t N>
constexpr OpDef op_def(int32_t id, const char *name, uint64_t dtypes, const ArgRole (&roles)[N]) {
  return {id, name, dtypes, roles, N};
}

}  // namespace baracuda
