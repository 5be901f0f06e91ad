// The causal conv1d family's registry hooks.
#pragma once

#include <cstdint>
#include <memory>

#include "core/plan.hpp"
#include "core/select_context.hpp"

namespace baracuda::causal_conv1d {

std::unique_ptr<Plan> select_forward(const baracuda_op_header_t *desc, const SelectContext &ctx);
std::unique_ptr<Plan> select_backward(const baracuda_op_header_t *desc, const SelectContext &ctx);
std::unique_ptr<Plan> select_update(const baracuda_op_header_t *desc, const SelectContext &ctx);
uint64_t causal_conv1d_dtypes();

}  // namespace baracuda::causal_conv1d
