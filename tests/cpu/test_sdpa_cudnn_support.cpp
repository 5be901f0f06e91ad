// What the cuDNN attention candidates refuse before building a graph, and
// how the causal mask and the window become cuDNN's diagonal band
// (src/ops/sdpa/sdpa_cudnn_support.hpp). No GPU, no cuDNN.
#include <string>

#include "cpu_helpers.hpp"
#include "ops/sdpa/sdpa_cudnn_support.hpp"

using baracuda::sdpa::cudnn_feature_gap;
using baracuda::sdpa::cudnn_graph_key;
using baracuda::sdpa::Spec;

namespace {

Spec spec(int64_t queries, int64_t keys) {
  Spec s{};
  s.dtype = BARACUDA_DTYPE_BF16;
  s.head_dim = s.head_dim_v = 64;
  s.scale = 0.125;
  s.window_left = s.window_right = -1;
  s.batch = 2, s.heads_q = 4, s.heads_kv = 2, s.queries = queries, s.keys = keys;
  return s;
}

std::string gap(const Spec &s, bool backward = false) { return cudnn_feature_gap(s, backward).value_or("serves"); }

}  // namespace

TEST_CASE("sdpa cuDNN: what it refuses before any graph, and why", "[sdpa]") {
  Spec s = spec(100, 100);
  CHECK(gap(s) == "serves");
  s.dtype = BARACUDA_DTYPE_F32;
  CHECK(gap(s) == "dtype f32 is not served (F16, BF16)");
  s = spec(100, 100);
  s.softcap = 30;
  CHECK(gap(s) == "softcap: cuDNN's attention has no tanh cap");
  s = spec(100, 100);
  s.alibi = BARACUDA_ALIBI_SIGNED;
  CHECK(gap(s) == "ALiBi with the caller's slopes: cuDNN's ALiBi computes slopes of its own");
  CHECK(gap(spec(0, 100)) == "an extent of 0: cuDNN builds no graph for it");
  CHECK(gap(spec(100, 0)) == "an extent of 0: cuDNN builds no graph for it");
  s = spec(100, 100);  // Hq 4 over Hkv 2
  s.dtype = BARACUDA_DTYPE_F16;
  CHECK(gap(s) == "serves");
  CHECK(gap(s, true) == "f16 backward with shared kv heads (GQA): cuDNN's dV misses the accuracy bound");
  s.heads_kv = 4;
  CHECK(gap(s, true) == "serves");
  s.dtype = BARACUDA_DTYPE_BF16;
  s.heads_kv = 1;
  CHECK(gap(s, true) == "serves");
  s = spec(100, 100);
  s.queries = int64_t{1} << 31;
  CHECK(gap(s) == "an extent or window over 2^31 - 1");
}

TEST_CASE("sdpa cuDNN: rows that see no key are refused, rows that all see one are not", "[sdpa]") {
  const std::string no_key = "rows that see no key (ours give out = 0 and lse = -inf; cuDNN does not promise that)";
  Spec s = spec(12, 5);  // bottom-right causal: rows 0..6 see no key
  s.causal = true;
  s.bottom_right = true;
  CHECK(gap(s) == no_key);
  s.bottom_right = false;  // top-left: row i sees keys 0..i
  CHECK(gap(s) == "serves");
  s = spec(40, 20);  // a one-key window past the last key for rows 20..39
  s.window_left = s.window_right = 0;
  CHECK(gap(s) == no_key);
  s = spec(20, 20);
  s.window_left = s.window_right = 0;
  CHECK(gap(s) == "serves");
  s = spec(10, 30);  // bottom-right window (-1, 0): row 0 sees keys 0..20
  s.bottom_right = true;
  s.window_right = 0;
  CHECK(gap(s) == "serves");
}

TEST_CASE("sdpa cuDNN: the mask and the window as cuDNN's diagonal band", "[sdpa]") {
  Spec s = spec(64, 96);
  auto key = cudnn_graph_key(s, false, true, 3);
  CHECK(key.device == 3);
  CHECK_FALSE(key.backward);
  CHECK_FALSE(key.deterministic);  // a forward has no deterministic algorithm to ask for
  CHECK(key.bf16);
  CHECK(key.right_bound == -1);
  CHECK(key.left_bound == -1);
  CHECK(key.scale == 0.125f);
  s.causal = true;
  s.bottom_right = true;
  key = cudnn_graph_key(s, true, true, 0);
  CHECK(key.deterministic);
  CHECK(key.bottom_right);
  CHECK(key.right_bound == 0);
  s.window_left = 16;  // ours keeps j >= i' - 16: cuDNN's j > i' - 17
  s.window_right = 5;  // the causal mask is the tighter bound
  key = cudnn_graph_key(s, true, false, 0);
  CHECK(key.right_bound == 0);
  CHECK(key.left_bound == 17);
  s.causal = false;
  key = cudnn_graph_key(s, false, false, 0);
  CHECK(key.right_bound == 5);
  s.window_left = 0;  // the diagonal alone
  CHECK(cudnn_graph_key(s, false, false, 0).left_bound == 1);
}

TEST_CASE("sdpa cuDNN: a square problem's bottom-right band is asked for as top-left, the same band", "[sdpa]") {
  Spec s = spec(128, 128);
  s.causal = true;
  s.bottom_right = true;
  CHECK_FALSE(cudnn_graph_key(s, true, false, 0).bottom_right);
  s.keys = 129;  // one key more: the bands differ
  CHECK(cudnn_graph_key(s, true, false, 0).bottom_right);
}
