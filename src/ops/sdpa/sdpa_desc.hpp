// The attention descriptor, read and validated once for both ops.
#pragma once

#include <cstdint>

#include "baracuda/sdpa.h"
#include "core/op_def.hpp"

namespace baracuda::sdpa {

struct Spec {
  const OpDef *op;  // kForward or kBackward
  baracuda_dtype_t dtype;
  int32_t head_dim, head_dim_v;  // Dv resolved: never 0
  double scale;                  // resolved: 1 / sqrt(D) for the descriptor's 0
  double softcap;                // 0: none
  bool causal, bottom_right;
  int64_t window_left, window_right;  // -1: unbounded (also for windows that reach past every key)
  int32_t alibi;                      // 0, BARACUDA_ALIBI_SIGNED or _SYMMETRIC
  bool per_batch_slopes;
  int64_t batch, heads_q, heads_kv, queries, keys;  // heads_kv resolved: never 0 unless heads_q is

  bool backward() const;
  // LSE's and SLOPES' dtype: f64 for f64 attention, else f32.
  baracuda_dtype_t stats_dtype() const;
};

// Validates everything the descriptor alone decides. Throws baracuda::Error.
Spec read_sdpa_desc(const baracuda_op_header_t *header, const OpDef &op);

}  // namespace baracuda::sdpa
