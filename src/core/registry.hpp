// The op registry: one entry per op, listed in src/ops/registry.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "baracuda/core.h"
#include "core/op_def.hpp"
#include "core/plan.hpp"
#include "core/select_context.hpp"

namespace baracuda {

using SelectFn = std::unique_ptr<Plan> (*)(const baracuda_op_header_t *desc, const SelectContext &ctx);

struct OpEntry {
  const OpDef *def;
  SelectFn select;
};

// All ops, in op-id order.
const OpEntry *op_entries(size_t *count);
const OpEntry *find_op(int32_t op);

}  // namespace baracuda
