// Causal conv1d through the C ABI on random device data, against the float64
// reference: every output element within the dtype's tolerance, the bytes
// around strided outputs untouched, and a second run bitwise equal.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reference/harness.hpp"

namespace baracuda::check {

// Layouts of the [B, C, L] tensors (x, y, dy, dx).
enum class SeqLayout {
  Contiguous,    // [B, C, L], stride 1 along L
  ChannelsLast,  // memory [B, L, C], stride 1 along C
  Offset,        // contiguous, data one element past a 16-byte boundary
  Strided,       // [B, C, L] with every stride doubled plus gaps
};
const char *seq_layout_name(SeqLayout l);

// SEQ_IDX of a case: none, or each row cut at random into runs of 1 to
// about L/3 timesteps (many shorter than W).
enum class SeqIds {
  None,
  Ascending,  // runs numbered 0, 1, 2 ... across the batch; the last run of a row -1 (padding), as Tri Dao's tests
  Repeating,  // each run a random id in [-1, 2]: ids recur after other ids, neighbours may share one
};

struct Conv1dCase {
  int32_t op = BARACUDA_OP_CAUSAL_CONV1D;  // or BARACUDA_OP_CAUSAL_CONV1D_BACKWARD
  baracuda_dtype_t dtype = BARACUDA_DTYPE_F32;
  int64_t batch = 1, channels = 1, length = 1;
  int32_t width = 4;
  bool silu = false;
  bool bias = false;
  bool initial = false;      // INITIAL_STATES given
  bool state_out = false;    // FINAL_STATES (forward) or DINITIAL_STATES (backward) asked for
  bool weight_grad = true;   // backward: DW (and DB when bias) asked for
  bool dfinal = false;       // backward: DFINAL_STATES given
  baracuda_dtype_t weight_dtype = 0;  // WEIGHT, BIAS, DW, DB's; 0: dtype
  SeqLayout layout = SeqLayout::Contiguous;
  SeqIds seq_ids = SeqIds::None;  // SEQ_IDX [B, L] (strided where the layout is)
  uint64_t seed = 1;
};

// Decoding: a prefix already in the state, then steps of tokens[i] new tokens.
struct Conv1dUpdateCase {
  baracuda_dtype_t dtype = BARACUDA_DTYPE_F32;
  int64_t batch = 1, channels = 1;
  int32_t width = 4;
  bool silu = false;
  bool bias = false;
  int64_t state_len = 3;
  std::vector<int64_t> prefix;  // tokens before the first step, per batch entry
  std::vector<int64_t> steps;   // tokens per step
  bool circular = false;        // CACHE_SEQLENS given: the state is a circular buffer
  bool flat_tokens = false;     // x and y as [B, C] (steps of one token)
  baracuda_dtype_t weight_dtype = 0;  // WEIGHT and BIAS's; 0: dtype
  // CONV_STATE_INDICES given: STATE is a pool of this many rows (>= 2 * batch + 1);
  // every third batch row is padding (a negative index, or one past the pool).
  int64_t pool = 0;
  uint64_t seed = 1;
};

Result run_conv1d(const Conv1dCase &c);
Result run_conv1d_update(const Conv1dUpdateCase &c);
std::string describe(const Conv1dCase &c);
std::string describe(const Conv1dUpdateCase &c);

}  // namespace baracuda::check
