// Well-formed attention descriptors and arguments for the CPU suites: B 2,
// Hq 4, Hkv 2, Q 5, K 7, D 64, every tensor at its own fake device address.
#pragma once

#include <vector>

#include "cpu_helpers.hpp"

inline baracuda_sdpa_desc_t sdpa_desc(int32_t op, baracuda_dtype_t dtype = BARACUDA_DTYPE_BF16) {
  baracuda_sdpa_desc_t d = BARACUDA_SDPA_DESC_INIT;
  d.header.op = op;
  d.dtype = dtype;
  d.head_dim = 64;
  d.batch = 2;
  d.heads_q = 4;
  d.heads_kv = 2;
  d.queries = 5;
  d.keys = 7;
  return d;
}

inline baracuda_dtype_t sdpa_stats_dtype(baracuda_dtype_t dtype) {
  return dtype == BARACUDA_DTYPE_F64 ? BARACUDA_DTYPE_F64 : BARACUDA_DTYPE_F32;
}

// Q, K, V, OUT and LSE; with backward, DOUT, DQ, DK and DV too.
inline std::vector<baracuda_arg_t> sdpa_args(baracuda_dtype_t dtype, bool backward) {
  const baracuda_dtype_t stats = sdpa_stats_dtype(dtype);
  std::vector<baracuda_arg_t> args = {{BARACUDA_ARG_Q, tensor(dtype, {2, 4, 5, 64})},
                                      {BARACUDA_ARG_K, tensor(dtype, {2, 2, 7, 64}, 1 << 20)},
                                      {BARACUDA_ARG_V, tensor(dtype, {2, 2, 7, 64}, 2 << 20)},
                                      {BARACUDA_ARG_OUT, tensor(dtype, {2, 4, 5, 64}, 3 << 20)},
                                      {BARACUDA_ARG_LSE, tensor(stats, {2, 4, 5}, 4 << 20)}};
  if (backward) {
    args.push_back({BARACUDA_ARG_DOUT, tensor(dtype, {2, 4, 5, 64}, 5 << 20)});
    args.push_back({BARACUDA_ARG_DQ, tensor(dtype, {2, 4, 5, 64}, 6 << 20)});
    args.push_back({BARACUDA_ARG_DK, tensor(dtype, {2, 2, 7, 64}, 7 << 20)});
    args.push_back({BARACUDA_ARG_DV, tensor(dtype, {2, 2, 7, 64}, 8 << 20)});
  }
  return args;
}

inline baracuda_arg_t &sdpa_arg(std::vector<baracuda_arg_t> &args, int32_t role) {
  for (baracuda_arg_t &a : args)
    if (a.role == role) return a;
  FAIL("no arg with role " << role);
  return args[0];
}

inline baracuda_status_t sdpa_check(baracuda_plan_t plan, const std::vector<baracuda_arg_t> &args) {
  return baracuda_plan_check(plan, args.data(), static_cast<int32_t>(args.size()));
}
