// The write_slice family's registry hooks.
#pragma once

#include <cstdint>
#include <memory>

#include "core/plan.hpp"
#include "core/select_context.hpp"

namespace baracuda::write_slice {

std::unique_ptr<Plan> select_write_slice(const baracuda_op_header_t *desc, const SelectContext &ctx);
uint64_t write_slice_dtypes();

}  // namespace baracuda::write_slice
