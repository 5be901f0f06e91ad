// The write_slice op: its definition and registry hook.
#pragma once

#include <memory>

#include "core/dtype.hpp"
#include "core/op_def.hpp"
#include "core/plan.hpp"
#include "core/roles.hpp"
#include "core/select_context.hpp"

namespace baracuda::write_slice {

inline constexpr ArgRole kWriteSliceRoles[] = {
    arg_role(BARACUDA_ARG_DEST, Need::Required, Flow::InOut),
    arg_role(BARACUDA_ARG_SOURCE, Need::Required, Flow::In),
};
static_assert(role_table_valid(kWriteSliceRoles));

inline constexpr OpDef kWriteSlice =
    op_def(BARACUDA_OP_WRITE_SLICE, "write_slice",
           byte_aligned_dtype_mask() | dtype_bit(BARACUDA_DTYPE_S4) | dtype_bit(BARACUDA_DTYPE_U4), kWriteSliceRoles);

std::unique_ptr<Plan> select_write_slice(const baracuda_op_header_t *desc, const SelectContext &ctx);

}  // namespace baracuda::write_slice
