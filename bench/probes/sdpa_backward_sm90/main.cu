// Probe for the Hopper attention backward (session 17). `probe check`: on
// small shapes covering the features, the max error of dQ, dK and dV of the
// staged sm_90 backward (atomic and deterministic modes) and of the baseline
// tree's sm_80 backward against float64 reference gradients (the suite's
// rule: the Hopper kernel's error at most twice the sm_80 kernel's), the
// deterministic mode's bits over two runs, and its dK / dV bits against the
// atomic mode's (the same products). `probe time`: the baseline tree's Hopper
// backward, the staged one and its deterministic mode timed on the README's
// bf16 rows (median of 10 event-timed runs after 2 warm-ups, the whole op:
// memset, delta, main kernel, dq conversion) on bench_ops' kind of data
// (real_inputs.cu), with the largest difference between their gradients and
// the deterministic mode's repeat; the baseline's deterministic mode beside
// them and once more after the variants (the run's drift); with
// PROBE_SYNTHETIC the baseline on the earlier sessions' synthetic data too,
// with PROBE_PASSES the passes around the main kernel alone (the staged
// tree's beside main's); PROBE_ROWS picks rows; PROBE_ALTERNATE times main's,
// the staged kernel, both deterministic and (PROBE_ALT_VARIANT) every checked
// variant in turn, best of PROBE_ALT_REPS (3), PROBE_ALTERNATE_REVERSED the
// list backwards: on the H200 a kernel timed first on a row, after the
// setup's idle, reads up to 9% high (bench/NOTES.md, session 21), and one
// timed right after another runs at the clock that one left (session 22).
// PROBE_CHECK_ONLY picks correctness cases by index ("0,5,12"). Built with
// PROBE_HAS_VARIANT, variants of the staged Hopper backward (bf16) beside
// them (build.sh's table; the diagnostic ones timed, not checked).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <iterator>
#include <vector>

#include "probe_api.h"
#include "real_inputs.h"
#ifdef PROBE_HAS_VARIANT
#include "probe_variants.h"
#endif
#include "sdpa/sdpa_kernels.h"
#include "../common/probe_check.h"
#include "../common/sdpa_probe_problem.h"
#include "sdpa/sdpa_problem.h"

using baracuda::kernels::SdpaProblem;

struct Case {
  const char *name;
  int dtype;  // 0 bf16, 1 f16
  int64_t B, Hq, Hkv, Q, K;
  int D, Dv;
  bool causal, bottom_right;
  int64_t wl, wr;
  int alibi;
  double softcap;
};

static float to_f(uint16_t x, int dt) {
  if (dt == 0) {
    uint32_t u = uint32_t(x) << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
  __half h;
  memcpy(&h, &x, 2);
  return __half2float(h);
}
static uint16_t from_f(float f, int dt) {
  uint16_t u;
  if (dt == 0) {
    __nv_bfloat16 b = __float2bfloat16(f);
    memcpy(&u, &b, 2);
  } else {
    __half h = __float2half(f);
    memcpy(&u, &h, 2);
  }
  return u;
}

// A problem's dense [B, H, S, D] host tensors and their device copies.
struct Run {
  Case c;
  SdpaProblem p{};
  std::vector<uint16_t> q, k, v, o, dout;
  std::vector<float> lse;
  std::vector<double> slopes;
  void *d_q, *d_k, *d_v, *d_o, *d_do, *d_lse, *d_dq, *d_dk, *d_dv, *d_sl, *ws;
  size_t ws_bytes;
  int64_t n_q() const { return c.B * c.Hq * c.Q * c.D; }
  int64_t n_k() const { return c.B * c.Hkv * c.K * c.D; }
  int64_t n_v() const { return c.B * c.Hkv * c.K * c.Dv; }
  int64_t n_o() const { return c.B * c.Hq * c.Q * c.Dv; }
};

static bool visible(const Case &c, int64_t i, int64_t j) {
  const int64_t ip = i + (c.bottom_right ? c.K - c.Q : 0);
  if (c.causal && j > ip) return false;
  if (c.wr >= 0 && j > ip + c.wr) return false;
  if (c.wl >= 0 && j < ip - c.wl) return false;
  return true;
}
static double final_score(const Case &c, double raw, double scale, double slope, int64_t i, int64_t j,
                          double *cap_slope) {
  double x = raw * scale;
  *cap_slope = 1;
  if (c.softcap > 0) {
    const double t = std::tanh(x / c.softcap);
    x = c.softcap * t;
    *cap_slope = 1 - t * t;
  }
  const double d = double(j - (i + (c.bottom_right ? c.K - c.Q : 0)));
  if (c.alibi == 1) x += slope * d;
  if (c.alibi == 2) x -= slope * std::fabs(d);
  return x;
}

// The float64 forward (o rounded to the dtype, lse) or, with dq, the
// gradients (delta from the rounded o the kernels see).
static void reference(const Run &r, std::vector<uint16_t> *o, std::vector<float> *lse, std::vector<double> *dq,
                      std::vector<double> *dk, std::vector<double> *dv) {
  const Case &c = r.c;
  const double scale = r.p.scale;
  const int64_t g = c.Hq / c.Hkv;
  if (dq) {
    dq->assign(r.n_q(), 0);
    dk->assign(r.n_k(), 0);
    dv->assign(r.n_v(), 0);
  }
  std::vector<double> P(c.K), capd(c.K);
  for (int64_t b = 0; b < c.B; ++b)
    for (int64_t h = 0; h < c.Hq; ++h) {
      const int64_t hk = h / g;
      const uint16_t *Q = &r.q[((b * c.Hq + h) * c.Q) * c.D], *K = &r.k[((b * c.Hkv + hk) * c.K) * c.D];
      const uint16_t *V = &r.v[((b * c.Hkv + hk) * c.K) * c.Dv], *dO = &r.dout[((b * c.Hq + h) * c.Q) * c.Dv];
      const double slope = c.alibi ? r.slopes[h] : 0;
      for (int64_t i = 0; i < c.Q; ++i) {
        double mx = -INFINITY;
        for (int64_t j = 0; j < c.K; ++j) {
          if (!visible(c, i, j)) {
            P[j] = -INFINITY;
            continue;
          }
          double s = 0;
          for (int d = 0; d < c.D; ++d) s += double(to_f(Q[i * c.D + d], c.dtype)) * to_f(K[j * c.D + d], c.dtype);
          P[j] = final_score(c, s, scale, slope, i, j, &capd[j]);
          mx = std::max(mx, P[j]);
        }
        double sum = 0;
        for (int64_t j = 0; j < c.K; ++j) {
          P[j] = P[j] == -INFINITY ? 0 : std::exp(P[j] - mx);
          sum += P[j];
        }
        const int64_t row = (b * c.Hq + h) * c.Q + i;
        if (lse) (*lse)[row] = sum > 0 ? float(mx + std::log(sum)) : -INFINITY;
        for (int64_t j = 0; j < c.K; ++j) P[j] = sum > 0 ? P[j] / sum : 0;
        if (o) {
          std::vector<double> orow(c.Dv, 0);
          for (int64_t j = 0; j < c.K; ++j)
            if (P[j] != 0)
              for (int d = 0; d < c.Dv; ++d) orow[d] += P[j] * to_f(V[j * c.Dv + d], c.dtype);
          for (int d = 0; d < c.Dv; ++d) (*o)[row * c.Dv + d] = from_f(float(orow[d]), c.dtype);
        }
        if (!dq) continue;
        double delta = 0;
        for (int d = 0; d < c.Dv; ++d)
          delta += double(to_f(dO[i * c.Dv + d], c.dtype)) * to_f(r.o[row * c.Dv + d], c.dtype);
        for (int64_t j = 0; j < c.K; ++j) {
          if (P[j] == 0) continue;
          double acc = 0;
          for (int d = 0; d < c.Dv; ++d) acc += double(to_f(dO[i * c.Dv + d], c.dtype)) * to_f(V[j * c.Dv + d], c.dtype);
          const double ds = P[j] * (acc - delta) * capd[j] * scale;
          for (int d = 0; d < c.D; ++d) {
            (*dq)[row * c.D + d] += ds * to_f(K[j * c.D + d], c.dtype);
            (*dk)[((b * c.Hkv + hk) * c.K + j) * c.D + d] += ds * to_f(Q[i * c.D + d], c.dtype);
          }
          for (int d = 0; d < c.Dv; ++d)
            (*dv)[((b * c.Hkv + hk) * c.K + j) * c.Dv + d] += P[j] * to_f(dO[i * c.Dv + d], c.dtype);
        }
      }
    }
}

// x[i] uniform on [-1.7, 1.7) (variance 1) by a hash of (seed, i), rounded to bf16.
__global__ void fill_uniform_bf16(uint16_t *x, int64_t n, uint64_t seed) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    uint64_t h = (seed ^ static_cast<uint64_t>(i)) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    const __nv_bfloat16 b = __float2bfloat16(float(int32_t(h)) * (1.7f / 2147483648.f));
    x[i] = *reinterpret_cast<const uint16_t *>(&b);
  }
}
// lse ~ ln(visible keys) + 1/2, as for scores ~ N(0, 1) (top-left causal or none).
__global__ void fill_lse(float *lse, int64_t rows, int64_t queries, int64_t keys, bool causal) {
  for (int64_t r = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; r < rows; r += int64_t{gridDim.x} * blockDim.x) {
    const int64_t i = r % queries, n = causal ? (i + 1 < keys ? i + 1 : keys) : keys;
    lse[r] = logf(float(n)) + 0.5f;
  }
}

// exact: normal draws on the host and the reference forward's o and lse;
// else (the timing rows, bf16 and Q = K only) the inputs drawn on the GPU:
// real, standard-normal q, k, v, dout and a forward's out and lse
// (real_inputs.cu, as bench_ops times its rows), or the earlier sessions'
// uniform values with a synthetic lse.
enum class Data { kExact, kReal, kSynthetic };
static void setup(Run &r, const Case &c, Data data) {
  const bool exact = data == Data::kExact;
  r.c = c;
  SdpaProblem &p = r.p;
  set_problem_shape(p, c);
  r.slopes.resize(c.Hq);
  for (int64_t h = 0; h < c.Hq; ++h) r.slopes[h] = std::pow(2.0, -8.0 * (h + 1) / c.Hq);
  const size_t e = 2;
  const int64_t rows = c.B * c.Hq * c.Q;
  auto upload = [](void **d, const void *h, size_t bytes) {
    CK(cudaMalloc(d, bytes));
    CK(cudaMemcpy(*d, h, bytes, cudaMemcpyHostToDevice));
  };
  if (exact) {
    std::mt19937 rng(1234);
    std::normal_distribution<float> nd(0.f, 1.f);
    auto fill = [&](std::vector<uint16_t> &v, int64_t n) {
      v.resize(n);
      for (auto &x : v) x = from_f(nd(rng), c.dtype);
    };
    fill(r.q, r.n_q());
    fill(r.k, r.n_k());
    fill(r.v, r.n_v());
    fill(r.dout, r.n_o());
    r.lse.resize(rows);
    r.o.resize(r.n_o());
    reference(r, &r.o, &r.lse, nullptr, nullptr, nullptr);
    upload(&r.d_q, r.q.data(), r.n_q() * e);
    upload(&r.d_k, r.k.data(), r.n_k() * e);
    upload(&r.d_v, r.v.data(), r.n_v() * e);
    upload(&r.d_o, r.o.data(), r.n_o() * e);
    upload(&r.d_do, r.dout.data(), r.n_o() * e);
    upload(&r.d_lse, r.lse.data(), r.lse.size() * 4);
  } else if (data == Data::kReal) {
    void **bufs[5] = {&r.d_q, &r.d_k, &r.d_v, &r.d_o, &r.d_do};
    const int64_t sizes[5] = {r.n_q(), r.n_k(), r.n_v(), r.n_o(), r.n_o()};
    for (int t = 0; t < 5; ++t) CK(cudaMalloc(bufs[t], sizes[t] * e));
    CK(cudaMalloc(&r.d_lse, rows * 4));
    fill_real_inputs({c.B, c.Hq, c.Q, c.D, c.causal, static_cast<__nv_bfloat16 *>(r.d_q),
                      static_cast<__nv_bfloat16 *>(r.d_k), static_cast<__nv_bfloat16 *>(r.d_v),
                      static_cast<__nv_bfloat16 *>(r.d_do), static_cast<__nv_bfloat16 *>(r.d_o),
                      static_cast<float *>(r.d_lse)});
  } else {
    void **bufs[5] = {&r.d_q, &r.d_k, &r.d_v, &r.d_o, &r.d_do};
    const int64_t sizes[5] = {r.n_q(), r.n_k(), r.n_v(), r.n_o(), r.n_o()};
    for (int t = 0; t < 5; ++t) {
      CK(cudaMalloc(bufs[t], sizes[t] * e));
      fill_uniform_bf16<<<1024, 256>>>(static_cast<uint16_t *>(*bufs[t]), sizes[t], 1000 + t);
      CK(cudaGetLastError());
    }
    CK(cudaMalloc(&r.d_lse, rows * 4));
    fill_lse<<<1024, 256>>>(static_cast<float *>(r.d_lse), rows, c.Q, c.K, c.causal);
    CK(cudaGetLastError());
  }
  std::vector<float> sl(r.slopes.begin(), r.slopes.end());
  upload(&r.d_sl, sl.data(), sl.size() * 4);
  CK(cudaMalloc(&r.d_dq, r.n_q() * e));
  CK(cudaMalloc(&r.d_dk, r.n_k() * e));
  CK(cudaMalloc(&r.d_dv, r.n_v() * e));
  p.q = {r.d_q, {c.Hq * c.Q * c.D, c.Q * c.D, c.D}};
  p.k = {r.d_k, {c.Hkv * c.K * c.D, c.K * c.D, c.D}};
  p.v = {r.d_v, {c.Hkv * c.K * c.Dv, c.K * c.Dv, c.Dv}};
  p.out = {r.d_o, {c.Hq * c.Q * c.Dv, c.Q * c.Dv, c.Dv}};
  p.dout = {r.d_do, {c.Hq * c.Q * c.Dv, c.Q * c.Dv, c.Dv}};
  p.lse = r.d_lse;
  p.lse_stride[0] = c.Hq * c.Q;
  p.lse_stride[1] = c.Q;
  p.lse_stride[2] = 1;
  p.slopes = r.d_sl;
  p.slope_stride[0] = 0;
  p.slope_stride[1] = 1;
  p.dq = {r.d_dq, {c.Hq * c.Q * c.D, c.Q * c.D, c.D}};
  p.dk = {r.d_dk, {c.Hkv * c.K * c.D, c.K * c.D, c.D}};
  p.dv = {r.d_dv, {c.Hkv * c.K * c.Dv, c.K * c.Dv, c.Dv}};
  p.deterministic = true;  // the larger workspace: counters too
  r.ws_bytes = baracuda::kernels::sdpa_backward_workspace_sm80(p);
  p.deterministic = false;
  CK(cudaMalloc(&r.ws, r.ws_bytes));
}
static void release(Run &r) {
  for (void *x : {r.d_q, r.d_k, r.d_v, r.d_o, r.d_do, r.d_lse, r.d_dq, r.d_dk, r.d_dv, r.d_sl, r.ws}) CK(cudaFree(x));
}

struct Grads {
  std::vector<uint16_t> dq, dk, dv;
};
// The gradients, or their first `most` elements each.
static Grads fetch(const Run &r, int64_t most = INT64_MAX) {
  Grads g;
  g.dq.resize(std::min(most, r.n_q()));
  g.dk.resize(std::min(most, r.n_k()));
  g.dv.resize(std::min(most, r.n_v()));
  CK(cudaMemcpy(g.dq.data(), r.d_dq, g.dq.size() * 2, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(g.dk.data(), r.d_dk, g.dk.size() * 2, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(g.dv.data(), r.d_dv, g.dv.size() * 2, cudaMemcpyDeviceToHost));
  return g;
}
static int64_t mismatches(const std::vector<uint16_t> &a, const std::vector<uint16_t> &b) {
  int64_t n = 0;
  for (size_t i = 0; i < a.size(); ++i) n += a[i] != b[i];
  return n;
}

using RunFn = int (*)(Run &);
static int run_base(Run &r) {
  return r.c.dtype == 0 ? base_backward_bf16(&r.p, r.ws, r.ws_bytes, 0) : base_backward_f16(&r.p, r.ws, r.ws_bytes, 0);
}
static int run_base_sm90(Run &r) { return base_backward_sm90_bf16(&r.p, r.ws, r.ws_bytes, 0); }
static int run_base_sm90_det(Run &r) {
  r.p.deterministic = true;
  const int rc = base_backward_sm90_bf16(&r.p, r.ws, r.ws_bytes, 0);
  r.p.deterministic = false;
  return rc;
}
#ifdef PROBE_HAS_VARIANT
static const ProbeVariant *g_variant;  // the one run_variant runs
static int run_variant(Run &r) { return g_variant->run(&r.p, r.ws, r.ws_bytes, 0); }
static int run_variant_det(Run &r) {
  r.p.deterministic = true;
  const int rc = g_variant->run(&r.p, r.ws, r.ws_bytes, 0);
  r.p.deterministic = false;
  return rc;
}
#endif
static int run_sm90(Run &r) {
  r.p.deterministic = false;
  return r.c.dtype == 0 ? baracuda::kernels::sdpa_backward_sm90_bf16(r.p, r.ws, r.ws_bytes, 0)
                        : baracuda::kernels::sdpa_backward_sm90_f16(r.p, r.ws, r.ws_bytes, 0);
}
static int run_sm90_det(Run &r) {
  r.p.deterministic = true;
  const int rc = r.c.dtype == 0 ? baracuda::kernels::sdpa_backward_sm90_bf16(r.p, r.ws, r.ws_bytes, 0)
                                : baracuda::kernels::sdpa_backward_sm90_f16(r.p, r.ws, r.ws_bytes, 0);
  r.p.deterministic = false;
  return rc;
}

// Waits for the stream's work, or ends the process (a kernel that hangs
// would hold the GPU past the run's time).
static cudaError_t finish(const char *what) {
  const auto start = std::chrono::steady_clock::now();
  cudaError_t err;
  while ((err = cudaStreamQuery(0)) == cudaErrorNotReady) {
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(3)) {
      printf("HANG: %s still running after 3 s\n", what);
      fflush(stdout);
      _exit(3);
    }
  }
  return err;
}

// Gradients of one run, the outputs first poisoned with NaN bits.
static Grads gradients(Run &r, RunFn f, const char *what) {
  CK(cudaMemset(r.d_dq, 0xff, r.n_q() * 2));
  CK(cudaMemset(r.d_dk, 0xff, r.n_k() * 2));
  CK(cudaMemset(r.d_dv, 0xff, r.n_v() * 2));
  const int rc = f(r);
  const cudaError_t err = finish(what);
  if (rc != 0 || err != cudaSuccess) {
    printf("%s failed: status %d, %s\n", what, rc, cudaGetErrorString(err));
    exit(1);
  }
  return fetch(r);
}

static double time_ms(Run &r, RunFn f) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> ms;
  for (int it = 0; it < 12; ++it) {
    CK(cudaEventRecord(a));
    const int rc = f(r);
    CK(cudaEventRecord(b));
    CK(finish("a timed run"));
    if (rc != 0) {
      printf("status %d\n", rc);
      exit(1);
    }
    float t;
    CK(cudaEventElapsedTime(&t, a, b));
    if (it >= 2) ms.push_back(t);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  std::sort(ms.begin(), ms.end());
  return 0.5 * (ms[4] + ms[5]);
}

// max |got - ref| / max |ref| of each gradient (inf where got is not finite).
static void errors(const Grads &g, const std::vector<double> *ref[3], int dt, double (&e)[3]) {
  const std::vector<uint16_t> *got[3] = {&g.dq, &g.dk, &g.dv};
  for (int t = 0; t < 3; ++t) {
    double err = 0, mag = 0;
    for (size_t i = 0; i < ref[t]->size(); ++i) {
      const double x = to_f((*got[t])[i], dt);
      mag = std::max(mag, std::fabs((*ref[t])[i]));
      err = std::max(err, std::isfinite(x) ? std::fabs(x - (*ref[t])[i]) : INFINITY);
    }
    e[t] = err / (mag > 0 ? mag : 1);
  }
}

// Whether the staged Hopper backward has a deterministic mode at c's head
// sizes: up to PROBE_DET_MAX (256 unless set: every tile has one since session 19).
static bool has_deterministic(const Case &c) {
  static const int most = getenv("PROBE_DET_MAX") ? std::atoi(getenv("PROBE_DET_MAX")) : 256;
  return c.D <= most && c.Dv <= most;
}

// The correctness cases.
static int check() {
  const Case small[] = {
      {"bf16 D128 GQA2 causal Q=K=200", 0, 2, 4, 2, 200, 200, 128, 128, true, false, -1, -1, 0, 0},
      {"bf16 D128 Q130 K77", 0, 1, 2, 2, 130, 77, 128, 128, false, false, -1, -1, 0, 0},
      {"bf16 D128 Q77 K130 br-causal", 0, 1, 2, 2, 77, 130, 128, 128, true, true, -1, -1, 0, 0},
      {"bf16 D128 Q130 K77 tl-causal", 0, 1, 2, 1, 130, 77, 128, 128, true, false, -1, -1, 0, 0},
      {"f16 D128 causal Q=K=160", 1, 2, 2, 2, 160, 160, 128, 128, true, false, -1, -1, 0, 0},
      {"bf16 D64 Q=K=256", 0, 1, 2, 2, 256, 256, 64, 64, false, false, -1, -1, 0, 0},
      {"f16 D64 Q130 K300 br-causal left50 alibi", 1, 1, 2, 1, 130, 300, 64, 64, true, true, 50, -1, 1, 0},
      {"bf16 D64 Q257 K129 softcap30 right7", 0, 2, 2, 2, 257, 129, 64, 64, false, false, -1, 7, 0, 30},
      {"bf16 D80/Dv48 Q100 K190 alibi-sym GQA4", 0, 1, 4, 1, 100, 190, 80, 48, false, false, -1, -1, 2, 0},
      {"f16 D128 Q90 K77 br-causal left3 (masked rows)", 1, 1, 2, 1, 90, 77, 128, 128, true, true, 3, -1, 0, 0},
      {"bf16 D32 K1 Q40", 0, 1, 2, 2, 40, 1, 32, 32, false, false, -1, -1, 0, 0},
      {"bf16 D128 Q=K=700 causal window 100", 0, 1, 2, 2, 700, 700, 128, 128, true, false, 100, -1, 0, 0},
      {"bf16 D64 B2 H40 Q=K=256 causal", 0, 2, 40, 40, 256, 256, 64, 64, true, false, -1, -1, 0, 0},
      // Past 132 key tiles: the persistent grid's blocks walk several (session 23).
      {"bf16 D128 H80 Q=K=130 causal (tiles 160)", 0, 1, 80, 80, 130, 130, 128, 128, true, false, -1, -1, 0, 0},
      {"bf16 D64 H140/70 Q=K=130 (tiles 140)", 0, 1, 140, 70, 130, 130, 64, 64, false, false, -1, -1, 0, 0},
      // The 256 tile (no deterministic mode).
      {"bf16 D256 GQA2 causal Q=K=200", 0, 2, 4, 2, 200, 200, 256, 256, true, false, -1, -1, 0, 0},
      {"f16 D192 Q130 K77 br-causal", 1, 1, 2, 2, 130, 77, 192, 192, true, true, -1, -1, 0, 0},
      {"bf16 D256/Dv128 Q100 K190 alibi-sym GQA4", 0, 1, 4, 1, 100, 190, 256, 128, false, false, -1, -1, 2, 0},
      {"bf16 D160/Dv256 Q257 K129 softcap30 right7", 0, 1, 2, 2, 257, 129, 160, 256, false, false, -1, 7, 0, 30},
      {"f16 D256 Q90 K77 br-causal left3 (masked rows)", 1, 1, 2, 1, 90, 77, 256, 256, true, true, 3, -1, 0, 0},
  };
  printf("\n== correctness: max |err| / max |ref| against float64 (sm90 passes at <= 2x sm80's); det: the "
         "deterministic mode (its error, bits differing over two runs, dK/dV bits differing from the atomic mode's) ==\n");
  int failures = 0;
  // PROBE_CHECK_ONLY: the cases checked, as comma-separated indices into small[] (all by default).
  std::vector<bool> only(sizeof small / sizeof small[0], getenv("PROBE_CHECK_ONLY") == nullptr);
  if (const char *list = getenv("PROBE_CHECK_ONLY"))
    for (const char *x = list; *x;) {
      char *end;
      const long i = std::strtol(x, &end, 10);
      if (end == x) break;
      if (i >= 0 && i < static_cast<long>(only.size())) only[static_cast<size_t>(i)] = true;
      x = *end ? end + 1 : end;
    }
  for (const Case &c : small) {
    if (!only[static_cast<size_t>(&c - small)]) continue;
    printf("%-46s ", c.name);  // first, so that a hang names its case
    Run r;
    setup(r, c, Data::kExact);
    std::vector<double> rdq, rdk, rdv;
    reference(r, nullptr, nullptr, &rdq, &rdk, &rdv);
    const std::vector<double> *ref[3] = {&rdq, &rdk, &rdv};
    const Grads gb = gradients(r, run_base, "base sm80");
    const Grads gh = gradients(r, run_sm90, "sm90");
    double eb[3], eh[3];
    errors(gb, ref, c.dtype, eb);
    errors(gh, ref, c.dtype, eh);
    bool pass = true;
    for (int t = 0; t < 3; ++t) pass = pass && eh[t] <= 2 * eb[t];
    printf("sm80 dq %.2e dk %.2e dv %.2e | sm90 dq %.2e dk %.2e dv %.2e", eb[0], eb[1], eb[2], eh[0], eh[1], eh[2]);
    if (has_deterministic(c)) {
      const Grads gd = gradients(r, run_sm90_det, "sm90 det");
      const Grads gd2 = gradients(r, run_sm90_det, "sm90 det again");
      double ed[3];
      errors(gd, ref, c.dtype, ed);
      const long long repeat = mismatches(gd.dq, gd2.dq) + mismatches(gd.dk, gd2.dk) + mismatches(gd.dv, gd2.dv);
      const long long kv = mismatches(gd.dk, gh.dk) + mismatches(gd.dv, gh.dv);
      pass = pass && repeat == 0 && kv == 0;
      for (int t = 0; t < 3; ++t) pass = pass && ed[t] <= 2 * eb[t];
      printf(" | det dq %.2e repeat %lld dkdv %lld", ed[0], repeat, kv);
    } else {
      printf(" | det: the sm_80 kernel's at this size");
    }
#ifdef PROBE_HAS_VARIANT
    for (const ProbeVariant &v : kVariants) {
      if (c.dtype != 0 || !v.checked || v.run == nullptr) continue;
      g_variant = &v;
      const Grads gv = gradients(r, run_variant, v.name);
      double ev[3];
      errors(gv, ref, c.dtype, ev);
      for (int t = 0; t < 3; ++t) pass = pass && ev[t] <= 2 * eb[t];
      printf(" | %s dq %.2e dk %.2e dv %.2e", v.name, ev[0], ev[1], ev[2]);
      if (!has_deterministic(c)) continue;
      const Grads gvd = gradients(r, run_variant_det, v.name), gvd2 = gradients(r, run_variant_det, v.name);
      double evd[3];
      errors(gvd, ref, c.dtype, evd);
      const long long vrepeat = mismatches(gvd.dq, gvd2.dq) + mismatches(gvd.dk, gvd2.dk) + mismatches(gvd.dv, gvd2.dv);
      for (int t = 0; t < 3; ++t) pass = pass && evd[t] <= 2 * eb[t];
      pass = pass && vrepeat == 0;
      printf(" det dq %.2e repeat %lld", evd[0], vrepeat);
    }
#endif
    failures += !pass;
    printf(" %s\n", pass ? "PASS" : "FAIL");
    release(r);
  }
  printf("correctness: %d case(s) failed\n", failures);
  return failures;
}

// The largest difference between two runs' gradients, relative to a's largest value.
static void differences(const Grads &a, const Grads &b, double (&diff)[3]) {
  const std::vector<uint16_t> *x[3] = {&a.dq, &a.dk, &a.dv}, *y[3] = {&b.dq, &b.dk, &b.dv};
  for (int t = 0; t < 3; ++t) {
    double d = 0, m = 0;
    for (size_t i = 0; i < x[t]->size(); ++i) {
      const double u = to_f((*x[t])[i], 0), v = to_f((*y[t])[i], 0);
      m = std::max(m, std::fabs(u));
      d = std::max(d, std::isfinite(v) ? std::fabs(u - v) : INFINITY);
    }
    diff[t] = d / (m > 0 ? m : 1);
  }
}

// One timing line: row | baseline | variant | ratio | check.
static void time_line(const char *name, const char *what, double flops, double tb, double tv, const double (&d)[3],
                      const char *more) {
  printf("%-24s | base %7.3f ms %6.1f | %-12s %7.3f ms %6.1f | %.3fx | diff dq %.1e dk %.1e dv %.1e%s\n", name, tb,
         flops / tb / 1e9, what, tv, flops / tv / 1e9, tb / tv, d[0], d[1], d[2], more);
}

// The timing rows: the staged tree's both modes unless variant_only (a
// rerun after a hang), then the variants (where built).
struct Row {
  int64_t B, H, S;
  int D;
  bool causal;
  Case as_case() const { return Case{"row", 0, B, H, H, S, S, D, D, causal, false, -1, -1, 0, 0}; }
};
static const Row kRows[] = {{4, 32, 4096, 128, false}, {4, 32, 4096, 128, true}, {16, 16, 1024, 64, false},
                            {16, 16, 1024, 64, true},  {2, 32, 8192, 128, false}, {2, 32, 8192, 128, true},
                            {8, 16, 2048, 256, false}, {8, 16, 2048, 256, true}};

static void time_rows(bool variant_only) {
  printf("\n== timing, bf16, TFLOP/s = 2.5 x 4 B H S^2 D (causal halved); ms median of 10; whole op; "
         "base = /work/main's sm90 backward; real data (normal, a forward's out and lse) ==\n");
  // PROBE_ROWS: the rows timed, as indices into kRows ("6,7,0"); all by default.
  std::vector<Row> rows(std::begin(kRows), std::end(kRows));
  if (const char *only = getenv("PROBE_ROWS")) {
    rows.clear();
    for (const char *x = only; *x; ++x)
      if (*x >= '0' && *x <= '9') rows.push_back(kRows[(*x - '0') % (sizeof kRows / sizeof kRows[0])]);
  }
  for (const Row &w : rows) {
    const Case c = w.as_case();
    Run r;
    setup(r, c, Data::kReal);
    const double flops = 2.5 * 4.0 * w.B * w.H * double(w.S) * w.S * w.D / (w.causal ? 2 : 1);
    const int64_t kMost = int64_t{1} << 22;  // elements compared
    char name[64];
    snprintf(name, sizeof name, "B%lld H%lld S%lld D%d %s", (long long)w.B, (long long)w.H, (long long)w.S, w.D,
             w.causal ? "causal" : "full");
    // /work/main's Hopper backward serves every row (the 256 tile since session 18).
    const double tb = time_ms(r, run_base_sm90);
    const Grads gb = fetch(r, kMost);
    double d[3];
    if (!variant_only) {
      const double th = time_ms(r, run_sm90);
      differences(gb, fetch(r, kMost), d);
      time_line(name, "sm90", flops, tb, th, d, "");
    }
    if (!variant_only && has_deterministic(c)) {
      const double td = time_ms(r, run_sm90_det);
      const Grads gd = fetch(r, kMost);
      CK(cudaMemset(r.d_dq, 0xff, r.n_q() * 2));
      if (run_sm90_det(r) != 0) exit(1);
      CK(finish("det repeat"));
      const Grads gd2 = fetch(r, kMost);
      const long long repeat = mismatches(gd.dq, gd2.dq) + mismatches(gd.dk, gd2.dk) + mismatches(gd.dv, gd2.dv);
      char more[64];
      snprintf(more, sizeof more, " repeat bits %lld", repeat);
      differences(gb, gd, d);
      time_line(name, "det", flops, tb, td, d, more);
    }
    if (!variant_only) {  // main's deterministic mode
      const double ts = time_ms(r, run_base_sm90_det);
      differences(gb, fetch(r, kMost), d);
      time_line(name, "base det", flops, tb, ts, d, "");
    }
#ifdef PROBE_HAS_VARIANT
    // PROBE_VARIANT_MIN_D: the variants timed only on rows of that head size or more.
    const int min_d = getenv("PROBE_VARIANT_MIN_D") ? std::atoi(getenv("PROBE_VARIANT_MIN_D")) : 0;
    // PROBE_DIAGNOSTICS_CAUSAL: the diagnostic variants only on causal rows.
    const bool diagnostics = w.causal || getenv("PROBE_DIAGNOSTICS_CAUSAL") == nullptr;
    for (const ProbeVariant &v : kVariants) {
      if (w.D < min_d || (!v.checked && !diagnostics)) continue;
      if (v.run == nullptr) {  // not built in the budget
        printf("%-24s | %s: not built\n", name, v.name);
        continue;
      }
      g_variant = &v;
      const double tv = time_ms(r, run_variant);
      differences(gb, fetch(r, kMost), d);
      time_line(name, v.name, flops, tb, tv, d, v.checked ? "" : " (diagnostic)");
      if (!v.checked || !has_deterministic(c)) continue;
      const double tvd = time_ms(r, run_variant_det);
      differences(gb, fetch(r, kMost), d);
      time_line(name, (std::string(v.name) + " det").c_str(), flops, tb, tvd, d, "");
    }
#endif
    if (!variant_only && getenv("PROBE_ALTERNATE")) {
      // main's kernel, the staged one, both deterministic, and (PROBE_ALT_VARIANT) every checked
      // variant built, in turn, PROBE_ALT_REPS rounds (3), best of each; PROBE_ALTERNATE_REVERSED:
      // the list backwards (a kernel timed right after another runs at the clock that one left).
      struct Contender {
        const char *name;
        RunFn fn;
        const void *variant;
        int base;  // the contender it is compared with
      };
      std::vector<Contender> cs = {{"main", run_base_sm90, nullptr, 0},
                                   {"staged", run_sm90, nullptr, 0},
                                   {"main det", run_base_sm90_det, nullptr, 2},
                                   {"staged det", run_sm90_det, nullptr, 2}};
#ifdef PROBE_HAS_VARIANT
      if (getenv("PROBE_ALT_VARIANT"))
        for (const ProbeVariant &v : kVariants)
          if (v.run != nullptr && v.checked) cs.push_back({v.name, run_variant, &v, 0});
#endif
      const bool reversed = getenv("PROBE_ALTERNATE_REVERSED") != nullptr;
      const int reps = getenv("PROBE_ALT_REPS") ? std::atoi(getenv("PROBE_ALT_REPS")) : 3;
      std::vector<double> best(cs.size(), 1e30);
      for (int rep = 0; rep < reps; ++rep)
        for (size_t i = 0; i < cs.size(); ++i) {
          const size_t k = reversed ? cs.size() - 1 - i : i;
#ifdef PROBE_HAS_VARIANT
          if (cs[k].variant != nullptr) g_variant = static_cast<const ProbeVariant *>(cs[k].variant);
#endif
          best[k] = std::min(best[k], time_ms(r, cs[k].fn));
        }
      for (size_t k = 0; k < cs.size(); ++k)
        printf("%-24s | alt %-12s %7.3f ms %6.1f TF | x %-8s %.3f%s\n", name, cs[k].name, best[k], flops / best[k] / 1e9,
               cs[cs[k].base].name, best[cs[k].base] / best[k], reversed ? " (reversed)" : "");
    }
    if (!variant_only) {  // main's kernel again: how far the run drifted over the row
      const double ta = time_ms(r, run_base_sm90);
      const double none[3] = {0, 0, 0};
      time_line(name, "base again", flops, tb, ta, none, " (the same kernel, timed last)");
    }
    if (!variant_only && getenv("PROBE_PASSES")) {  // the passes around the main kernel alone (memset, delta, dq conversion): keys 0
      const int64_t keys = r.p.keys;
      r.p.keys = 0;
      const double tp = time_ms(r, run_sm90), tpb = time_ms(r, run_base_sm90);
      const double tp2 = time_ms(r, run_sm90), tpb2 = time_ms(r, run_base_sm90);
      r.p.keys = keys;
      const double none[3] = {0, 0, 0};
      time_line(name, "passes only", flops, tpb, tp, none, " (diagnostic: no main kernel; base column: main's passes)");
      time_line(name, "passes again", flops, tpb2, tp2, none, " (diagnostic: no main kernel; base column: main's passes)");
    }
    release(r);
    if (variant_only || !getenv("PROBE_SYNTHETIC")) continue;
    // main's kernel on the earlier sessions' synthetic data (uniform values,
    // lse from the visible keys' count), against the real data's base.
    Run u;
    setup(u, c, Data::kSynthetic);
    const double tu = time_ms(u, run_base_sm90);
    const double none[3] = {0, 0, 0};
    time_line(name, "base synth", flops, tb, tu, none, " (synthetic data; no check)");
    release(u);
  }
}

// probe check | probe time [variant-only]
int main(int argc, char **argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);  // rows survive a timeout
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "check") return check() == 0 ? 0 : 1;
  if (mode == "time") {
    time_rows(argc > 2 && std::string(argv[2]) == "variant-only");
    return 0;
  }
  if (mode == "once" && argc > 3) {  // for a profiler: one row's kernel, twice (warm, then the one to profile)
    const Row &w = kRows[std::atoi(argv[2]) % (sizeof kRows / sizeof kRows[0])];
    const std::string which = argv[3];
    Run r;
    setup(r, w.as_case(), Data::kReal);
    const RunFn f = which == "base" ? run_base_sm90 : which == "det" ? run_sm90_det : run_sm90;
    for (int i = 0; i < 2; ++i) {
      const int rc = f(r);
      CK(finish("once"));
      if (rc != 0) return 1;
    }
    printf("once: row %s D%d %s ran\n", argv[2], w.D, which.c_str());
    release(r);
    return 0;
  }
  printf("usage: probe check | probe time [variant-only] | probe once <row> base|staged|det\n");
  return 2;
}
