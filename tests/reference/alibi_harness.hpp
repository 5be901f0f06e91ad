// ALiBi forward and backward through the C ABI on random device data, against
// the float64 reference: every output within the dtype's tolerance, DSLOPES
// also within the header's error bound, the bytes around strided outputs
// untouched, and a second run bitwise equal.
#pragma once

#include <cstdint>
#include <string>

#include "reference/harness.hpp"

namespace baracuda::check {

// Layouts of the [B, H, Q, K] tensors (scores, y, dy, dscores); K always has stride 1.
enum class ScoresLayout {
  Contiguous,
  Offset,      // contiguous, data one element past a 16-byte boundary
  Padded,      // gaps after every row, head and batch, data three elements past a 16-byte boundary
  HeadsInner,  // memory [B, Q, H, K], as attention's projections leave it
};
const char *scores_layout_name(ScoresLayout l);

// Layouts of the slopes ([H] or [B, H]) and of DSLOPES.
enum class SlopesLayout {
  Dense,
  Strided,    // every slope two elements apart, B fastest for [B, H]
  Broadcast,  // stride 0 on the first axis: one slope for all heads ([H]) or all batches ([B, H]); inputs only
};
const char *slopes_layout_name(SlopesLayout l);

struct AlibiCase {
  int32_t op = BARACUDA_OP_ALIBI;  // or BARACUDA_OP_ALIBI_BACKWARD
  baracuda_dtype_t dtype = BARACUDA_DTYPE_F32;
  baracuda_dtype_t slopes_dtype = 0;  // as the descriptor takes it: 0 is f32 (f64 for f64)
  int32_t convention = BARACUDA_ALIBI_SIGNED;
  int32_t alignment = BARACUDA_ALIBI_TOP_LEFT;
  bool per_batch_slopes = false;
  int64_t batch = 1, heads = 1, queries = 1, keys = 1;
  ScoresLayout layout = ScoresLayout::Contiguous;
  SlopesLayout slopes_layout = SlopesLayout::Dense;
  bool in_place = false;  // Y is SCORES (forward), DSCORES is DY (backward)
  bool dscores = true;    // backward: DSCORES asked for
  bool dslopes = true;    // backward: DSLOPES asked for
  const char *repeat_candidate = nullptr;  // the repeat run's plan is this candidate's (NULL: the same plan again)
  uint64_t seed = 1;
};

Result run_alibi(const AlibiCase &c);
std::string describe(const AlibiCase &c);

}  // namespace baracuda::check
