// The pad family's ops: their definitions and registry hooks.
#pragma once

#include <memory>

#include "core/dtype.hpp"
#include "core/op_def.hpp"
#include "core/plan.hpp"
#include "core/roles.hpp"
#include "core/select_context.hpp"

namespace baracuda::pad {

inline constexpr ArgRole kPadRoles[] = {
    arg_role(BARACUDA_ARG_X, Need::Required, Flow::In),
    arg_role(BARACUDA_ARG_Y, Need::Required, Flow::Out),
};
inline constexpr ArgRole kPadBackwardRoles[] = {
    arg_role(BARACUDA_ARG_DY, Need::Required, Flow::In),
    arg_role(BARACUDA_ARG_DX, Need::Required, Flow::Out),
};
static_assert(role_table_valid(kPadRoles) && role_table_valid(kPadBackwardRoles));

inline constexpr OpDef kPad = op_def(BARACUDA_OP_PAD, "pad", byte_aligned_dtype_mask(), kPadRoles);
inline constexpr OpDef kPadBackward =
    op_def(BARACUDA_OP_PAD_BACKWARD, "pad_backward", kFloatKernelDtypes, kPadBackwardRoles);

std::unique_ptr<Plan> select_pad(const baracuda_op_header_t *desc, const SelectContext &ctx);
std::unique_ptr<Plan> select_pad_backward(const baracuda_op_header_t *desc, const SelectContext &ctx);

}  // namespace baracuda::pad
