// A causal conv1d problem as the kernels and their heuristics see it. Plain
// structs, host-includable without CUDA headers.
#pragma once

#include <cstdint>

namespace baracuda::kernels {

// A tensor as the kernels see it: its data and element strides, over
// [B, C, L] (or [C, W], [C], [B]); data null when the argument was left out.
struct Conv1dView {
  void *data = nullptr;
  int64_t stride[3] = {};
};

struct Conv1dProblem {
  int64_t batch = 0, channels = 0;
  int64_t length = 0;  // L; the update's n new tokens
  int32_t width = 0;
  int32_t silu = 0;
  Conv1dView x, weight, bias, y, initial, final_states;  // forward (and the inputs of the others)
  Conv1dView seq_idx;  // [B, L] I32, forward and backward: packed sequences (data null: one sequence a row)
  Conv1dView dy, dx, dweight, dbias, dinitial;           // backward
  Conv1dView state, cache_seqlens;                       // update
  int64_t state_len = 0;
  Conv1dView dfinal;         // backward: the gradient arriving on the forward's FINAL_STATES
  Conv1dView state_indices;  // update: the state row of each batch row, negative for padding
  int64_t state_rows = 0;    // update: P, the rows of the state pool
};

}  // namespace baracuda::kernels
