// The probe's C seam (ctypes, run.py): a problem as two arrays, so that one
// signature serves every tree and variant. Every tensor dense, [B, H, S, D].
//   dims: B, Hq, Hkv, Q, K, D, Dv, causal, bottom_right, window_left,
//         window_right, deterministic, softcap (thousandths, 0: none),
//         alibi (0, 1 signed, 2 symmetric)
//   ptrs: q, k, v, out, dout, lse (f32 [B, Hq, Q]), dq, dk, dv, workspace,
//         slopes (f32 [Hq])
#pragma once

#include <cmath>
#include <cstdint>

#include "sdpa/sdpa_problem.h"

enum ProbeDim {
  kB, kHq, kHkv, kQ, kK, kD, kDv, kCausal, kBottomRight, kWindowLeft, kWindowRight, kDeterministic, kSoftcap, kAlibi
};
enum ProbePtr { kPq, kPk, kPv, kPout, kPdout, kPlse, kPdq, kPdk, kPdv, kPws, kPslopes };

template <class Problem>
Problem probe_problem(const int64_t *d, void *const *ptr) {
  Problem p{};
  p.batch = d[kB], p.heads_q = d[kHq], p.heads_kv = d[kHkv], p.queries = d[kQ], p.keys = d[kK];
  p.head_dim = static_cast<int32_t>(d[kD]), p.head_dim_v = static_cast<int32_t>(d[kDv]);
  p.scale = 1.0 / std::sqrt(static_cast<double>(d[kD]));
  p.causal = d[kCausal] != 0, p.bottom_right = d[kBottomRight] != 0;
  p.window_left = d[kWindowLeft], p.window_right = d[kWindowRight];
  const int64_t D = d[kD], Dv = d[kDv], Q = d[kQ], K = d[kK];
  p.q = {ptr[kPq], {p.heads_q * Q * D, Q * D, D}};
  p.k = {ptr[kPk], {p.heads_kv * K * D, K * D, D}};
  p.v = {ptr[kPv], {p.heads_kv * K * Dv, K * Dv, Dv}};
  p.out = {ptr[kPout], {p.heads_q * Q * Dv, Q * Dv, Dv}};
  p.dout = {ptr[kPdout], {p.heads_q * Q * Dv, Q * Dv, Dv}};
  p.lse = ptr[kPlse];
  p.lse_stride[0] = p.heads_q * Q, p.lse_stride[1] = Q, p.lse_stride[2] = 1;
  p.dq = {ptr[kPdq], {p.heads_q * Q * D, Q * D, D}};
  p.dk = {ptr[kPdk], {p.heads_kv * K * D, K * D, D}};
  p.dv = {ptr[kPdv], {p.heads_kv * K * Dv, K * Dv, Dv}};
  p.deterministic = d[kDeterministic] != 0;
  p.softcap = static_cast<double>(d[kSoftcap]) / 1000.0;
  p.alibi = static_cast<int32_t>(d[kAlibi]);
  p.slopes = ptr[kPslopes];
  p.slope_stride[0] = 0, p.slope_stride[1] = 1;
  return p;
}
