// What the Hopper attention forward derives on the host for one run: the
// score pipeline's constants, the tile counts, and a TMA tensor map for each
// of Q, K and V, encoded by the driver's cuTensorMapEncodeTiled (found through
// the runtime's driver entry points, so the library links no libcuda).
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "common/device_limits.h"
#include "sdpa/sdpa_problem.h"
#include "sdpa/sdpa_tc_scores.cuh"
#include "sdpa/sdpa_visible_keys.h"
#include "sdpa/sm90/sdpa_forward_sm90_shape.h"

namespace baracuda::kernels::sm90 {

// Multiplies a tensor's B and H indices before they become TMA coordinates:
// 0 where the axis has stride 0 (every index reads index 0's rows), which
// its tensor map then holds as an axis of size 1.
struct AxisSteps {
  int32_t batch, head;
};

struct ForwardParams {
  CUtensorMap q, k, v;  // [B, H, S, D] views: boxes of 64 columns by the tile's rows, 128-byte swizzle
  CUtensorMap o;        // OUT, boxes of 64 columns by a consumer's 64 rows (SdpaSm90Shape::smem_epilogue)
  AxisSteps o_steps;
  AxisSteps q_steps, k_steps, v_steps;
  sdpa_tc::ScoreParams score;
  int64_t tiles;        // query tiles of the whole problem, one block each
  int64_t query_tiles;  // of one (b, h)
  int64_t group;        // query heads per kv head
  int32_t pair_shift;   // 1: persistent blocks take neighbouring tiles in pairs, 0: one (block_tile)
  SdpaSm90Cut cut;      // the kernel's cut (sdpa_sm90_cut)
  // With pairs, the tiles from here on are dealt heaviest first by the
  // producer (sdpa_sm90_tail_from); `tiles` where none are.
  int64_t tail_from;
  // The last round's tiles cut over their keys (SdpaSm90Split): their
  // pieces' partial rows meet in `partials`, the last piece of a consumer
  // group to arrive (counted in `arrivals`, zeroed before each launch)
  // merging them (bind_split_workspace).
  SdpaSm90Split split;
  float4 *partials;
  uint32_t *arrivals;
};

using TensorMapEncoder = CUresult (*)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                      const cuuint64_t *, const cuuint32_t *, const cuuint32_t *,
                                      CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                                      CUtensorMapFloatOOBfill);

// The driver's encoder, looked up once; null where the driver lacks it.
inline TensorMapEncoder tensor_map_encoder() {
  static const TensorMapEncoder encoder = [] {
    void *fn = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    const cudaError_t err =
        cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found);
    if (err != cudaSuccess) (void)cudaGetLastError();  // not sticky: the launch's own check must not see it
    return err == cudaSuccess && found == cudaDriverEntryPointSuccess ? reinterpret_cast<TensorMapEncoder>(fn)
                                                                      : nullptr;
  }();
  return encoder;
}

// The tensor map of a [batch, heads, rows, cols] view of 2-byte elements,
// boxes of 64 columns by box_rows rows; false where TMA cannot read the view
// (its address or a stride off 16 bytes, a negative stride, a row stride of
// 0, rows past 2^31).
inline bool encode_rows(CUtensorMap &map, AxisSteps &steps, CUtensorMapDataType type, const SdpaTensor &t,
                        int64_t batch, int64_t heads, int64_t rows, int32_t cols, uint32_t box_rows) {
  const TensorMapEncoder encode = tensor_map_encoder();
  if (encode == nullptr || reinterpret_cast<uintptr_t>(t.data) % 16 != 0 || rows >= INT32_MAX) return false;
  for (int64_t s : t.stride)
    if (s < 0 || s * 2 % 16 != 0) return false;
  if (t.stride[2] == 0 && rows > 1) return false;  // every row one row: no tensor map says so
  steps = {t.stride[0] != 0 ? 1 : 0, t.stride[1] != 0 ? 1 : 0};
  // An axis of size 1 gets the packed stride: its value is never used, and it must still pass the encoder's checks.
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows > 0 ? rows : 1),
                              static_cast<cuuint64_t>(steps.head ? heads : 1),
                              static_cast<cuuint64_t>(steps.batch ? batch : 1)};
  const cuuint64_t row_bytes = static_cast<cuuint64_t>(t.stride[2]) * 2;
  const cuuint64_t head_bytes = steps.head ? static_cast<cuuint64_t>(t.stride[1]) * 2 : row_bytes * dims[1];
  const cuuint64_t batch_bytes = steps.batch ? static_cast<cuuint64_t>(t.stride[0]) * 2 : head_bytes * dims[2];
  const cuuint64_t strides[3] = {row_bytes > 0 ? row_bytes : 16, head_bytes > 0 ? head_bytes : 16,
                                 batch_bytes > 0 ? batch_bytes : 16};
  const cuuint32_t box[4] = {64, box_rows, 1, 1}, element_strides[4] = {1, 1, 1, 1};
  return encode(&map, type, 4, const_cast<void *>(t.data), dims, strides, box, element_strides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// The key tiles every item of fp's persistent blocks takes, where they are
// equal and known without a walk over the tiles: a tile of an open problem
// sees every key tile; under a causal mask alone with as many keys as
// queries, query tile m sees m + 1, so a pair (heavy tile n - 1 - k, light
// tile k) of an even count n sees n + 1. Else 0 (never shared).
inline int64_t item_key_tiles(const SdpaProblem &p, const ForwardParams &fp, const SdpaSm90Shape &shape) {
  if (!shape.persistent || p.window_left >= 0 || p.window_right >= 0) return 0;
  if (!p.causal) return (p.keys + shape.block_n - 1) / shape.block_n;
  const bool square = p.queries == p.keys && shape.block_m() == shape.block_n;
  return square && fp.pair_shift && fp.query_tiles % 2 == 0 ? fp.query_tiles + 1 : 0;
}

// fp for p and the head-size tile; false where the kernel cannot serve p's
// views (the caller runs another kernel): TMA cannot read Q, K or V, OUT's
// rows are off 16 bytes, or the grid would pass 2^31 - 1 blocks.
inline bool forward_params(ForwardParams &fp, const SdpaProblem &p, bool bf16, int head_dim_tile) {
  // The SMs for the cut's choice; where the query fails, the launch's own
  // query reports the error (the cut then counts no SMs: no four groups).
  DeviceLimits limits;
  if (current_device_limits(limits) != cudaSuccess) {
    (void)cudaGetLastError();
    limits.sms = 0;
  }
  const int64_t sms = limits.sms;
  const bool bounded = sdpa_visible_keys(p).bounded();
  const bool causal_alone = p.causal && p.window_left < 0 && p.window_right < 0;
  fp.cut = sdpa_sm90_cut(head_dim_tile, bounded, causal_alone, p.batch * p.heads_q, p.queries, sms);
  const SdpaSm90Shape shape = sdpa_sm90_cut_shape(head_dim_tile, fp.cut);
  const CUtensorMapDataType type = bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  fp.score = sdpa_tc::score_params(p);
  fp.query_tiles = (p.queries + shape.block_m() - 1) / shape.block_m();
  fp.tiles = p.batch * p.heads_q * fp.query_tiles;
  fp.group = p.heads_q / p.heads_kv;
  // As the launch sets it: pairs where the tiles are twice the persistent blocks or more.
  fp.pair_shift = shape.persistent && p.causal && sms > 0 && fp.tiles >= 2 * int64_t{sms} ? 1 : 0;
  fp.tail_from = fp.pair_shift ? sdpa_sm90_tail_from(fp.tiles, fp.query_tiles, sms,
                                                     sdpa_sm90_tail_least_query_tiles(head_dim_tile))
                                : fp.tiles;
  // The tail's tiles are not of equal work: no shared last round beside it.
  fp.split = sdpa_sm90_split(shape, fp.tiles >> fp.pair_shift,
                             fp.tail_from < fp.tiles ? 0 : item_key_tiles(p, fp, shape), sms);
  fp.split.turns <<= fp.pair_shift;
  fp.partials = nullptr;
  fp.arrivals = nullptr;
  const bool out_aligned = reinterpret_cast<uintptr_t>(p.out.data) % 16 == 0 && p.out.stride[0] % 8 == 0 &&
                           p.out.stride[1] % 8 == 0 && p.out.stride[2] % 8 == 0;
  const SdpaTensor out{p.out.data, {p.out.stride[0], p.out.stride[1], p.out.stride[2]}};
  return out_aligned && fp.tiles < INT32_MAX &&
         (!shape.smem_epilogue ||
          encode_rows(fp.o, fp.o_steps, type, out, p.batch, p.heads_q, p.queries, p.head_dim_v, 64)) &&
         encode_rows(fp.q, fp.q_steps, type, p.q, p.batch, p.heads_q, p.queries, p.head_dim,
                     static_cast<uint32_t>(shape.block_m())) &&
         encode_rows(fp.k, fp.k_steps, type, p.k, p.batch, p.heads_kv, p.keys, p.head_dim,
                     static_cast<uint32_t>(shape.block_n)) &&
         encode_rows(fp.v, fp.v_steps, type, p.v, p.batch, p.heads_kv, p.keys, p.head_dim_v,
                     static_cast<uint32_t>(shape.block_n));
}

// fp's split given the caller's workspace: its partials and arrival counts
// there, the counts zeroed on the stream; no split where the workspace is
// too small (the plan sizes it by sdpa_sm90_forward_workspace_bytes, which
// assumes at most kSdpaSm90SplitMostBlocks SMs). 0 or a negated CUDA error.
inline int bind_split_workspace(ForwardParams &fp, int head_dim_tile, void *workspace, size_t workspace_bytes,
                                cudaStream_t stream) {
  if (fp.split.blocks == 0) return 0;
  const SdpaSm90Shape shape = sdpa_sm90_cut_shape(head_dim_tile, fp.cut);
  const size_t partial = sdpa_sm90_split_partial_bytes(shape, head_dim_tile, fp.split),
               arrival = sdpa_sm90_split_arrival_bytes(shape, fp.split, fp.pair_shift != 0);
  if (workspace == nullptr || workspace_bytes < partial + arrival) {
    fp.split = {fp.tiles >> fp.pair_shift, 0, 0, 0, 0};
    return 0;
  }
  fp.partials = static_cast<float4 *>(workspace);
  fp.arrivals = reinterpret_cast<uint32_t *>(static_cast<unsigned char *>(workspace) + partial);
  return -static_cast<int>(cudaMemsetAsync(fp.arrivals, 0, arrival, stream));
}

}  // namespace baracuda::kernels::sm90
