#include "ops/sdpa/sdpa_cudnn_support.hpp"

#include <climits>
#include <string>

#include "core/dtype.hpp"
#include "core/error.hpp"

namespace baracuda::sdpa {

namespace {

// The last key query row i sees is i' + right, the first i' - window_left:
// with both bounds at least 0 every row's band is as wide as the first's, so
// only the first row (too far above) and the last (too far below) can miss
// every key.
bool some_row_sees_no_key(const Spec &s) {
  const int64_t shift = s.bottom_right ? s.keys - s.queries : 0;
  const int64_t right = s.causal ? 0 : s.window_right;
  if (right >= 0 && shift + right < 0) return true;
  return s.window_left >= 0 && s.queries - 1 + shift - s.window_left > s.keys - 1;
}

}  // namespace

WhyNot cudnn_feature_gap(const Spec &s, bool backward) {
  if (s.dtype != BARACUDA_DTYPE_F16 && s.dtype != BARACUDA_DTYPE_BF16)
    return cat("dtype ", dtype_name(s.dtype), " is not served (F16, BF16)");
  if (s.softcap > 0) return std::string("softcap: cuDNN's attention has no tanh cap");
  if (s.alibi != 0) return std::string("ALiBi with the caller's slopes: cuDNN's ALiBi computes slopes of its own");
  // Measured on the H200 with cuDNN 9.14: its f16 dV for a kv head shared by
  // several query heads errs by up to 1.5x our bound (twice the math path's
  // error, the GPU suite's rule); bf16 and unshared heads stay inside it.
  if (backward && s.dtype == BARACUDA_DTYPE_F16 && s.heads_kv != s.heads_q)
    return std::string("f16 backward with shared kv heads (GQA): cuDNN's dV misses the accuracy bound");
  if (s.batch == 0 || s.heads_q == 0 || s.queries == 0 || s.keys == 0)
    return std::string("an extent of 0: cuDNN builds no graph for it");
  if (some_row_sees_no_key(s))
    return std::string("rows that see no key (ours give out = 0 and lse = -inf; cuDNN does not promise that)");
  if (s.batch > INT32_MAX || s.heads_q > INT32_MAX || s.queries > INT32_MAX || s.keys > INT32_MAX ||
      s.window_left >= INT32_MAX || s.window_right > INT32_MAX)
    return std::string("an extent or window over 2^31 - 1");
  return serves();
}

cudnn::SdpaGraphKey cudnn_graph_key(const Spec &s, bool backward, bool deterministic, int device) {
  cudnn::SdpaGraphKey k{};
  k.device = device;
  k.backward = backward;
  k.bf16 = s.dtype == BARACUDA_DTYPE_BF16;
  k.deterministic = backward && deterministic;
  k.batch = s.batch, k.heads_q = s.heads_q, k.heads_kv = s.heads_kv, k.queries = s.queries, k.keys = s.keys;
  k.head_dim = s.head_dim, k.head_dim_v = s.head_dim_v;
  k.scale = static_cast<float>(s.scale);
  // With Q = K the two alignments are one band. cuDNN 9.14's backward ran
  // the bottom-right causal band at the unmasked cost (H200, bf16 B4 H32
  // S4096 D128: 5.07 ms against 2.73 top-left; bench/NOTES.md, session 16),
  // so a square problem always asks for top-left.
  k.bottom_right = s.bottom_right && s.queries != s.keys;
  k.right_bound = s.causal ? 0 : s.window_right;
  k.left_bound = s.window_left >= 0 ? s.window_left + 1 : -1;
  return k;
}

}  // namespace baracuda::sdpa
