// Attention forward and backward through the C ABI on random device data,
// against the float64 reference: f32 / f64 within DESIGN.md's tolerance,
// f16 / bf16 no worse than twice the error of PyTorch's math path at that
// dtype (FlashAttention's rule), lse within f32's (f64's) tolerance and -inf
// exactly where a row sees no key, the bytes around every output untouched,
// and a second run bitwise equal when the plan says it is deterministic.
#pragma once

#include <cstdint>
#include <string>

#include "reference/harness.hpp"

namespace baracuda::check {

enum class SdpaLayout {
  Contiguous,
  Padded,     // gaps after every row, head and batch of every tensor (rows stay 16-byte aligned)
  PackedQkv,  // Q, K and V views of one [B, S, 3, H, D] buffer (needs Hq = Hkv, Q = K, D = Dv)
  SharedKv,   // K and V with head stride 0: one kv head seen as heads_kv heads (forward only)
};
const char *sdpa_layout_name(SdpaLayout l);

struct SdpaCase {
  bool backward = false;
  baracuda_dtype_t dtype = BARACUDA_DTYPE_BF16;
  int64_t batch = 1, heads_q = 1, heads_kv = 1, queries = 1, keys = 1;
  int32_t head_dim = 64, head_dim_v = 0;  // 0: D
  float scale = 0, softcap = 0;
  int32_t causal = 0, alignment = BARACUDA_SDPA_TOP_LEFT;
  int64_t window_left = -1, window_right = -1;
  int32_t alibi = 0;
  bool per_batch_slopes = false;
  bool lse = true;  // forward: LSE asked for
  SdpaLayout layout = SdpaLayout::Contiguous;
  int32_t target_sm = 0;  // 0: the device's; 80 or 89 force that variant
  uint32_t flags = 0;     // select flags
  // A candidate name for BARACUDA_FORCE_CANDIDATE at select; when it refuses
  // the case, the result's detail starts with kRefused.
  std::string force;
  bool graph = false;     // each run captured into a CUDA graph on a new stream, then launched
  uint64_t seed = 1;
};

inline constexpr const char *kRefused = "refused at select: ";

Result run_sdpa(const SdpaCase &c);
std::string describe(const SdpaCase &c);

// c's descriptor, for tests that drive the plan themselves.
baracuda_sdpa_desc_t sdpa_desc_of(const SdpaCase &c);

}  // namespace baracuda::check
