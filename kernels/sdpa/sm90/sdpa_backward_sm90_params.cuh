// What the Hopper attention backward derives on the host for one run: a TMA
// tensor map for each of Q, K, V and dO (encode_rows, shared with the
// forward), and the workspace's delta rows and f32 dQ accumulator.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "sdpa/sdpa_problem.h"
#include "sdpa/sdpa_tile_order.h"
#include "sdpa/sm90/sdpa_backward_sm90_shape.h"
#include "sdpa/sm90/sdpa_forward_sm90_params.cuh"

namespace baracuda::kernels::sm90 {

struct BackwardParams {
  CUtensorMap q, k, v, dout;  // [B, H, S, D] views: boxes of 64 columns by the tile's rows, 128-byte swizzle
  CUtensorMap dq_map;         // the dQ accumulator [B, Hq, Q, D]: boxes of 32 columns by 64 rows (a consumer's)
  AxisSteps q_steps, k_steps, v_steps, dout_steps;
  const float *delta;  // rowsum(dout * out) per (b, query head, row), dense
  float *dq;           // the f32 dQ accumulator [B, Hq, Q, D], dense, zeroed
  int *turns;          // the deterministic mode's counters per (b, query head, query tile), zeroed; else null
  int64_t group;       // query heads per kv head
  SdpaTileOrder order; // which key tile of which (b, kv head) block i takes (sdpa_backward_sm90_order.h)
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

// The tensor map of the dense f32 dQ accumulator [B, Hq, Q, D] at dq
// (16-byte aligned: D is a multiple of 8), boxes of 32 columns by box_rows
// rows, 128-byte swizzle; false where the encoder refuses it.
inline bool encode_dq_rows(CUtensorMap &map, const SdpaProblem &p, float *dq, uint32_t box_rows) {
  const TensorMapEncoder encode = tensor_map_encoder();
  if (encode == nullptr) return false;
  // No query: an extent of 1 that the kernel never writes, as the encoder takes no 0.
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(p.head_dim), static_cast<cuuint64_t>(p.queries > 0 ? p.queries : 1),
                              static_cast<cuuint64_t>(p.heads_q), static_cast<cuuint64_t>(p.batch)};
  const cuuint64_t strides[3] = {dims[0] * 4, dims[0] * dims[1] * 4, dims[0] * dims[1] * dims[2] * 4};
  const cuuint32_t box[4] = {32, box_rows, 1, 1}, element_strides[4] = {1, 1, 1, 1};
  return encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, dq, dims, strides, box, element_strides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// bp.dq_map: a consumer's boxes of 64 rows.
inline bool encode_dq_accumulator(BackwardParams &bp, const SdpaProblem &p, float *dq) {
  return encode_dq_rows(bp.dq_map, p, dq, 64);
}

}  // namespace baracuda::kernels::sm90
