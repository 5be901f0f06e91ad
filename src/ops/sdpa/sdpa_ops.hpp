// The attention family's ops: their definitions and registry hooks.
#pragma once

#include <memory>

#include "core/dtype.hpp"
#include "core/op_def.hpp"
#include "core/plan.hpp"
#include "core/roles.hpp"
#include "core/select_context.hpp"

namespace baracuda::sdpa {

// SLOPES is required exactly when the descriptor asks for ALiBi: the plan checks that.
inline constexpr ArgRole kForwardRoles[] = {
    arg_role(BARACUDA_ARG_Q, Need::Required, Flow::In),
    arg_role(BARACUDA_ARG_K, Need::Required, Flow::In),
    arg_role(BARACUDA_ARG_V, Need::Required, Flow::In),
    arg_role(BARACUDA_ARG_SLOPES, Need::Optional, Flow::In),
    arg_role(BARACUDA_ARG_OUT, Need::Required, Flow::Out),
    arg_role(BARACUDA_ARG_LSE, Need::Optional, Flow::Out),
};
inline constexpr ArgRole kBackwardRoles[] = {
    arg_role(BARACUDA_ARG_Q, Need::Required, Flow::In),
    arg_role(BARACUDA_ARG_K, Need::Required, Flow::In),
    arg_role(BARACUDA_ARG_V, Need::Required, Flow::In),
    arg_role(BARACUDA_ARG_OUT, Need::Required, Flow::In),
    arg_role(BARACUDA_ARG_LSE, Need::Required, Flow::In),
    arg_role(BARACUDA_ARG_DOUT, Need::Required, Flow::In),
    arg_role(BARACUDA_ARG_SLOPES, Need::Optional, Flow::In),
    arg_role(BARACUDA_ARG_DQ, Need::Required, Flow::Out),
    arg_role(BARACUDA_ARG_DK, Need::Required, Flow::Out),
    arg_role(BARACUDA_ARG_DV, Need::Required, Flow::Out),
};
static_assert(role_table_valid(kForwardRoles) && role_table_valid(kBackwardRoles));

// F32_STRICT: f32 where no reduced-precision math may be used (the CUDA-core kernels).
inline constexpr uint64_t kSdpaDtypes = kFloatKernelDtypes | dtype_bit(BARACUDA_DTYPE_F32_STRICT);
inline constexpr OpDef kForward = op_def(BARACUDA_OP_SDPA, "sdpa", kSdpaDtypes, kForwardRoles);
inline constexpr OpDef kBackward = op_def(BARACUDA_OP_SDPA_BACKWARD, "sdpa_backward", kSdpaDtypes, kBackwardRoles);

std::unique_ptr<Plan> select_forward(const baracuda_op_header_t *desc, const SelectContext &ctx);
std::unique_ptr<Plan> select_backward(const baracuda_op_header_t *desc, const SelectContext &ctx);

}  // namespace baracuda::sdpa
