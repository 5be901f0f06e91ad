// Probe for the Hopper attention forward (session 17), bf16. Every variant
// (variant.cu compiled against one kernels/ tree each; `base` is the
// baseline tree) runs in this one process:
// - check: on small shapes covering the features (GQA, causal in both
//   alignments, windows, ALiBi, softcap, D != Dv, odd lengths), O's largest
//   error over the largest |O| and lse's largest error against a float64
//   reference, and whether O's bits equal the baseline's;
// - time: the README's bf16 rows, the variants' launches interleaved round
//   by round (median of 25 event-timed launches after 3 warm-ups), with the
//   largest difference of each variant's O from the baseline's.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../common/probe_check.h"
#include "../common/sdpa_probe_problem.h"
#include "sdpa/sdpa_problem.h"

using baracuda::kernels::SdpaProblem;
using bf = __nv_bfloat16;

// Defined by variant.cu per tree; a variant not built stays null (weak).
int probe_forward_base(const void *, cudaStream_t);
__attribute__((weak)) int probe_forward_v1(const void *, cudaStream_t);
__attribute__((weak)) int probe_forward_v2(const void *, cudaStream_t);
__attribute__((weak)) int probe_forward_v3(const void *, cudaStream_t);
__attribute__((weak)) int probe_forward_v4(const void *, cudaStream_t);
__attribute__((weak)) int probe_forward_v5(const void *, cudaStream_t);
__attribute__((weak)) int probe_forward_v6(const void *, cudaStream_t);
__attribute__((weak)) int probe_forward_v7(const void *, cudaStream_t);
__attribute__((weak)) int probe_forward_v8(const void *, cudaStream_t);
__attribute__((weak)) int probe_forward_v9(const void *, cudaStream_t);
__attribute__((weak)) int probe_forward_sm80(const void *, cudaStream_t);  // sm80.cu: the sm_80 forward
__attribute__((weak)) int probe_forward_grid(const void *, cudaStream_t);  // the grid's tree, f16 too
// cudnn_backend.cpp: the library's cuDNN backend, timed as one more variant
// (PROBE_CUDNN=0 leaves it out).
__attribute__((weak)) int probe_forward_cudnn(const void *, cudaStream_t);
extern "C" {
int probe_f16 = 0;  // the dtype every variant runs: 0 bf16, 1 f16 (the grid's rows)
}
struct Variant {
  const char *name;
  int (*run)(const void *, cudaStream_t);
};
static std::vector<Variant> variants() {
  std::vector<Variant> v{{"base", probe_forward_base}};
  for (const Variant &x :
       {Variant{"v1", probe_forward_v1}, Variant{"v2", probe_forward_v2}, Variant{"v3", probe_forward_v3},
        Variant{"v4", probe_forward_v4}, Variant{"v5", probe_forward_v5}, Variant{"v6", probe_forward_v6},
        Variant{"v7", probe_forward_v7}, Variant{"v8", probe_forward_v8}, Variant{"v9", probe_forward_v9}})
    if (x.run != nullptr && (getenv("PROBE_VARIANTS") == nullptr ||
                             ("," + std::string(getenv("PROBE_VARIANTS")) + ",").find("," + std::string(x.name) + ",") !=
                                 std::string::npos))
      v.push_back(x);  // PROBE_VARIANTS=v1,v2: only those beside base and cuDNN
  const char *with_cudnn = getenv("PROBE_CUDNN");
  if (probe_forward_cudnn != nullptr && (with_cudnn == nullptr || std::string(with_cudnn) != "0"))
    v.push_back({"cudnn", probe_forward_cudnn});
  return v;
}

// Whether the variant ran p (false: it does not build p's tile).
static bool launch(const Variant &v, const SdpaProblem &p) {
  const int rc = v.run(&p, nullptr);
  if (rc != 0 && rc != 2) {
    printf("%s: launch returned %d\n", v.name, rc);
    exit(1);
  }
  return rc == 0;
}

struct Case {
  const char *name;
  int64_t B, Hq, Hkv, Q, K;
  int D, Dv;
  bool causal, bottom_right;
  int64_t wl, wr;
  int alibi;
  double softcap;
};

// Contiguous [B, H, S, D] tensors; lse [B, Hq, Q].
struct Buffers {
  bf *q, *k, *v, *o;
  float *lse, *slopes;
  size_t nq, nk, nv, no;
};
static Buffers alloc(const Case &c) {
  Buffers b{};
  b.nq = size_t(c.B) * c.Hq * c.Q * c.D;
  b.nk = size_t(c.B) * c.Hkv * c.K * c.D;
  b.nv = size_t(c.B) * c.Hkv * c.K * c.Dv;
  b.no = size_t(c.B) * c.Hq * c.Q * c.Dv;
  CK(cudaMalloc(&b.q, b.nq * 2));
  CK(cudaMalloc(&b.k, b.nk * 2));
  CK(cudaMalloc(&b.v, b.nv * 2));
  CK(cudaMalloc(&b.o, b.no * 2));
  CK(cudaMalloc(&b.lse, size_t(c.B) * c.Hq * c.Q * 4));
  CK(cudaMalloc(&b.slopes, size_t(c.Hq) * 4));
  return b;
}
static void release(Buffers &b) {
  CK(cudaFree(b.q));
  CK(cudaFree(b.k));
  CK(cudaFree(b.v));
  CK(cudaFree(b.o));
  CK(cudaFree(b.lse));
  CK(cudaFree(b.slopes));
}
static SdpaProblem problem(const Case &c, const Buffers &b) {
  SdpaProblem p{};
  set_problem_shape(p, c);
  p.slopes = c.alibi ? b.slopes : nullptr;
  p.slope_stride[0] = 0;
  p.slope_stride[1] = 1;
  const auto set = [](auto &t, void *data, int64_t H, int64_t S, int64_t D) {
    t.data = data;
    t.stride[0] = H * S * D;
    t.stride[1] = S * D;
    t.stride[2] = D;
  };
  set(p.q, b.q, c.Hq, c.Q, c.D);
  set(p.k, b.k, c.Hkv, c.K, c.D);
  set(p.v, b.v, c.Hkv, c.K, c.Dv);
  set(p.out, b.o, c.Hq, c.Q, c.Dv);
  p.lse = b.lse;
  p.lse_stride[0] = c.Hq * c.Q;
  p.lse_stride[1] = c.Q;
  p.lse_stride[2] = 1;
  return p;
}

static float bf_to_f(bf x) { return __bfloat162float(x); }

// The float64 reference of row i of (b, h): o (Dv values) and lse.
static void reference_row(const Case &c, const SdpaProblem &p, const std::vector<float> &q, const std::vector<float> &k,
                          const std::vector<float> &v, const std::vector<float> &slopes, int64_t b, int64_t h,
                          int64_t i, std::vector<double> &o, double &lse) {
  const int64_t hk = h / (c.Hq / c.Hkv), shift = c.bottom_right ? c.K - c.Q : 0, ii = i + shift;
  std::vector<double> s(c.K, -INFINITY);
  double mx = -INFINITY;
  for (int64_t j = 0; j < c.K; ++j) {
    if (c.causal && j > ii) continue;
    if (c.wl >= 0 && j < ii - c.wl) continue;
    if (c.wr >= 0 && j > ii + c.wr) continue;
    double d = 0;
    for (int e = 0; e < c.D; ++e)
      d += double(q[((b * c.Hq + h) * c.Q + i) * c.D + e]) * k[((b * c.Hkv + hk) * c.K + j) * c.D + e];
    d *= p.scale;
    if (c.softcap > 0) d = c.softcap * std::tanh(d / c.softcap);
    if (c.alibi == 1) d += slopes[h] * double(j - ii);
    if (c.alibi == 2) d -= slopes[h] * std::fabs(double(j - ii));
    s[j] = d;
    mx = std::max(mx, d);
  }
  o.assign(c.Dv, 0.0);
  if (mx == -INFINITY) {
    lse = -INFINITY;
    return;
  }
  double sum = 0;
  for (int64_t j = 0; j < c.K; ++j) {
    if (s[j] == -INFINITY) continue;
    const double w = std::exp(s[j] - mx);
    sum += w;
    for (int e = 0; e < c.Dv; ++e) o[e] += w * v[((b * c.Hkv + hk) * c.K + j) * c.Dv + e];
  }
  for (double &x : o) x /= sum;
  lse = mx + std::log(sum);
}

static uint64_t fnv(const void *data, size_t bytes) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < bytes; ++i) h = (h ^ static_cast<const uint8_t *>(data)[i]) * 1099511628211ull;
  return h;
}

static void check(const std::vector<Variant> &vs) {
  const Case cases[] = {
      // Session 22: the last round shared out in key tiles (136 tiles: one whole round and 4 tiles on 17 blocks;
      // 18 tiles: all shared; causal 136 pairs: one whole round and 4 pairs, shared only with Q = K).
      {"H68 Q130 K2100 D128 (last round shared)", 1, 68, 68, 130, 2100, 128, 128, false, false, -1, -1, 0, 0},
      {"Q300 K2100 D128 Dv112 GQA 3 ALiBi softcap 20 (shared)", 1, 6, 2, 300, 2100, 128, 112, false, false, -1, -1, 1, 20},
      {"H34 S1024 D128 causal (last round shared)", 1, 34, 34, 1024, 1024, 128, 128, true, false, -1, -1, 0, 0},
      {"H34 Q1024 K1100 D128 causal bottom-right ALiBi (Q != K: whole)", 1, 34, 34, 1024, 1100, 128, 128, true, true, -1, -1, 1, 0},
      {"S77 D64", 2, 2, 2, 77, 77, 64, 64, false, false, -1, -1, 0, 0},
      {"Q130 K300 D128 causal top-left", 1, 2, 2, 130, 300, 128, 128, true, false, -1, -1, 0, 0},
      {"Q130 K300 D128 causal bottom-right", 1, 2, 2, 130, 300, 128, 128, true, true, -1, -1, 0, 0},
      {"Q300 K130 D64 causal bottom-right", 1, 2, 2, 300, 130, 64, 64, true, true, -1, -1, 0, 0},
      {"S300 D256 causal", 1, 2, 2, 300, 300, 256, 256, true, false, -1, -1, 0, 0},
      {"S300 D64 GQA 2 window 40/16", 1, 4, 2, 300, 300, 64, 64, false, false, 40, 16, 0, 0},
      {"S300 D128 GQA 2 causal ALiBi", 1, 4, 2, 300, 300, 128, 128, true, false, -1, -1, 1, 0},
      {"Q130 K300 D64 ALiBi symmetric", 1, 2, 2, 130, 300, 64, 64, false, false, -1, -1, 2, 0},
      {"S130 D128 softcap 30", 2, 2, 2, 130, 130, 128, 128, false, false, -1, -1, 0, 30},
      {"S300 D256 softcap 20 window 100/-", 1, 2, 2, 300, 300, 256, 256, false, false, 100, -1, 0, 20},
      {"S300 D64 Dv128 causal", 1, 2, 2, 300, 300, 64, 128, true, false, -1, -1, 0, 0},
      {"S130 D128 Dv64", 1, 2, 1, 130, 130, 128, 64, false, false, -1, -1, 0, 0},
      {"S1000 D128 causal", 1, 2, 2, 1000, 1000, 128, 128, true, false, -1, -1, 0, 0},
      // Even query tiles of every row seeing every key: cluster pairs.
      {"Q256 K300 D256 GQA 2", 1, 4, 2, 256, 300, 256, 256, false, false, -1, -1, 0, 0},
      {"Q384 K1000 D64 ALiBi", 2, 2, 2, 384, 1000, 64, 64, false, false, -1, -1, 1, 0},
      {"Q250 K77 D128 softcap 30", 2, 3, 3, 250, 77, 128, 128, false, false, -1, -1, 0, 30},
      {"S1024 D128 GQA 2", 1, 4, 2, 1024, 1024, 128, 128, false, false, -1, -1, 0, 0},
      // Groups whose rows' keys end before the block's (80-key tiles at D 256).
      {"Q200 K333 D256 causal bottom-right", 2, 2, 1, 200, 333, 256, 256, true, true, -1, -1, 0, 0},
      {"S300 D256 GQA 2 window 30/10", 1, 4, 2, 300, 300, 256, 256, false, false, 30, 10, 0, 0},
      {"Q300 K130 D256 causal bottom-right", 1, 2, 2, 300, 130, 256, 256, true, true, -1, -1, 0, 0},
      // Last query tiles of a (b, h) that end within a group's rows, more
      // tiles than SMs (session 19's groups without rows ran no products).
      {"B9 H8 Q256 K64 D64 (192 + 64 rows)", 9, 8, 8, 256, 64, 64, 64, false, false, -1, -1, 0, 0},
      {"B9 H8 Q320 K200 D64 (192 + 128 rows)", 9, 8, 8, 320, 200, 64, 64, false, false, -1, -1, 0, 0},
      {"B9 H8 Q192 K64 D128 (128 + 64 rows)", 9, 8, 8, 192, 64, 128, 128, false, false, -1, -1, 0, 0},
      {"B9 H8 Q192 K100 D256 causal (128 + 64)", 9, 8, 4, 192, 100, 256, 256, true, false, -1, -1, 0, 0},
      // A tile or two more than the SMs (session 19 cut such last rounds' tiles in parts).
      {"B1 H133 Q192 K64 D64 (last tile in parts)", 1, 133, 133, 192, 64, 64, 64, false, false, -1, -1, 0, 0},
      {"B1 H134 Q128 K64 D128 (last tiles in parts)", 1, 134, 134, 128, 64, 128, 128, false, false, -1, -1, 0, 0},
      {"B2 H67 Q128 K32 D256 (last tiles in parts)", 2, 67, 67, 128, 32, 256, 256, false, false, -1, -1, 0, 0},
      // D past 128 and short of 256 (the 256-column tile's slabs past D skipped).
      {"S300 D192 causal", 1, 2, 2, 300, 300, 192, 192, true, false, -1, -1, 0, 0},
      {"Q130 K300 D160 Dv192 GQA 2", 1, 4, 2, 130, 300, 160, 192, false, false, -1, -1, 0, 0},
      {"S200 D136 Dv256 window 50/20", 1, 2, 2, 200, 200, 136, 256, false, false, 50, 20, 0, 0},
      {"S200 D64 Dv256 softcap 30", 1, 2, 2, 200, 200, 64, 256, false, false, -1, -1, 0, 30},
      // Open 64-column problems that four consumers of 64 keys finish in fewer rounds of rows (132 SMs).
      {"B4 H33 Q256 K100 D48 Dv64 GQA 3 ALiBi (four groups)", 4, 33, 11, 256, 100, 48, 64, false, false, -1, -1, 1, 0},
      {"B2 H66 Q500 K100 D64 softcap 30 (four groups)", 2, 66, 66, 500, 100, 64, 64, false, false, -1, -1, 0, 30},
      // D 64 under a mask, more tiles than SMs (persistent pairs).
      {"B2 H70 S400 D64 causal", 2, 70, 70, 400, 400, 64, 64, true, false, -1, -1, 0, 0},
      {"B2 H70 Q400 K600 D64 causal bottom-right", 2, 70, 70, 400, 600, 64, 64, true, true, -1, -1, 0, 0},
      {"B1 H140 S300 D64 window 100/0", 1, 140, 140, 300, 300, 64, 64, false, false, 100, 0, 0, 0},
      // Causal pairs at the 128 and 256 tiles, 4 query tiles a (b, h): the producer's tail dealing where
      // it runs from 2 query tiles (session 23's probe trees), the last (b, h)s' tiles heaviest first.
      {"B2 H70 S512 D128 causal (pairs, tail)", 2, 70, 70, 512, 512, 128, 128, true, false, -1, -1, 0, 0},
      {"B1 H140 Q512 K600 D128 GQA 2 causal bottom-right (pairs, tail)", 1, 140, 70, 512, 600, 128, 128, true, true, -1, -1, 1, 0},
      // Blocks of several tiles, some without keys: the turns carried across them.
      {"B2 H70 Q400 K100 D128 causal bottom-right (tiles without keys)", 2, 70, 70, 400, 100, 128, 128, true, true, -1, -1, 0, 0},
      {"B1 H70 S512 D256 causal (pairs, tail)", 1, 70, 70, 512, 512, 256, 256, true, false, -1, -1, 0, 0},
      // 32 query tiles a (b, h), 288 tiles: the tail from 32 query tiles, all of it dealt heaviest first.
      {"B1 H9 S4096 D128 causal (tail)", 1, 9, 9, 4096, 4096, 128, 128, true, false, -1, -1, 0, 0},
      // Causal, more than three rounds of pairs on 132 SMs (session 22's tail dealing ran on such).
      {"B4 H64 S512 D64 causal (pairs)", 4, 64, 64, 512, 512, 64, 64, true, false, -1, -1, 0, 0},
      {"B2 H80 S768 D64 GQA 4 causal (pairs)", 2, 80, 20, 768, 768, 64, 64, true, false, -1, -1, 0, 0},
      // Open, a last round a fifth of the blocks or less (420 tiles: 24 left past 3 rounds of 132; session
      // 22 ran such rounds in 64-row slices).
      {"B1 H140 Q400 K300 D64 GQA 2 ALiBi (short last round)", 1, 140, 70, 400, 300, 64, 64, false, false, -1, -1, 1, 0},
      {"B2 H70 Q400 K200 D64 softcap 20 (short last round)", 2, 70, 70, 400, 200, 64, 64, false, false, -1, -1, 0, 20},
      // B16 H16 S2048's last round (176 tiles of 11 a (b, h): 44 left on 132 SMs).
      {"B1 H16 Q2048 K256 D64 (last round of 44)", 1, 16, 16, 2048, 256, 64, 64, false, false, -1, -1, 0, 0},
      {"B3 H50 S300 D64 GQA 5 causal ALiBi", 3, 50, 10, 300, 300, 64, 64, true, false, -1, -1, 1, 0},
      // D 64 causal pairs with the tail dealt from 8 or 16 query tiles, and the three-consumer cut under
      // a causal mask (session 24's trees): 8, 16 and 32 (22 at 192 rows) query tiles a (b, h).
      {"B2 H70 Q1024 K1100 D64 causal bottom-right (tail)", 2, 70, 70, 1024, 1100, 64, 64, true, true, -1, -1, 0, 0},
      {"B1 H20 S2048 D64 causal (tail)", 1, 20, 20, 2048, 2048, 64, 64, true, false, -1, -1, 0, 0},
      {"B1 H16 S4096 D64 GQA 2 causal (tail)", 1, 16, 8, 4096, 4096, 64, 64, true, false, -1, -1, 0, 0},
      // D 64 causal from 4096 queries on four consumers (256-row tiles of 64 keys; session 24).
      {"B1 H4 Q4096 K4160 D64 causal bottom-right (four groups)", 1, 4, 4, 4096, 4160, 64, 64, true, true, -1, -1, 0, 0},
      {"B1 H18 S4096 D64 causal ALiBi (four groups, pairs, tail)", 1, 18, 18, 4096, 4096, 64, 64, true, false, -1, -1, 1, 0},
  };
  std::mt19937_64 g(17);
  std::normal_distribution<float> nd(0.f, 1.f);
  // PROBE_CHECK_TILE=64: only the cases of that head-size tile (the others' float64 reference costs the round's seconds).
  const int only_tile = getenv("PROBE_CHECK_TILE") ? atoi(getenv("PROBE_CHECK_TILE")) : 0;
  for (const Case &c : cases) {
    const int tile = std::max(c.D, c.Dv) <= 64 ? 64 : std::max(c.D, c.Dv) <= 128 ? 128 : 256;
    if (only_tile != 0 && tile != only_tile) continue;
    // PROBE_CHECK_MATCH="a|b": only the cases whose names hold one of those.
    if (getenv("PROBE_CHECK_MATCH") != nullptr) {
      const std::string list = std::string(getenv("PROBE_CHECK_MATCH")) + "|", name = c.name;
      bool hit = false;
      for (size_t at = 0, end; (end = list.find('|', at)) != std::string::npos; at = end + 1)
        hit = hit || (end > at && name.find(list.substr(at, end - at)) != std::string::npos);
      if (!hit) continue;
    }
    Buffers b = alloc(c);
    const SdpaProblem p = problem(c, b);
    std::vector<float> q(b.nq), k(b.nk), v(b.nv), slopes(c.Hq);
    const auto fill = [&](std::vector<float> &x, bf *dev, float sd) {
      std::vector<bf> h(x.size());
      for (size_t i = 0; i < x.size(); ++i) {
        h[i] = __float2bfloat16(nd(g) * sd);
        x[i] = bf_to_f(h[i]);
      }
      CK(cudaMemcpy(dev, h.data(), h.size() * 2, cudaMemcpyHostToDevice));
    };
    fill(q, b.q, 1.5f);
    fill(k, b.k, 1.5f);
    fill(v, b.v, 1.f);
    for (int64_t h = 0; h < c.Hq; ++h) slopes[h] = std::exp2(-8.0 * (h + 1) / c.Hq);
    CK(cudaMemcpy(b.slopes, slopes.data(), slopes.size() * 4, cudaMemcpyHostToDevice));
    // The reference once, on every row, rows spread over host threads (the
    // round's run time is short).
    const int64_t rows = c.B * c.Hq * c.Q;
    std::vector<double> ref_o(size_t(rows) * c.Dv), ref_lse(rows);
    const int workers = 12;
    std::vector<std::thread> pool;
    for (int wk = 0; wk < workers; ++wk)
      pool.emplace_back([&, wk] {
        std::vector<double> o;
        for (int64_t r = wk; r < rows; r += workers) {
          reference_row(c, p, q, k, v, slopes, r / (c.Hq * c.Q), r / c.Q % c.Hq, r % c.Q, o, ref_lse[r]);
          std::copy(o.begin(), o.end(), ref_o.begin() + r * c.Dv);
        }
      });
    for (std::thread &th : pool) th.join();
    double ref_max = 0;
    for (double x : ref_o) ref_max = std::max(ref_max, std::fabs(x));
    uint64_t base_hash = 0;
    for (const Variant &var : vs) {
      CK(cudaMemset(b.o, 0xFF, b.no * 2));  // NaN poison
      CK(cudaMemset(b.lse, 0xFF, rows * 4));
      if (!launch(var, p)) continue;
      CK(cudaDeviceSynchronize());
      std::vector<bf> out(b.no);
      std::vector<float> lse(rows);
      CK(cudaMemcpy(out.data(), b.o, b.no * 2, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(lse.data(), b.lse, rows * 4, cudaMemcpyDeviceToHost));
      double err = 0, lse_err = 0;
      for (size_t i = 0; i < out.size(); ++i) {
        const double d = std::fabs(double(bf_to_f(out[i])) - ref_o[i]);
        err = std::isnan(d) ? INFINITY : std::max(err, d);
      }
      for (int64_t r = 0; r < rows; ++r) {
        const double d =
            ref_lse[r] == -INFINITY ? (lse[r] == -INFINITY ? 0 : INFINITY) : std::fabs(lse[r] - ref_lse[r]);
        lse_err = std::isnan(d) ? INFINITY : std::max(lse_err, d);
      }
      const uint64_t hash = fnv(out.data(), out.size() * 2) ^ fnv(lse.data(), lse.size() * 4);
      if (&var == &vs[0]) base_hash = hash;
      // The same bits on every run (session 22: pieces of cut tiles arrive in any order).
      bool repeat_same = true;
      for (int again = 0; again < 3; ++again) {
        CK(cudaMemset(b.o, 0xFF, b.no * 2));
        CK(cudaMemset(b.lse, 0xFF, rows * 4));
        launch(var, p);
        CK(cudaDeviceSynchronize());
        std::vector<bf> out2(b.no);
        std::vector<float> lse2(rows);
        CK(cudaMemcpy(out2.data(), b.o, b.no * 2, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(lse2.data(), b.lse, rows * 4, cudaMemcpyDeviceToHost));
        repeat_same = repeat_same && (fnv(out2.data(), out2.size() * 2) ^ fnv(lse2.data(), lse2.size() * 4)) == hash;
      }
      const double rel = err / ref_max;
      printf("check %-36s | %-4s | O err %.2e | lse err %.2e | %s%s | %s\n", c.name, var.name, rel, lse_err,
             hash == base_hash ? "bits = base" : "bits differ", repeat_same ? "" : ", REPEAT DIFFERS",
             rel <= 8e-3 && lse_err <= 1e-2 && (repeat_same || std::string(var.name) == "cudnn") ? "PASS" : "FAIL");
    }
    release(b);
  }
}

// Roughly normal values from a hash of the index (the sum of four uniforms): the timed rows are large.
// With bits (PROBE_DATA=bits), bench_ops' data instead: random bits under
// the mask 0x3F7F, finite values below 1 whose exponents are uniform, so
// that most are tiny (bench/bench_harness.hpp's fill_random).
__global__ void fill_hash(bf *x, size_t n, uint64_t seed, bool bits, bool f16) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint64_t h = (i + seed) * 0x9E3779B97F4A7C15ull;
    if (bits) {
      h ^= h >> 31;
      h *= 0xBF58476D1CE4E5B9ull;
      x[i] = __ushort_as_bfloat16(static_cast<unsigned short>((h >> 20) & 0x3F7F));
      continue;
    }
    float s = 0;
    for (int r = 0; r < 4; ++r) {
      h ^= h >> 29;
      h *= 0xBF58476D1CE4E5B9ull;
      h ^= h >> 32;
      s += (h & 0xFFFFFF) / 16777216.f;
    }
    x[i] = f16 ? __ushort_as_bfloat16(__half_as_ushort(__float2half((s - 2.f) * 1.7f)))
               : __float2bfloat16((s - 2.f) * 1.7f);
  }
}

// Buffers for a timed case, filled with hashed values.
static Buffers filled(const Case &c) {
  Buffers b = alloc(c);
  const bool bits = getenv("PROBE_DATA") != nullptr && std::string(getenv("PROBE_DATA")) == "bits";
  fill_hash<<<1024, 256>>>(b.q, b.nq, 1, bits, probe_f16 != 0);
  fill_hash<<<1024, 256>>>(b.k, b.nk, 2 * b.nq, bits, probe_f16 != 0);
  fill_hash<<<1024, 256>>>(b.v, b.nv, 3 * b.nq, bits, probe_f16 != 0);
  CK(cudaGetLastError());
  return b;
}

// Each variant's median ms on p, launches interleaved round by round
// (rounds - 3 after 3 warm-ups, 25 by default), variant i writing outs[i]; -1 where it does not build
// p's tile. PROBE_BATCH=n: each timed sample is n launches back to back
// (over n), so that no host time between launches counts.
static std::vector<double> interleaved_ms(const std::vector<Variant> &vs, SdpaProblem p, const std::vector<bf *> &outs,
                                          int rounds = 28) {
  const int batch = getenv("PROBE_BATCH") ? std::max(1, atoi(getenv("PROBE_BATCH"))) : 1;
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<std::vector<float>> ms(vs.size());
  // PROBE_ALTERNATE (or PROBE_ORDER=alternate, session 23's rounds): odd
  // rounds launch the variants in reverse order, so that no variant always
  // runs right after the same one (the first of two kernels timed in turn at
  // the power cap runs ahead).
  const bool alternate = getenv("PROBE_ALTERNATE") != nullptr ||
                         (getenv("PROBE_ORDER") != nullptr && std::string(getenv("PROBE_ORDER")) == "alternate");
  for (int round = 0; round < rounds; ++round)
    for (size_t k = 0; k < vs.size(); ++k) {
      const size_t i = alternate && round % 2 == 1 ? vs.size() - 1 - k : k;
      p.out.data = outs[i];
      CK(cudaEventRecord(e0));
      bool ran = true;
      for (int n = 0; n < batch && ran; ++n) ran = launch(vs[i], p);
      if (!ran) continue;
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float t = 0;
      CK(cudaEventElapsedTime(&t, e0, e1));
      if (round >= 3) ms[i].push_back(t / batch);
    }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  std::vector<double> medians(vs.size(), -1);
  for (size_t i = 0; i < vs.size(); ++i)
    if (!ms[i].empty()) {
      std::sort(ms[i].begin(), ms[i].end());
      medians[i] = ms[i][ms[i].size() / 2];
    }
  return medians;
}

// "a,b,c,d;a,b,c,d;...": the environment's row and point lists.
static std::vector<std::array<int64_t, 4>> quads(const std::string &list) {
  std::vector<std::array<int64_t, 4>> out;
  for (size_t at = 0; at < list.size();) {
    size_t end = list.find(';', at);
    if (end == std::string::npos) end = list.size();
    long long a = 0, b = 0, c = 0, d = 0;
    if (sscanf(list.substr(at, end - at).c_str(), "%lld,%lld,%lld,%lld", &a, &b, &c, &d) == 4) out.push_back({a, b, c, d});
    at = end + 1;
  }
  return out;
}

static void time_rows(const std::vector<Variant> &vs) {
  struct Row {
    int64_t B, H, S;
    int D;
  };
  // The README's rows, then problems of fewer query tiles than twice the SMs;
  // PROBE_ROWS="B,H,S,D;..." times those rows instead.
  std::vector<Row> rows{{4, 32, 4096, 128}, {2, 32, 8192, 128}, {16, 16, 1024, 64}, {8, 16, 2048, 256},
                        {8, 16, 4096, 64},  {1, 8, 2048, 128},  {2, 8, 1024, 64},   {1, 16, 1024, 256}};
  if (getenv("PROBE_ROWS")) {
    rows.clear();
    for (const auto &q : quads(getenv("PROBE_ROWS"))) rows.push_back({q[0], q[1], q[2], static_cast<int>(q[3])});
  }
  const bool custom = getenv("PROBE_ROWS") != nullptr;
  const char *mask = getenv("PROBE_MASK");  // full or causal: only those rows
  // PROBE_D: the head sizes timed, comma-separated (every one by default).
  const std::string only = getenv("PROBE_D") ? "," + std::string(getenv("PROBE_D")) + "," : "";
  const bool small = getenv("PROBE_SMALL") != nullptr;  // only the last three rows
  const bool large = getenv("PROBE_LARGE") != nullptr;  // only the first five rows
  const int passes = getenv("PROBE_PASSES") ? std::max(1, atoi(getenv("PROBE_PASSES"))) : 1;
  for (int pass = 0; pass < passes; ++pass)
  for (const Row &r : rows)
    for (bool causal : {false, true}) {
      if ((mask != nullptr && std::string(mask) != (causal ? "causal" : "full")) ||
          (!only.empty() && only.find("," + std::to_string(r.D) + ",") == std::string::npos) ||
          (!custom && small && &r < rows.data() + 5) || (!custom && large && &r >= rows.data() + 5))
        continue;
      const Case c{"", r.B, r.H, r.H, r.S, r.S, r.D, r.D, causal, false, -1, -1, 0, 0};
      Buffers b = filled(c);
      std::vector<bf *> outs(vs.size());
      for (size_t i = 0; i < vs.size(); ++i) CK(cudaMalloc(&outs[i], b.no * 2));
      // PROBE_ROUNDS: launches of each variant (the first 3 untimed; 28 by default).
      const int rounds = getenv("PROBE_ROUNDS") ? std::max(4, atoi(getenv("PROBE_ROUNDS"))) : 28;
      const std::vector<double> ms = interleaved_ms(vs, problem(c, b), outs, rounds);
      const double flops = 4.0 * r.B * r.H * double(r.S) * r.S * r.D * (causal ? 0.5 : 1.0);
      std::vector<bf> base_out(b.no), out(b.no);
      CK(cudaMemcpy(base_out.data(), outs[0], b.no * 2, cudaMemcpyDeviceToHost));
      const double base_ms = ms[0];
      char row[96];
      snprintf(row, sizeof row, "B%lld H%lld S%lld D%d %s", (long long)r.B, (long long)r.H, (long long)r.S, r.D,
               causal ? "causal" : "full");
      for (size_t i = 1; i < vs.size(); ++i) {
        if (ms[i] < 0) continue;
        CK(cudaMemcpy(out.data(), outs[i], b.no * 2, cudaMemcpyDeviceToHost));
        double diff = 0;
        for (size_t e = 0; e < out.size(); ++e)
          diff = std::max(diff, double(std::fabs(bf_to_f(out[e]) - bf_to_f(base_out[e]))));
        const bool same = memcmp(out.data(), base_out.data(), out.size() * 2) == 0;
        const double v_ms = ms[i];
        printf("time %-24s | base %.4f ms %5.1f TF | %s %.4f ms %5.1f TF | %.3fx | %s (max diff %.1e)\n", row, base_ms,
               flops / base_ms / 1e9, vs[i].name, v_ms, flops / v_ms / 1e9, base_ms / v_ms,
               same ? "bits = base" : "bits differ", diff);
      }
      if (vs.size() == 1) printf("time %-24s | base %.4f ms %5.1f TF\n", row, base_ms, flops / base_ms / 1e9);
      if (vs.back().run == probe_forward_cudnn && ms.back() > 0) {
        printf("vs cudnn %-24s | cudnn %5.1f TF |", row, flops / ms.back() / 1e9);
        for (size_t i = 0; i + 1 < vs.size(); ++i)
          if (ms[i] > 0) printf(" %s %.3fx", vs[i].name, ms.back() / ms[i]);
        printf("\n");
      }
      for (bf *o : outs) CK(cudaFree(o));
      release(b);
    }
}

// Decoding (Q 1 to 16 queries against K 4096 to 32768 keys, GQA 8: 32
// query heads on 4 kv heads; D 128, a row at 64 and two at 256; then
// without GQA, and Q 64): every Hopper variant beside the sm_80 forward, launches interleaved round by round (median of 25 after 3);
// GB/s counts K and V read once.
static void time_decode(std::vector<Variant> vs) {
  if (probe_forward_sm80 != nullptr) vs.push_back({"sm80", probe_forward_sm80});
  struct Row {
    int64_t B, Hq, Hkv, Q, K;
    int D;
  };
  const Row rows[] = {{8, 32, 4, 1, 4096, 128},  {8, 32, 4, 1, 16384, 128}, {8, 32, 4, 1, 32768, 128},
                      {8, 32, 4, 4, 4096, 128},  {8, 32, 4, 4, 32768, 128}, {8, 32, 4, 16, 4096, 128},
                      {8, 32, 4, 16, 32768, 128}, {1, 32, 4, 1, 32768, 128}, {8, 32, 4, 1, 16384, 64},
                      {8, 32, 4, 1, 16384, 256},  {8, 32, 4, 16, 16384, 256}, {8, 32, 32, 1, 4096, 128},
                      {8, 32, 32, 64, 4096, 128}};
  for (const Row &r : rows) {
    const Case c{"", r.B, r.Hq, r.Hkv, r.Q, r.K, r.D, r.D, false, false, -1, -1, 0, 0};
    Buffers b = filled(c);
    const std::vector<double> ms = interleaved_ms(vs, problem(c, b), std::vector<bf *>(vs.size(), b.o));
    const double kv_bytes = double(b.nk + b.nv) * 2;
    printf("decode B%lld Hq%lld Hkv%lld Q%lld K%lld D%d", (long long)r.B, (long long)r.Hq, (long long)r.Hkv,
           (long long)r.Q, (long long)r.K, r.D);
    for (size_t i = 0; i < vs.size(); ++i)
      if (ms[i] >= 0) printf(" | %s %.4f ms %5.0f GB/s", vs[i].name, ms[i], kv_bytes / ms[i] / 1e6);
    printf("\n");
    release(b);
  }
}

static float element_to_f(bf x) {
  return probe_f16 ? __half2float(__ushort_as_half(__bfloat16_as_ushort(x))) : __bfloat162float(x);
}

// Select's question past D 128 (session 20): the Hopper forward of the
// `grid` tree (f16 and bf16 at the 256 tile) beside the library's cuDNN
// backend on a grid of B*H, Q and K, D 256 (both dtypes) and 192 (bf16),
// both causal modes (bottom-right where Q < K), launches interleaved (median
// of PROBE_GRID_ROUNDS, 11 by default, after 3). Stops after PROBE_GRID_S
// seconds (12 by default).
static void time_grid() {
  if (probe_forward_grid == nullptr) {
    printf("grid: the grid tree was not built\n");
    return;
  }
  // Without the cuDNN backend, the Hopper forward alone (grid.py times cuDNN through PyTorch in the same call).
  std::vector<Variant> vs{{"hopper", probe_forward_grid}};
  if (probe_forward_cudnn != nullptr) vs.push_back({"cudnn", probe_forward_cudnn});
  // PROBE_GRID_BASE: main's forward (base) in the same rounds, third, with
  // whether the grid tree's O has its bits.
  const bool with_base = getenv("PROBE_GRID_BASE") != nullptr && vs.size() == 2;
  if (with_base) vs.push_back({"base", probe_forward_base});
  struct Point {
    int64_t B, H, Q, K;
  };
  const std::vector<Point> grid_points{{1, 16, 1024, 1024}, {8, 16, 1024, 1024}, {32, 16, 1024, 1024},
                                       {1, 16, 2048, 2048}, {4, 16, 2048, 2048}, {16, 16, 2048, 2048},
                                       {1, 16, 4096, 4096}, {4, 16, 4096, 4096}, {1, 8, 8192, 8192},
                                       {2, 16, 8192, 8192}, {2, 16, 1024, 4096}, {1, 16, 2048, 8192}};
  // PROBE_GRID_EXTRA: the edges of the first grid's region (session 20, round 3): (b, h) between 128 and
  // 512 at 1024 and 1536 queries, 512 queries, 16384.
  const std::vector<Point> extra_points{{16, 16, 1024, 1024}, {8, 16, 1536, 1536}, {16, 16, 1536, 1536},
                                        {4, 16, 512, 512},    {32, 16, 512, 512},  {1, 8, 16384, 16384}};
  std::vector<Point> points = getenv("PROBE_GRID_EXTRA") ? extra_points : grid_points;
  // PROBE_GRID_POINTS="B,H,Q,K;...": those points instead.
  if (getenv("PROBE_GRID_POINTS")) {
    points.clear();
    for (const auto &q : quads(getenv("PROBE_GRID_POINTS"))) points.push_back({q[0], q[1], q[2], q[3]});
  }
  const char *mask = getenv("PROBE_GRID_MASK");  // causal or full: only those rows
  // PROBE_GRID_D: the head sizes and dtypes, e.g. "256,192,192f16" (f16 where the size ends in f16).
  std::vector<std::pair<int, int>> kinds{{256, 0}, {256, 1}, {192, 0}};
  if (getenv("PROBE_GRID_D")) {
    kinds.clear();
    std::string list = getenv("PROBE_GRID_D");
    for (size_t at = 0; at < list.size();) {
      size_t end = list.find(',', at);
      if (end == std::string::npos) end = list.size();
      const std::string item = list.substr(at, end - at);
      kinds.push_back({atoi(item.c_str()), item.find("f16") != std::string::npos ? 1 : 0});
      at = end + 1;
    }
  }
  const double budget = getenv("PROBE_GRID_S") ? atof(getenv("PROBE_GRID_S")) : 12.0;
  const int timed_rounds = getenv("PROBE_GRID_ROUNDS") ? std::max(1, atoi(getenv("PROBE_GRID_ROUNDS"))) : 11;
  cudaEvent_t start, now;
  CK(cudaEventCreate(&start));
  CK(cudaEventCreate(&now));
  CK(cudaEventRecord(start));
  for (const auto &[D, f16] : kinds) {
    probe_f16 = f16;
    for (bool causal : {false, true})
      for (const Point &pt : points) {
        if (mask != nullptr && std::string(mask) != (causal ? "causal" : "full")) continue;
        CK(cudaEventRecord(now));
        CK(cudaEventSynchronize(now));
        float elapsed = 0;
        CK(cudaEventElapsedTime(&elapsed, start, now));
        if (elapsed > budget * 1e3) {
          printf("grid: stopped after %.1f s\n", elapsed / 1e3);
          probe_f16 = 0;
          return;
        }
        const Case c{"", pt.B, pt.H, pt.H, pt.Q, pt.K, D, D, causal, true, -1, -1, 0, 0};
        Buffers b = filled(c);
        std::vector<bf *> outs(vs.size());
        for (size_t i = 0; i < vs.size(); ++i) CK(cudaMalloc(&outs[i], b.no * 2));
        const std::vector<double> ms = interleaved_ms(vs, problem(c, b), outs, 3 + timed_rounds);
        const double pairs = causal ? double(pt.Q) * pt.K - double(pt.Q) * (pt.Q - 1) / 2 : double(pt.Q) * pt.K;
        const double flops = 4.0 * pt.B * pt.H * D * pairs;
        char row[96];
        snprintf(row, sizeof row, "%s D%d %s BH%lld Q%lld K%lld", f16 ? "f16" : "bf16", D,
                 causal ? "causal" : "full", (long long)(pt.B * pt.H), (long long)pt.Q, (long long)pt.K);
        if (vs.size() == 1) {
          if (ms[0] > 0) printf("grid %-34s | hopper %.4f ms %5.1f TF\n", row, ms[0], flops / ms[0] / 1e9);
        } else if (ms[0] <= 0 || ms[1] <= 0) {
          printf("grid %-34s | not run by %s\n", row, ms[0] <= 0 ? "hopper" : "cudnn");
        } else {
          std::vector<bf> a(b.no), o(b.no);
          CK(cudaMemcpy(a.data(), outs[0], b.no * 2, cudaMemcpyDeviceToHost));
          CK(cudaMemcpy(o.data(), outs[1], b.no * 2, cudaMemcpyDeviceToHost));
          double diff = 0, most = 0;
          for (size_t e = 0; e < a.size(); ++e) {
            const double x = element_to_f(a[e]), y = element_to_f(o[e]);
            diff = std::isnan(x - y) ? INFINITY : std::max(diff, std::fabs(x - y));
            most = std::max(most, std::fabs(y));
          }
          printf("grid %-34s | hopper %.4f ms %5.1f TF | cudnn %.4f ms %5.1f TF | %.3fx | diff %.1e of %.1e", row,
                 ms[0], flops / ms[0] / 1e9, ms[1], flops / ms[1] / 1e9, ms[1] / ms[0], diff, most);
          if (with_base && ms[2] > 0) {
            std::vector<bf> c(b.no);
            CK(cudaMemcpy(c.data(), outs[2], b.no * 2, cudaMemcpyDeviceToHost));
            printf(" | base %5.1f TF, hopper %.3fx base, %s", flops / ms[2] / 1e9, ms[2] / ms[0],
                   memcmp(a.data(), c.data(), a.size() * 2) == 0 ? "bits = base" : "bits differ");
          }
          printf("\n");
        }
        for (bf *o : outs) CK(cudaFree(o));
        release(b);
      }
  }
  probe_f16 = 0;
  CK(cudaEventDestroy(start));
  CK(cudaEventDestroy(now));
}

// One row (PROBE_ONCE="B,H,S,D,causal"), each variant named in
// PROBE_ONCE_VARIANTS (comma-separated; every one by default) launched three
// times in turn: a profiler's target (ncu --launch-skip picks the launch).
static void run_once(const std::vector<Variant> &vs) {
  long long B = 8, H = 16, S = 4096, D = 64, causal = 0;
  if (getenv("PROBE_ONCE")) sscanf(getenv("PROBE_ONCE"), "%lld,%lld,%lld,%lld,%lld", &B, &H, &S, &D, &causal);
  const std::string only = getenv("PROBE_ONCE_VARIANTS") ? "," + std::string(getenv("PROBE_ONCE_VARIANTS")) + "," : "";
  const Case c{"", B, H, H, S, S, static_cast<int>(D), static_cast<int>(D), causal != 0, false, -1, -1, 0, 0};
  Buffers b = filled(c);
  const SdpaProblem p = problem(c, b);
  for (const Variant &v : vs) {
    if (!only.empty() && only.find("," + std::string(v.name) + ",") == std::string::npos) continue;
    for (int n = 0; n < 3; ++n) launch(v, p);
    CK(cudaDeviceSynchronize());
    printf("once B%lld H%lld S%lld D%lld %s: %s ran\n", B, H, S, D, causal ? "causal" : "full", v.name);
  }
  release(b);
}

int main(int argc, char **argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);
  const std::vector<Variant> vs = variants();
  const std::string mode = argc > 1 ? argv[1] : "all";  // check, time, grid, decode, once, all, or some joined by '+'
  const auto has = [&](const char *part) {
    return mode == "all" || ("+" + mode + "+").find(std::string("+") + part + "+") != std::string::npos;
  };
  if (has("check")) check(vs);
  if (has("time")) time_rows(vs);
  if (mode != "all" && has("grid")) time_grid();
  if (has("decode")) time_decode(vs);
  if (mode == "once") run_once(vs);
  return 0;
}
