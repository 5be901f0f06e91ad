// An ALiBi problem as the kernels see it: extents, the bias's form, and the
// tensors' addresses and strides (in elements), already validated by the
// plan layer. Host-includable, no CUDA.
#pragma once

#include <cstdint>

namespace baracuda::kernels {

struct AlibiProblem {
  int64_t batch, heads, queries, keys;
  bool symmetric;       // bias = -|j - i'| instead of j - i'
  bool bottom_right;    // i' = i + K - Q instead of i
  bool per_batch_slopes;  // slopes [B, H]: one partial sum per (b, h) instead of per h
  bool f32_slopes;      // slopes and dslopes in f32 rather than in the scores' dtype
  bool clusters;        // backward: one launch of clusters (alibi_backward_fits_clusters holds)
  // The tensor read in one pass (SCORES, or DY) and the one written (Y, or
  // DSCORES; NULL when the backward writes none, its strides then 0):
  // strides of B, H, Q; K's is 1.
  const void *in;
  int64_t in_stride[3];
  void *out;
  int64_t out_stride[3];
  // SLOPES (forward) or DSLOPES (backward, NULL when left out): strides of B
  // and H, B's 0 for [H] slopes.
  const void *slopes;
  void *dslopes;
  int64_t slope_stride[2];
};

}  // namespace baracuda::kernels
