// Attention forward and backward on the GPU against the float64 reference,
// every kernel variant forced through target_sm and the select flags, and
// the cuDNN candidates and the Hopper kernels through BARACUDA_FORCE_CANDIDATE.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gpu_helpers.hpp"
#include "random_draws.hpp"
#include "reference/sdpa_harness.hpp"

using namespace baracuda::check;

namespace {

const baracuda_dtype_t kDtypes[] = {BARACUDA_DTYPE_BF16, BARACUDA_DTYPE_F16, BARACUDA_DTYPE_F32, BARACUDA_DTYPE_F64};
const int32_t kHeadDims[] = {32, 64, 80, 96, 128, 192, 256};

bool tensor_cores(baracuda_dtype_t dtype) { return dtype == BARACUDA_DTYPE_F16 || dtype == BARACUDA_DTYPE_BF16; }

// A candidate forced on one small case.
Result probe_forced(const char *candidate) {
  SdpaCase c;
  c.queries = c.keys = 64;
  c.force = candidate;
  return run_sdpa(c);
}

// Whether the probe served; else a warning, once (warned). A GPU run that
// must cover the candidate sets expect_env=1, and then its absence fails
// every case instead.
bool probe_served(const Result &probe, const char *expect_env, const char *unchecked, bool &warned) {
  const char *expect = std::getenv(expect_env);
  if (expect != nullptr && std::string(expect) == "1") {
    INFO(expect_env << ": " << probe.detail);
    REQUIRE(probe.ok);
  }
  if (!probe.ok && !warned) {
    warned = true;
    WARN(unchecked << " not checked: " << probe.detail);
  }
  return probe.ok;
}

// cuDNN loadable here, or not.
bool cudnn_present() {
  static const Result probe = probe_forced("sdpa_fwd_cudnn");
  static bool warned = false;
  return probe_served(probe, "BARACUDA_EXPECT_CUDNN", "the cuDNN candidates are", warned);
}

// The Hopper forward served here (an sm 90 device, a build holding sm_90a
// code), or not.
bool sm90_present() {
  static const Result probe = probe_forced("sdpa_fwd_sm90_wgmma");
  static bool warned = false;
  return probe_served(probe, "BARACUDA_EXPECT_SM90", "the Hopper forward is", warned);
}

// Whether some query row sees no key (mask and window as include/baracuda/sdpa.h says).
bool some_row_sees_no_key(const SdpaCase &c) {
  if (c.keys == 0) return true;
  const int64_t shift = c.alignment == BARACUDA_SDPA_BOTTOM_RIGHT ? c.keys - c.queries : 0;
  const int64_t right = c.causal ? 0 : c.window_right;
  if (right >= 0 && shift + right < 0) return true;
  return c.window_left >= 0 && c.queries - 1 + shift - c.window_left > c.keys - 1;
}

// What the cuDNN candidates must serve: what sdpa_cudnn.cpp does not refuse
// itself, less what cuDNN's frontend refuses by its own rules.
bool cudnn_must_serve(const SdpaCase &c) {
  if (!tensor_cores(c.dtype) || c.softcap != 0 || c.alibi != 0 || c.queries == 0 || some_row_sees_no_key(c))
    return false;
  const bool band = c.causal || c.window_left >= 0 || c.window_right >= 0;
  if (c.backward && c.dtype == BARACUDA_DTYPE_F16 && c.heads_kv != c.heads_q) return false;  // ours: its dV error
  if (c.backward && c.queries == 1 && c.keys == 1) return false;                     // "s_q = s_kv = 1"
  if (band && c.alignment == BARACUDA_SDPA_BOTTOM_RIGHT && c.queries > c.keys) return false;  // bottom-right, s_q > s_kv
  if (c.window_left >= 0 && c.queries > c.keys) return false;                      // sliding window, s_q > s_kv
  return true;
}

int g_cudnn_served = 0, g_cudnn_refused = 0;

// c through the cuDNN candidates, forced: the same checks where they serve;
// where cuDNN refuses, select says UNSUPPORTED with its reason.
void check_cudnn(SdpaCase c) {
  if (!tensor_cores(c.dtype) || !cudnn_present()) return;
  c.target_sm = 0;
  for (bool deterministic : {false, true}) {
    if (deterministic && !c.backward) continue;
    c.force = !c.backward ? "sdpa_fwd_cudnn" : deterministic ? "sdpa_bwd_cudnn_deterministic" : "sdpa_bwd_cudnn";
    c.flags = deterministic ? BARACUDA_SELECT_DETERMINISTIC : 0;
    const Result r = run_sdpa(c);
    const bool refused = !r.ok && r.detail.rfind(kRefused, 0) == 0;
    (refused ? g_cudnn_refused : g_cudnn_served) += 1;
    INFO(describe(c) << ": " << r.detail);
    if (cudnn_must_serve(c)) CHECK(r.ok);
    else CHECK((r.ok || refused));
  }
}

int g_sm90_checked[3] = {0, 0, 0};  // forward, backward, deterministic backward

// c through the Hopper kernels of its pass, forced: the forward, the
// backward and its deterministic mode (a second run bitwise equal: run_sdpa
// checks it where the plan says deterministic) serve every f16 / bf16
// problem on sm 90, the same checks.
void check_sm90(SdpaCase c) {
  if (!tensor_cores(c.dtype) || !sm90_present()) return;
  c.target_sm = 0;
  for (bool deterministic : {false, true}) {
    if (deterministic && !c.backward) continue;
    c.flags = deterministic ? BARACUDA_SELECT_DETERMINISTIC : 0;
    c.force = !c.backward ? "sdpa_fwd_sm90_wgmma" : deterministic ? "sdpa_bwd_sm90_deterministic" : "sdpa_bwd_sm90_wgmma";
    ++g_sm90_checked[c.backward + deterministic];
    CHECK_CASE(c, run_sdpa);
  }
}

// c through every variant that serves its dtype: for f16 / bf16 the
// device's choice (cuDNN where it serves on sm 90), the sm_80 kernel (forced
// by target_sm 80), the sm_89 forward (target_sm 89) and the deterministic
// backward; for f32 the 3xTF32 forward (the device's choice) and the
// CUDA-core one (forced by F32_STRICT, which the 3xTF32 kernel does not
// serve); for f64 and the f32 backward the CUDA-core kernel. The backward is
// not forced to sm 89: there it is the sm_80 kernel again, refused at select
// past 99 KiB of shared memory (the CPU suite checks that). Forcing an arch
// needs the build to hold code for it.
void check_variants(SdpaCase c) {
  if (!tensor_cores(c.dtype)) {
    CHECK_CASE(c, run_sdpa);
    if (c.dtype == BARACUDA_DTYPE_F32 && !c.backward) {
      c.dtype = BARACUDA_DTYPE_F32_STRICT;
      CHECK_CASE(c, run_sdpa);
    }
    return;
  }
  for (int32_t sm : {0, 80, 89}) {
    if (sm == 89 && c.backward) continue;
    if (sm != 0 && !build_serves(sm)) {
      WARN("this build has no code for sm " << sm << ": its variant is not forced (build with -Dgpu_arch=80,90)");
      continue;
    }
    c.target_sm = sm;
    c.flags = 0;
    CHECK_CASE(c, run_sdpa);
    if (c.backward && sm == 0) {
      c.flags = BARACUDA_SELECT_DETERMINISTIC;
      CHECK_CASE(c, run_sdpa);
    }
  }
  check_cudnn(c);
  check_sm90(c);
}

SdpaCase base(bool backward, baracuda_dtype_t dtype, int64_t queries, int64_t keys, int32_t head_dim = 64) {
  SdpaCase c;
  c.backward = backward;
  c.dtype = dtype;
  c.batch = 2;
  c.heads_q = 2;
  c.heads_kv = 1;
  c.queries = queries;
  c.keys = keys;
  c.head_dim = head_dim;
  return c;
}

}  // namespace

TEST_CASE("sdpa: every dtype and head size, odd lengths", "[sdpa]") {
  for (bool backward : {false, true})
    for (baracuda_dtype_t dtype : kDtypes)
      for (int32_t d : kHeadDims) check_variants(base(backward, dtype, 37, 53, d));
}

TEST_CASE("sdpa: Dv different from D, both ways", "[sdpa]") {
  const int32_t pairs[][2] = {{64, 128}, {128, 64}, {32, 256}, {256, 40}};
  for (bool backward : {false, true})
    for (baracuda_dtype_t dtype : kDtypes)
      for (const auto &dd : pairs) {
        SdpaCase c = base(backward, dtype, 45, 61, dd[0]);
        c.head_dim_v = dd[1];
        check_variants(c);
      }
}

TEST_CASE("sdpa: Q != K both ways, Q = 1, K = 1, with every mask alignment", "[sdpa]") {
  const int64_t sizes[][2] = {{1, 1}, {1, 300}, {300, 1}, {129, 65}, {65, 129}, {200, 200}};
  for (bool backward : {false, true})
    for (baracuda_dtype_t dtype : kDtypes)
      for (const auto &qk : sizes)
        for (int32_t causal : {0, 1})
          for (int32_t alignment : {BARACUDA_SDPA_TOP_LEFT, BARACUDA_SDPA_BOTTOM_RIGHT}) {
            if (!causal && alignment == BARACUDA_SDPA_BOTTOM_RIGHT) continue;  // no mask: nothing to align
            SdpaCase c = base(backward, dtype, qk[0], qk[1]);
            c.causal = causal;
            c.alignment = alignment;
            check_variants(c);
          }
}

TEST_CASE("sdpa: GQA ratios 1, 2 and 8, and a kv head shared through stride 0", "[sdpa]") {
  for (bool backward : {false, true})
    for (baracuda_dtype_t dtype : kDtypes) {
      for (int64_t hkv : {8, 4, 1}) {
        SdpaCase c = base(backward, dtype, 33, 47);
        c.batch = 1;
        c.heads_q = 8;
        c.heads_kv = hkv;
        c.causal = 1;
        check_variants(c);
      }
      SdpaCase c = base(false, dtype, 33, 47);
      c.heads_kv = c.heads_q = 4;
      c.layout = SdpaLayout::SharedKv;
      check_variants(c);
    }
}

TEST_CASE("sdpa: sliding windows with and without the causal mask, both alignments", "[sdpa]") {
  const int64_t windows[][2] = {{16, 0}, {5, 7}, {0, 0}, {-1, 3}, {9, -1}};
  for (bool backward : {false, true})
    for (baracuda_dtype_t dtype : kDtypes)
      for (const auto &w : windows)
        for (int32_t alignment : {BARACUDA_SDPA_TOP_LEFT, BARACUDA_SDPA_BOTTOM_RIGHT})
          for (int32_t causal : {0, 1}) {
            SdpaCase c = base(backward, dtype, 70, 90);
            c.window_left = w[0];
            c.window_right = w[1];
            c.alignment = alignment;
            c.causal = causal;
            check_variants(c);
          }
}

TEST_CASE("sdpa: ALiBi in both conventions with [Hq] and [B, Hq] slopes, softcap and scale", "[sdpa]") {
  for (bool backward : {false, true})
    for (baracuda_dtype_t dtype : kDtypes) {
      for (int32_t alibi : {BARACUDA_ALIBI_SIGNED, BARACUDA_ALIBI_SYMMETRIC})
        for (bool per_batch : {false, true}) {
          SdpaCase c = base(backward, dtype, 51, 77);
          c.heads_q = 4;
          c.heads_kv = 2;
          c.alibi = alibi;
          c.per_batch_slopes = per_batch;
          c.causal = alibi == BARACUDA_ALIBI_SIGNED;
          c.alignment = BARACUDA_SDPA_BOTTOM_RIGHT;
          check_variants(c);
        }
      for (float softcap : {30.0f, 2.0f}) {
        SdpaCase c = base(backward, dtype, 51, 77);
        c.softcap = softcap;
        c.scale = 0.5f;  // scores of several units: the cap bends them
        check_variants(c);
        c.alibi = BARACUDA_ALIBI_SYMMETRIC;
        c.causal = 1;
        c.scale = -0.3f;
        check_variants(c);
      }
    }
}

TEST_CASE("sdpa: rows that see no key give out 0, lse -inf and zero gradients", "[sdpa]") {
  for (bool backward : {false, true})
    for (baracuda_dtype_t dtype : kDtypes) {
      SdpaCase c = base(backward, dtype, 12, 5);  // bottom-right causal: rows 0..6 see no key
      c.causal = 1;
      c.alignment = BARACUDA_SDPA_BOTTOM_RIGHT;
      check_variants(c);
      c = base(backward, dtype, 40, 20);  // a one-key window past the last key for rows 20..39
      c.window_left = c.window_right = 0;
      check_variants(c);
      check_variants(base(backward, dtype, 9, 0));  // K = 0: every row
      check_variants(base(backward, dtype, 0, 9));  // Q = 0: dk = dv = 0
    }
}

TEST_CASE("sdpa: strided views: padded rows, Q K V packed in one buffer, no LSE", "[sdpa]") {
  for (bool backward : {false, true})
    for (baracuda_dtype_t dtype : kDtypes) {
      SdpaCase c = base(backward, dtype, 41, 41, 64);
      c.heads_kv = c.heads_q = 3;
      c.causal = 1;
      for (SdpaLayout l : {SdpaLayout::Padded, SdpaLayout::PackedQkv}) {
        c.layout = l;
        check_variants(c);
      }
      if (!backward) {
        c.layout = SdpaLayout::Contiguous;
        c.lse = false;
        check_variants(c);
      }
    }
}

TEST_CASE("sdpa: sequences over a thousand, several tiles of every kind", "[sdpa]") {
  for (bool backward : {false, true})
    for (int32_t causal : {0, 1}) {
      SdpaCase c = base(backward, BARACUDA_DTYPE_BF16, 1030, 1100, 128);
      c.batch = 1;
      c.causal = causal;
      c.alignment = BARACUDA_SDPA_BOTTOM_RIGHT;
      check_variants(c);
      c = base(backward, BARACUDA_DTYPE_F16, 1031, 1031, 64);
      c.batch = 1;
      c.heads_kv = 2;
      c.causal = causal;
      check_variants(c);
      c = base(backward, BARACUDA_DTYPE_F32, 1000, 1003, 64);
      c.batch = c.heads_q = 1;
      c.causal = causal;
      check_variants(c);
    }
}

TEST_CASE("sdpa: forward and backward captured in a CUDA graph", "[sdpa][graph]") {
  for (bool backward : {false, true})
    for (baracuda_dtype_t dtype : kDtypes) {
      SdpaCase c = base(backward, dtype, 77, 130, 96);
      c.causal = 1;
      c.graph = true;
      check_variants(c);
    }
}

namespace {

// A random forward or backward, every variant check_variants runs. Q and K
// at the tiles' edges (16-row MMA atoms; 32-, 64- and 128-row query and key
// tiles of the sm_80, sm_89, sm_90 and CUDA-core kernels and the backward's
// 64-query, 64- or 128-key tiles; 512: several of each), one less or one more,
// Q = 1 (decoding), K = 1, or up to 700; D and Dv any multiple of 8 up to 256, mostly at and
// around the head tiles' 64, 128 and 256; GQA ratios 1, 2, 3, 4 and 8;
// padded, packed-QKV and shared-kv-head views; causal masks in either
// alignment, windows, ALiBi, softcap, scale, no LSE and graph capture now
// and then. B * Hq * Q * K * max(D, Dv) at most 2^24: the float64 reference
// and the math path stay a fraction of a second a case.
SdpaCase random_sdpa_case(Draws &d) {
  SdpaCase c;
  c.backward = d.percent(50);
  c.dtype = d.pick({BARACUDA_DTYPE_BF16, BARACUDA_DTYPE_BF16, BARACUDA_DTYPE_F16, BARACUDA_DTYPE_F16,
                    BARACUDA_DTYPE_F32, BARACUDA_DTYPE_F64});
  c.layout = d.pick({SdpaLayout::Contiguous, SdpaLayout::Contiguous, SdpaLayout::Contiguous, SdpaLayout::Padded,
                     SdpaLayout::PackedQkv, SdpaLayout::SharedKv});
  if (c.backward && c.layout == SdpaLayout::SharedKv) c.layout = SdpaLayout::Padded;  // a forward-only view
  const std::vector<int64_t> edges = {1, 16, 32, 64, 128, 256, 512};
  for (bool fits = false; !fits;) {
    c.head_dim = static_cast<int32_t>(8 * d.size({1, 4, 8, 9, 16, 17, 32}, 1, 32));
    c.head_dim_v = d.percent(70) ? 0 : static_cast<int32_t>(8 * d.size({1, 8, 9, 16, 17, 32}, 1, 32));
    c.batch = d.between(1, 3);
    c.heads_kv = d.between(1, 3);
    c.heads_q = c.heads_kv * d.pick({1, 1, 2, 3, 4, 8});
    c.queries = d.percent(15) ? 1 : d.size(edges, 1, 700);
    c.keys = d.size(edges, 1, 700);
    if (c.layout == SdpaLayout::PackedQkv) c.heads_q = c.heads_kv, c.keys = c.queries, c.head_dim_v = 0;
    const int64_t widest = std::max(c.head_dim, c.head_dim_v);
    fits = c.batch * c.heads_q * c.queries * c.keys * widest <= (int64_t{1} << 24);
  }
  c.causal = d.percent(40);
  c.alignment = d.pick({BARACUDA_SDPA_TOP_LEFT, BARACUDA_SDPA_BOTTOM_RIGHT});
  if (d.percent(25)) {
    c.window_left = d.percent(30) ? -1 : d.size({0, 16, 64}, 0, 80);
    c.window_right = d.percent(30) ? -1 : d.size({0, 16, 64}, 0, 80);
  }
  if (d.percent(20)) {
    c.alibi = d.pick({BARACUDA_ALIBI_SIGNED, BARACUDA_ALIBI_SYMMETRIC});
    c.per_batch_slopes = d.percent(50);
  }
  if (d.percent(10)) c.softcap = d.pick({2.0f, 30.0f});
  if (d.percent(15)) c.scale = d.pick({0.5f, -0.3f, 0.05f});
  c.lse = c.backward || d.percent(90);
  c.graph = d.percent(10);
  c.seed = d.seed();
  return c;
}

}  // namespace

TEST_CASE("sdpa: 28 random problems at the tiles' edges, through every variant", "[sdpa][random]") {
  // random_sdpa_case says which boundaries the draws aim at. 28 take about
  // 15 s on the H200, mostly the CPU's float64 references and cuDNN's plans.
  Draws d(0x73647061);
  for (int i = 0; i < 28; ++i) check_variants(random_sdpa_case(d));
}

namespace {

// One forward's device buffers: random bf16 Q, K, V, and OUT, LSE and a workspace.
struct AttentionJob {
  static constexpr int64_t kShape[4] = {1, 4, 256, 64}, kStats[3] = {1, 4, 256};
  static constexpr size_t kElems = 1 * 4 * 256 * 64;
  void *q = nullptr, *k = nullptr, *v = nullptr, *out = nullptr, *lse = nullptr, *workspace = nullptr;
  size_t workspace_bytes;

  AttentionJob(uint64_t seed, size_t workspace_bytes_) : workspace_bytes(workspace_bytes_) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> dist(-2, 2);
    std::vector<uint16_t> host(kElems);
    for (void **p : {&q, &k, &v}) {
      for (uint16_t &x : host) {
        const float f = dist(rng);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        x = static_cast<uint16_t>(bits >> 16);  // bf16: the float's upper half
      }
      REQUIRE(cudaMalloc(p, kElems * 2) == cudaSuccess);
      REQUIRE(cudaMemcpy(*p, host.data(), kElems * 2, cudaMemcpyHostToDevice) == cudaSuccess);
    }
    REQUIRE(cudaMalloc(&out, kElems * 2) == cudaSuccess);
    REQUIRE(cudaMalloc(&lse, 1024 * 4) == cudaSuccess);
    REQUIRE(cudaMalloc(&workspace, workspace_bytes + 1) == cudaSuccess);
  }
  ~AttentionJob() {
    for (void *p : {q, k, v, out, lse, workspace}) cudaFree(p);
  }
  std::vector<baracuda_arg_t> args() const {
    return {{BARACUDA_ARG_Q, baracuda_tensor_contiguous(q, BARACUDA_DTYPE_BF16, 4, kShape)},
            {BARACUDA_ARG_K, baracuda_tensor_contiguous(k, BARACUDA_DTYPE_BF16, 4, kShape)},
            {BARACUDA_ARG_V, baracuda_tensor_contiguous(v, BARACUDA_DTYPE_BF16, 4, kShape)},
            {BARACUDA_ARG_OUT, baracuda_tensor_contiguous(out, BARACUDA_DTYPE_BF16, 4, kShape)},
            {BARACUDA_ARG_LSE, baracuda_tensor_contiguous(lse, BARACUDA_DTYPE_F32, 3, kStats)}};
  }
  std::vector<unsigned char> result() const {
    std::vector<unsigned char> bytes(kElems * 2 + 1024 * 4);
    REQUIRE(cudaMemcpy(bytes.data(), out, kElems * 2, cudaMemcpyDeviceToHost) == cudaSuccess);
    REQUIRE(cudaMemcpy(bytes.data() + kElems * 2, lse, 1024 * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
    return bytes;
  }
};

}  // namespace

TEST_CASE("sdpa: one cuDNN plan run from 8 threads on 8 streams, each result equal to a lone run's",
          "[sdpa][concurrency]") {
  if (!cudnn_present()) return;
  SdpaCase c;
  c.heads_q = c.heads_kv = 4;
  c.queries = c.keys = 256;
  c.causal = 1;
  const baracuda_sdpa_desc_t d = sdpa_desc_of(c);
  setenv("BARACUDA_FORCE_CANDIDATE", "sdpa_fwd_cudnn", 1);
  baracuda_plan_t plan = nullptr;
  const baracuda_status_t selected = baracuda_plan_select(&d.header, nullptr, &plan);
  unsetenv("BARACUDA_FORCE_CANDIDATE");
  INFO(baracuda_last_error_message());
  REQUIRE(selected == BARACUDA_STATUS_SUCCESS);
  size_t workspace_bytes = 0;
  REQUIRE(baracuda_plan_workspace_size(plan, &workspace_bytes) == BARACUDA_STATUS_SUCCESS);
  std::vector<std::unique_ptr<AttentionJob>> jobs;
  std::vector<std::vector<unsigned char>> alone;
  for (int t = 0; t < 8; ++t) {
    jobs.push_back(std::make_unique<AttentionJob>(700 + t, workspace_bytes));
    const auto args = jobs[t]->args();
    REQUIRE(baracuda_plan_run(plan, args.data(), 5, jobs[t]->workspace, workspace_bytes, nullptr) == 0);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    alone.push_back(jobs[t]->result());
    REQUIRE(cudaMemset(jobs[t]->out, 0xFF, AttentionJob::kElems * 2) == cudaSuccess);
  }
  const std::vector<int> status = on_threads_and_streams(8, [&](int t, cudaStream_t s) {
    const auto args = jobs[t]->args();
    int st = 0;
    for (int rep = 0; rep < 30 && st == 0; ++rep)
      st = baracuda_plan_run(plan, args.data(), 5, jobs[t]->workspace, workspace_bytes, s);
    return st;
  });
  for (int t = 0; t < 8; ++t) {
    INFO("thread " << t);
    CHECK(status[t] == 0);
    CHECK(jobs[t]->result() == alone[t]);
  }
  baracuda_plan_destroy(plan);
}

// The measured table (sdpa_backend_heuristics.hpp) has the bf16 D 256
// backward at B*H 128, 2048 queries and keys on the Hopper kernel for the
// atomic mode and on cuDNN's deterministic algorithm for the deterministic one:
// a caller who does not ask for determinism must not get cuDNN's
// deterministic fallback there.
TEST_CASE("sdpa: on sm 90 with cuDNN the default backward follows the measured table for the mode asked",
          "[sdpa][select]") {
  if (!cudnn_present() || !sm90_present()) return;
  SdpaCase c;
  c.backward = true;
  c.batch = 8;
  c.heads_q = c.heads_kv = 16;
  c.queries = c.keys = 2048;
  c.head_dim = 256;
  const baracuda_sdpa_desc_t d = sdpa_desc_of(c);
  const auto kernel_for = [&](uint32_t flags) {
    baracuda_select_options_t o = BARACUDA_SELECT_OPTIONS_INIT;
    o.flags = flags;
    baracuda_plan_t plan = nullptr;
    const baracuda_status_t st = baracuda_plan_select(&d.header, &o, &plan);
    INFO(baracuda_last_error_message());
    REQUIRE(st == BARACUDA_STATUS_SUCCESS);
    baracuda_plan_info_t info{};
    info.struct_size = sizeof(info);
    REQUIRE(baracuda_plan_get_info(plan, &info) == BARACUDA_STATUS_SUCCESS);
    baracuda_plan_destroy(plan);
    return std::string(info.kernel_name);
  };
  CHECK(kernel_for(0).rfind("sdpa_bwd_sm90_wgmma", 0) == 0);
  CHECK(kernel_for(BARACUDA_SELECT_DETERMINISTIC).rfind("sdpa_bwd_cudnn_deterministic", 0) == 0);
}

// Declared last, so it runs after every case above (Catch2's declaration order).
TEST_CASE("sdpa: the forced cuDNN cases ran, not only refusals", "[sdpa]") {
  if (!cudnn_present()) return;
  WARN("cuDNN candidates, forced: " << g_cudnn_served << " cases checked, " << g_cudnn_refused << " refused at select");
  CHECK(g_cudnn_served > g_cudnn_refused);
}

// Declared last, so it runs after every case above.
TEST_CASE("sdpa: the forced Hopper forward and backward cases ran", "[sdpa]") {
  if (!sm90_present()) return;
  WARN("Hopper kernels, forced: " << g_sm90_checked[0] << " forward, " << g_sm90_checked[1] << " backward and "
                                  << g_sm90_checked[2] << " deterministic backward cases checked");
  CHECK(g_sm90_checked[0] > 0);
  CHECK(g_sm90_checked[1] > 0);
  CHECK(g_sm90_checked[2] > 0);
  CHECK(g_sm90_checked[2] == g_sm90_checked[1]);  // the deterministic mode serves every head size
}
