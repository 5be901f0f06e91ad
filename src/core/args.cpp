#include "core/args.hpp"

#include <string>

#include "core/error.hpp"
#include "core/tensor.hpp"

namespace baracuda {

namespace {
std::string role_list(const OpDef &op) {
  std::string s;
  for (size_t i = 0; i < op.num_roles; ++i) s += (i ? ", " : "") + std::string(op.roles[i].name);
  return s;
}
}  // namespace

BoundArgs bind_args(const OpDef &op, const baracuda_arg_t *args, int32_t num_args) {
  constexpr int32_t invalid = BARACUDA_STATUS_INVALID_PROBLEM;
  if (num_args < 0) fail(invalid, op.name, ": num_args is ", num_args, ", must be >= 0");
  if (args == nullptr && num_args > 0) fail(invalid, op.name, ": args is NULL but num_args is ", num_args);
  BoundArgs bound;
  for (int32_t i = 0; i < num_args; ++i) {
    const ArgRole *r = op.find_role(args[i].role);
    if (r == nullptr)
      fail(invalid, op.name, ": args[", i, "] has role ", args[i].role, " (", role_name(args[i].role), "), which ",
           op.name, " does not take (it takes ", role_list(op), ")");
    if (bound.by_role_[r->role] != nullptr) fail(invalid, op.name, ": arg ", r->name, " is given twice");
    bound.by_role_[r->role] = &args[i].tensor;
  }
  for (size_t s = 0; s < op.num_roles; ++s)
    if (op.roles[s].need == Need::Required && bound.by_role_[op.roles[s].role] == nullptr)
      fail(invalid, op.name, ": required arg ", op.roles[s].name, " is missing");
  return bound;
}

void validate_arg(const OpDef &op, const BoundArgs &bound, int32_t role, baracuda_dtype_t dtype, int32_t rank,
                  const int64_t *shape) {
  const ArgRole *r = op.find_role(role);
  if (r == nullptr) fail(BARACUDA_STATUS_INVALID_PROBLEM, op.name, ": internal: role ", role_name(role), " is not in its table");
  if (bound[role] == nullptr) return;
  validate_tensor(*bound[role], {op.name, r->name, dtype, rank, shape, r->flow != Flow::In});
}

}  // namespace baracuda
