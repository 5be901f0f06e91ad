// The pad family's registry hooks.
#pragma once

#include <cstdint>
#include <memory>

#include "core/plan.hpp"
#include "core/select_context.hpp"

namespace baracuda::pad {

std::unique_ptr<Plan> select_pad(const baracuda_op_header_t *desc, const SelectContext &ctx);
std::unique_ptr<Plan> select_pad_backward(const baracuda_op_header_t *desc, const SelectContext &ctx);
uint64_t pad_dtypes();
uint64_t pad_backward_dtypes();

}  // namespace baracuda::pad
