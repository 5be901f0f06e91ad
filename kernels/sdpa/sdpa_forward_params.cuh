// What the tensor-core forward kernels (f16 / bf16, and f32 split into tf32 halves) derive
// once from the problem on the host, and their common launch: one block per
// query tile, dynamic shared memory raised to what the tiles need.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/device_limits.h"
#include "sdpa/sdpa_problem.h"
#include "sdpa/sdpa_tc_heuristics.h"
#include "sdpa/sdpa_tc_scores.cuh"
#include "sdpa/sdpa_tile_order.h"

namespace baracuda::kernels::sdpa_tc {

struct ForwardParams {
  ScoreParams score;
  int64_t tiles;        // query tiles of the whole problem
  SdpaTileOrder order;  // which tile block i takes
  int64_t group;        // query heads per kv head
  bool aligned;         // every row of q, k, v, out starts on 16 bytes
};

// Whether every row of a [B, H, S, D] view of elem_bytes-byte elements starts on 16 bytes.
inline bool rows_aligned(const void *data, const int64_t (&stride)[3], int elem_bytes) {
  const int64_t per_16 = 16 / elem_bytes;
  return reinterpret_cast<uintptr_t>(data) % 16 == 0 && stride[0] % per_16 == 0 && stride[1] % per_16 == 0 &&
         stride[2] % per_16 == 0;
}

inline ForwardParams forward_params(const SdpaProblem &p, const SdpaTcConfig &cfg, int elem_bytes) {
  ForwardParams fp{};
  fp.score = score_params(p);
  fp.tiles = sdpa_tc_tiles(p.batch, p.heads_q, p.queries, cfg);
  fp.order = sdpa_tile_order(p.batch * p.heads_q, sdpa_tc_query_tiles(p.queries, cfg), p.causal);
  fp.group = p.heads_q / p.heads_kv;
  fp.aligned = rows_aligned(p.q.data, p.q.stride, elem_bytes) && rows_aligned(p.k.data, p.k.stride, elem_bytes) &&
               rows_aligned(p.v.data, p.v.stride, elem_bytes) && rows_aligned(p.out.data, p.out.stride, elem_bytes);
  return fp;
}

// Where row `row` of (b, h) keeps its lse; null when none is asked for or
// the row is past the problem's (a tile's padding).
__device__ __forceinline__ float *lse_at(const SdpaProblem &p, int64_t b, int64_t h, int64_t row) {
  if (p.lse == nullptr || row >= p.queries) return nullptr;
  return static_cast<float *>(p.lse) + b * p.lse_stride[0] + h * p.lse_stride[1] + row * p.lse_stride[2];
}

// The current device's opt-in shared memory per block in bytes, or a negated CUDA error.
inline int device_smem_per_block() {
  DeviceLimits limits;
  const cudaError_t err = current_device_limits(limits);
  return err == cudaSuccess ? limits.smem_per_block : -static_cast<int>(err);
}

// Launches kernel over fp.tiles with smem bytes of dynamic shared memory:
// 0, 3 (UNSUPPORTED: this device's blocks hold less) or a negated CUDA error.
inline int launch_forward(void (*kernel)(SdpaProblem, ForwardParams), int threads, size_t smem,
                          const SdpaProblem &p, const ForwardParams &fp, cudaStream_t stream) {
  if (fp.tiles == 0) return 0;
  const int smem_limit = device_smem_per_block();
  if (smem_limit < 0) return smem_limit;
  if (smem > static_cast<size_t>(smem_limit)) return 3;
  const cudaError_t err =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  if (err != cudaSuccess) return -static_cast<int>(err);
  kernel<<<static_cast<unsigned>(sdpa_tc_grid_blocks(fp.tiles)), threads, smem, stream>>>(p, fp);
  return -static_cast<int>(cudaGetLastError());
}

}  // namespace baracuda::kernels::sdpa_tc
