// The causal conv1d family's ops: their definitions and registry hooks.
#pragma once

#include <memory>

#include "core/dtype.hpp"
#include "core/op_def.hpp"
#include "core/plan.hpp"
#include "core/roles.hpp"
#include "core/select_context.hpp"

namespace baracuda::causal_conv1d {

inline constexpr ArgRole kForwardRoles[] = {
    arg_role(BARACUDA_ARG_X, Need::Required, Flow::In),
    arg_role(BARACUDA_ARG_WEIGHT, Need::Required, Flow::In),
    arg_role(BARACUDA_ARG_BIAS, Need::Optional, Flow::In),
    arg_role(BARACUDA_ARG_Y, Need::Required, Flow::Out),
    arg_role(BARACUDA_ARG_INITIAL_STATES, Need::Optional, Flow::In),
    arg_role(BARACUDA_ARG_FINAL_STATES, Need::Optional, Flow::Out),
    arg_role(BARACUDA_ARG_SEQ_IDX, Need::Optional, Flow::In),
};
inline constexpr ArgRole kBackwardRoles[] = {
    arg_role(BARACUDA_ARG_X, Need::Required, Flow::In),
    arg_role(BARACUDA_ARG_WEIGHT, Need::Required, Flow::In),
    arg_role(BARACUDA_ARG_BIAS, Need::Optional, Flow::In),
    arg_role(BARACUDA_ARG_INITIAL_STATES, Need::Optional, Flow::In),
    arg_role(BARACUDA_ARG_DY, Need::Required, Flow::In),
    arg_role(BARACUDA_ARG_DX, Need::Required, Flow::Out),
    arg_role(BARACUDA_ARG_DW, Need::Optional, Flow::Out),
    arg_role(BARACUDA_ARG_DB, Need::Optional, Flow::Out),
    arg_role(BARACUDA_ARG_DINITIAL_STATES, Need::Optional, Flow::Out),
    arg_role(BARACUDA_ARG_DFINAL_STATES, Need::Optional, Flow::In),
    arg_role(BARACUDA_ARG_SEQ_IDX, Need::Optional, Flow::In),
};
inline constexpr ArgRole kUpdateRoles[] = {
    arg_role(BARACUDA_ARG_X, Need::Required, Flow::In),
    arg_role(BARACUDA_ARG_WEIGHT, Need::Required, Flow::In),
    arg_role(BARACUDA_ARG_BIAS, Need::Optional, Flow::In),
    arg_role(BARACUDA_ARG_Y, Need::Required, Flow::Out),
    arg_role(BARACUDA_ARG_STATE, Need::Required, Flow::InOut),
    arg_role(BARACUDA_ARG_CACHE_SEQLENS, Need::Optional, Flow::In),
    arg_role(BARACUDA_ARG_CONV_STATE_INDICES, Need::Optional, Flow::In),
};
static_assert(role_table_valid(kForwardRoles) && role_table_valid(kBackwardRoles) && role_table_valid(kUpdateRoles));

inline constexpr OpDef kForward = op_def(BARACUDA_OP_CAUSAL_CONV1D, "causal_conv1d", kFloatKernelDtypes, kForwardRoles);
inline constexpr OpDef kBackward =
    op_def(BARACUDA_OP_CAUSAL_CONV1D_BACKWARD, "causal_conv1d_backward", kFloatKernelDtypes, kBackwardRoles);
inline constexpr OpDef kUpdate =
    op_def(BARACUDA_OP_CAUSAL_CONV1D_UPDATE, "causal_conv1d_update", kFloatKernelDtypes, kUpdateRoles);

std::unique_ptr<Plan> select_forward(const baracuda_op_header_t *desc, const SelectContext &ctx);
std::unique_ptr<Plan> select_backward(const baracuda_op_header_t *desc, const SelectContext &ctx);
std::unique_ptr<Plan> select_update(const baracuda_op_header_t *desc, const SelectContext &ctx);

}  // namespace baracuda::causal_conv1d
