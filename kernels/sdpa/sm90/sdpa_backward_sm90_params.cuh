// What the Hopper attention backward derives on the host for one run: a TMA
// tensor map for each of Q, K, V and dO (encode_rows, shared with the
// forward), and the workspace's delta rows and f32 dQ accumulator.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "sdpa/sdpa_problem.h"
#include "sdpa/sm90/sdpa_backward_sm90_shape.h"
#include "sdpa/sm90/sdpa_forward_sm90_params.cuh"

namespace baracuda::kernels::sm90 {

struct BackwardParams {
  CUtensorMap q, k, v, dout;  // [B, H, S, D] views: boxes of 64 columns by the tile's rows, 128-byte swizzle
  AxisSteps q_steps, k_steps, v_steps, dout_steps;
  const float *delta;  // rowsum(dout * out) per (b, query head, row), dense
  float *dq;           // the f32 dQ accumulator [B, Hq, Q, D], dense, zeroed
  int64_t group;       // query heads per kv head
};

// bp's tensor maps and group for p and the head-size tile (the workspace's
// pointers are the caller's to set); false where TMA cannot read a view (the
// caller runs another kernel).
inline bool backward_params(BackwardParams &bp, const SdpaProblem &p, bool bf16, int head_dim_tile) {
  const SdpaSm90BackwardShape shape = sdpa_sm90_backward_shape(head_dim_tile);
  const CUtensorMapDataType type = bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  bp.group = p.heads_q / p.heads_kv;
  const auto m = static_cast<uint32_t>(shape.block_m), n = static_cast<uint32_t>(shape.block_n);
  return encode_rows(bp.q, bp.q_steps, type, p.q, p.batch, p.heads_q, p.queries, p.head_dim, m) &&
         encode_rows(bp.dout, bp.dout_steps, type, p.dout, p.batch, p.heads_q, p.queries, p.head_dim_v, m) &&
         encode_rows(bp.k, bp.k_steps, type, p.k, p.batch, p.heads_kv, p.keys, p.head_dim, n) &&
         encode_rows(bp.v, bp.v_steps, type, p.v, p.batch, p.heads_kv, p.keys, p.head_dim_v, n);
}

}  // namespace baracuda::kernels::sm90
