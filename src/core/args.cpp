#include "core/args.hpp"

#include <string>

#include "core/error.hpp"

namespace baracuda {

const char *role_name(int32_t role) {
  static const char *const kNames[] = {"unknown", "X",      "WEIGHT", "BIAS",    "Y",      "DY",     "DX",
                                       "DW",      "DB",     "DEST",   "SOURCE",  "SCORES", "SLOPES", "DSCORES",
                                       "DSLOPES", "Q",      "K",      "V",       "OUT",    "LSE",    "DOUT",
                                       "DQ",      "DK",     "DV",     "STATE",   "INITIAL_STATES", "FINAL_STATES",
                                       "DINITIAL_STATES", "CACHE_SEQLENS"};
  constexpr int32_t count = static_cast<int32_t>(sizeof(kNames) / sizeof(kNames[0]));
  return role > 0 && role < count ? kNames[role] : kNames[0];
}

namespace {
std::string role_list(const RoleSpec *specs, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += (i ? ", " : "") + std::string(role_name(specs[i].role));
  return s;
}
}  // namespace

void bind_args(const char *op, const baracuda_arg_t *args, int32_t num_args, const RoleSpec *specs,
               size_t num_specs, const baracuda_tensor_t **out) {
  constexpr int32_t invalid = BARACUDA_STATUS_INVALID_PROBLEM;
  if (num_args < 0) fail(invalid, op, ": num_args is ", num_args, ", must be >= 0");
  if (args == nullptr && num_args > 0) fail(invalid, op, ": args is NULL but num_args is ", num_args);
  for (size_t s = 0; s < num_specs; ++s) out[s] = nullptr;
  for (int32_t i = 0; i < num_args; ++i) {
    size_t s = 0;
    while (s < num_specs && specs[s].role != args[i].role) ++s;
    if (s == num_specs)
      fail(invalid, op, ": args[", i, "] has role ", args[i].role, " (", role_name(args[i].role), "), which ", op,
           " does not take (it takes ", role_list(specs, num_specs), ")");
    if (out[s] != nullptr) fail(invalid, op, ": arg ", role_name(specs[s].role), " is given twice");
    out[s] = &args[i].tensor;
  }
  for (size_t s = 0; s < num_specs; ++s)
    if (specs[s].required && out[s] == nullptr)
      fail(invalid, op, ": required arg ", role_name(specs[s].role), " is missing");
}

}  // namespace baracuda
