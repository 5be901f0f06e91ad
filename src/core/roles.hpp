// Argument roles: the one table of role names, and the typed table each op
// keeps of the roles it takes (the cuDNN-frontend idea of declared inputs and
// outputs), checked at compile time against the header's BARACUDA_ARG_* list.
#pragma once

#include <cstddef>
#include <cstdint>

#include "baracuda/core.h"

namespace baracuda {

struct RoleName {
  int32_t role;
  const char *name;
};

// The name is the macro's own suffix, so it cannot disagree with core.h.
#define BARACUDA_ROLE_NAME(SUFFIX) RoleName{BARACUDA_ARG_##SUFFIX, #SUFFIX}
inline constexpr RoleName kRoleNames[] = {
    {0, "unknown"},
    BARACUDA_ROLE_NAME(X),       BARACUDA_ROLE_NAME(WEIGHT),          BARACUDA_ROLE_NAME(BIAS),
    BARACUDA_ROLE_NAME(Y),       BARACUDA_ROLE_NAME(DY),              BARACUDA_ROLE_NAME(DX),
    BARACUDA_ROLE_NAME(DW),      BARACUDA_ROLE_NAME(DB),              BARACUDA_ROLE_NAME(DEST),
    BARACUDA_ROLE_NAME(SOURCE),  BARACUDA_ROLE_NAME(SCORES),          BARACUDA_ROLE_NAME(SLOPES),
    BARACUDA_ROLE_NAME(DSCORES), BARACUDA_ROLE_NAME(DSLOPES),         BARACUDA_ROLE_NAME(Q),
    BARACUDA_ROLE_NAME(K),       BARACUDA_ROLE_NAME(V),               BARACUDA_ROLE_NAME(OUT),
    BARACUDA_ROLE_NAME(LSE),     BARACUDA_ROLE_NAME(DOUT),            BARACUDA_ROLE_NAME(DQ),
    BARACUDA_ROLE_NAME(DK),      BARACUDA_ROLE_NAME(DV),              BARACUDA_ROLE_NAME(STATE),
    BARACUDA_ROLE_NAME(INITIAL_STATES), BARACUDA_ROLE_NAME(FINAL_STATES), BARACUDA_ROLE_NAME(DINITIAL_STATES),
    BARACUDA_ROLE_NAME(CACHE_SEQLENS), BARACUDA_ROLE_NAME(SEQ_IDX), BARACUDA_ROLE_NAME(CONV_STATE_INDICES),
    BARACUDA_ROLE_NAME(DFINAL_STATES),
};
#undef BARACUDA_ROLE_NAME

constexpr int32_t kRoleCount = static_cast<int32_t>(sizeof(kRoleNames) / sizeof(kRoleNames[0]));

constexpr bool role_names_follow_values() {
  for (int32_t i = 0; i < kRoleCount; ++i)
    if (kRoleNames[i].role != i) return false;
  return true;
}
static_assert(role_names_follow_values(), "kRoleNames must list the BARACUDA_ARG_* roles in value order, none skipped");
static_assert(kRoleNames[kRoleCount - 1].role == BARACUDA_ARG_DFINAL_STATES,
              "a role was added to core.h: name it in kRoleNames");

constexpr bool role_known(int32_t role) { return role > 0 && role < kRoleCount; }

// "X", "DEST", ...; "unknown" for values that name no role.
constexpr const char *role_name(int32_t role) { return kRoleNames[role_known(role) ? role : 0].name; }

enum class Need : uint8_t { Required, Optional };
enum class Flow : uint8_t { In, Out, InOut };  // Out and InOut are written, so they may not broadcast

struct ArgRole {
  int32_t role;
  Need need;
  Flow flow;
  const char *name;
};

constexpr ArgRole arg_role(int32_t role, Need need, Flow flow) { return {role, need, flow, role_name(role)}; }

constexpr bool same_text(const char *a, const char *b) {
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}

// Every role known to core.h, named from kRoleNames, and taken once.
template <size_t N>
constexpr bool role_table_valid(const ArgRole (&table)[N]) {
  for (size_t i = 0; i < N; ++i) {
    if (!role_known(table[i].role) || !same_text(table[i].name, role_name(table[i].role))) return false;
    for (size_t j = 0; j < i; ++j)
      if (table[j].role == table[i].role) return false;
  }
  return true;
}

}  // namespace baracuda
