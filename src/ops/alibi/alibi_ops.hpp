// The ALiBi family's ops: their definitions and registry hooks.
#pragma once

#include <memory>

#include "core/dtype.hpp"
#include "core/op_def.hpp"
#include "core/plan.hpp"
#include "core/roles.hpp"
#include "core/select_context.hpp"

namespace baracuda::alibi {

inline constexpr ArgRole kForwardRoles[] = {
    arg_role(BARACUDA_ARG_SCORES, Need::Required, Flow::In),
    arg_role(BARACUDA_ARG_SLOPES, Need::Required, Flow::In),
    arg_role(BARACUDA_ARG_Y, Need::Required, Flow::Out),
};
// Either output may be left out, not both: the plan checks that.
inline constexpr ArgRole kBackwardRoles[] = {
    arg_role(BARACUDA_ARG_DY, Need::Required, Flow::In),
    arg_role(BARACUDA_ARG_DSCORES, Need::Optional, Flow::Out),
    arg_role(BARACUDA_ARG_DSLOPES, Need::Optional, Flow::Out),
};
static_assert(role_table_valid(kForwardRoles) && role_table_valid(kBackwardRoles));

inline constexpr OpDef kForward = op_def(BARACUDA_OP_ALIBI, "alibi", kFloatKernelDtypes, kForwardRoles);
inline constexpr OpDef kBackward = op_def(BARACUDA_OP_ALIBI_BACKWARD, "alibi_backward", kFloatKernelDtypes, kBackwardRoles);

std::unique_ptr<Plan> select_forward(const baracuda_op_header_t *desc, const SelectContext &ctx);
std::unique_ptr<Plan> select_backward(const baracuda_op_header_t *desc, const SelectContext &ctx);

}  // namespace baracuda::alibi
