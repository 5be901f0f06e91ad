// Pad forward probe: main's kernels and staged trees (variant.cu, one entry
// per tree) in one process. Every timed row: each tree's output compared
// bitwise with main's (random bits, never zeros), then main, each tree and
// a same-size device copy timed interleaved with CUDA events (median);
// % of copy against a 512 MiB device copy's rate, as bench/shape_grid.cu
// reports. Before that, random small shapes (odd extents, crops, pointers
// off their 16-byte phase) against a host reference, for every tree.
// The branch's pad backward (backward.cu) is checked bitwise against main's
// too: the row tiles' staging is shared.
// Build: bench/probes/pad_forward/build.sh OUT SECONDS include main=MAIN/kernels
// v1=TREE/kernels [v2=...]; run: OUT/probe [reps] [filter]; environment:
// PROBE_DIAG, PROBE_TWIN, PROBE_QUICK, PROBE_ONCE, PROBE_NO_GUARDS, PROBE_ORDER,
// PROBE_TIMES_TREE (main() says what they do). A tree with block_times.patch
// applied and built with -DPROBE_BLOCK_TIMES stamps its slot-tile blocks.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "../common/probe_check.h"

using Entry = int (*)(int, int, int, const int64_t *, const int64_t *, const int64_t *, const void *, void *,
                      const void *, void *);
#define PROBE_TREE(n)                                                                                                  \
  extern "C" int probe_pad_##n(int, int, int, const int64_t *, const int64_t *, const int64_t *, const void *, void *, \
                               const void *, void *) __attribute__((weak));
PROBE_TREE(main)
PROBE_TREE(v1)
PROBE_TREE(v2)
PROBE_TREE(v3)
PROBE_TREE(v4)
PROBE_TREE(v5)
PROBE_TREE(v6)
PROBE_TREE(v7)
using BackwardEntry = int (*)(int, int, int, const int64_t *, const int64_t *, const int64_t *, const void *, void *,
                              void *);
extern "C" int probe_pad_bwd_main(int, int, int, const int64_t *, const int64_t *, const int64_t *, const void *, void *,
                                  void *) __attribute__((weak));
extern "C" int probe_pad_bwd_v1(int, int, int, const int64_t *, const int64_t *, const int64_t *, const void *, void *,
                                void *) __attribute__((weak));
// The block-times diagnostic tree's (variant.cu, PROBE_BLOCK_TIMES) read-out.
extern "C" int probe_block_times_io(unsigned long long *, int, int) __attribute__((weak));

namespace {

// The traffic of a pad without its work: every output vector copied from an
// input vector (in order, wrapping), grid-stride, four vectors a thread in
// flight: what a kernel moving the same bytes reaches (a diagnostic column).
__global__ void traffic_twin(const uint4 *in, size_t in_vecs, uint4 *out, size_t out_vecs) {
  const size_t step = size_t{gridDim.x} * blockDim.x;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < out_vecs; i += 4 * step) {
    uint4 v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const size_t j = i + u * step;
      size_t k = j;
      while (k >= in_vecs) k -= in_vecs;  // outputs are at most a few times their inputs
      if (j < out_vecs) v[u] = in[k];
    }
#pragma unroll
    for (int u = 0; u < 4; ++u)
      if (i + u * step < out_vecs) out[i + u * step] = v[u];
  }
}

extern "C" int probe_pad_twin(int bytes, int rank, int, const int64_t *shape, const int64_t *lo, const int64_t *hi,
                              const void *in, void *out, const void *, void *stream) {
  size_t ni = bytes, no = bytes;
  for (int d = 0; d < rank; ++d) ni *= shape[d], no *= shape[d] + lo[d] + hi[d];
  traffic_twin<<<132 * 8, 256, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<const uint4 *>(in), ni / 16,
                                                                         static_cast<uint4 *>(out), no / 16);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

struct Tree {
  const char *name;
  Entry run;
  bool diag;  // a diagnostic (ablation, traffic twin): its output is not expected to match main's
};
std::vector<Tree> g_trees;  // main first; trees whose build was skipped are left out

const char *kModeNames[] = {"constant", "reflect", "replicate", "circular"};

struct Case {
  std::vector<int64_t> shape, lo, hi;
};

int64_t count(const std::vector<int64_t> &s) {
  int64_t n = 1;
  for (int64_t e : s) n *= e;
  return n;
}

// Adjacent unpadded axes merged, as the plan layer hands contiguous tensors to
// the kernels.
Case simplified(const Case &c) {
  Case s;
  for (size_t d = 0; d < c.shape.size(); ++d) {
    const bool padded = c.lo[d] || c.hi[d];
    if (!s.shape.empty() && !padded && !s.lo.back() && !s.hi.back()) {
      s.shape.back() *= c.shape[d];
      continue;
    }
    s.shape.push_back(c.shape[d]), s.lo.push_back(c.lo[d]), s.hi.push_back(c.hi[d]);
  }
  return s;
}

std::vector<int64_t> out_shape(const Case &c) {
  std::vector<int64_t> o = c.shape;
  for (size_t d = 0; d < o.size(); ++d) o[d] += c.lo[d] + c.hi[d];
  return o;
}

std::string text(const Case &c) {
  std::string s = "[";
  for (size_t i = 0; i < c.shape.size(); ++i) s += (i ? "," : "") + std::to_string(c.shape[i]);
  s += "]";
  for (size_t i = 0; i < c.shape.size(); ++i)
    if (c.lo[i] || c.hi[i])
      s += " " + std::to_string(i) + ":(" + std::to_string(c.lo[i]) + "," + std::to_string(c.hi[i]) + ")";
  return s;
}

__global__ void random_bits(uint32_t *p, size_t words, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < words; i += size_t{gridDim.x} * blockDim.x) {
    uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull + seed;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    p[i] = static_cast<uint32_t>(z ^ (z >> 31));
  }
}

__global__ void count_diff(const unsigned char *a, const unsigned char *b, size_t n, unsigned long long *diff) {
  unsigned long long d = 0;
  const size_t vecs = n / 16;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < vecs; i += size_t{gridDim.x} * blockDim.x) {
    const uint4 x = reinterpret_cast<const uint4 *>(a)[i], y = reinterpret_cast<const uint4 *>(b)[i];
    d += (x.x != y.x) + (x.y != y.y) + (x.z != y.z) + (x.w != y.w);
  }
  if (blockIdx.x == 0 && threadIdx.x < n % 16) d += a[vecs * 16 + threadIdx.x] != b[vecs * 16 + threadIdx.x];
  if (d) atomicAdd(diff, d);
}

unsigned long long *g_diff;

unsigned long long differences(const void *a, const void *b, size_t n) {
  CK(cudaMemset(g_diff, 0, sizeof(*g_diff)));
  count_diff<<<1024, 256>>>(static_cast<const unsigned char *>(a), static_cast<const unsigned char *>(b), n, g_diff);
  CK(cudaGetLastError());
  unsigned long long h;
  CK(cudaMemcpy(&h, g_diff, sizeof(h), cudaMemcpyDeviceToHost));
  return h;
}

int launch(const Tree &t, int bytes, int mode, const Case &c, const void *in, void *out, const void *fill) {
  return t.run(bytes, static_cast<int>(c.shape.size()), mode, c.shape.data(), c.lo.data(), c.hi.data(), in, out, fill,
               nullptr);
}

int64_t map_host(int mode, int64_t j, int64_t lo, int64_t n) {
  const int64_t i = j - lo;
  if (mode == 0) return i >= 0 && i < n ? i : -1;
  if (mode == 1) return i < 0 ? -i : i >= n ? 2 * (n - 1) - i : i;
  if (mode == 2) return i < 0 ? 0 : i >= n ? n - 1 : i;
  return i < 0 ? i + n : i >= n ? i - n : i;
}

uint64_t g_rng = 88172645463325252ull;
int64_t rnd(int64_t lo, int64_t hi) {  // in [lo, hi]
  g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
  return lo + static_cast<int64_t>(g_rng % static_cast<uint64_t>(hi - lo + 1));
}

// Random small problems against a host reference: odd extents, every mode,
// crops (constant), input and output pointers at every element phase.
void small_checks(int ncases) {
  std::vector<int> failed(g_trees.size(), 0), ran(g_trees.size(), 0);
  const size_t cap = size_t{1} << 22;
  void *din, *dout;
  CK(cudaMalloc(&din, cap + 64));
  CK(cudaMalloc(&dout, cap + 64));
  for (int k = 0; k < ncases; ++k) {
    const int bytes = rnd(0, 1) ? 4 : 2, mode = static_cast<int>(rnd(0, 3)), rank = static_cast<int>(rnd(1, 5));
    Case c;
    for (int d = 0; d < rank; ++d) {
      const int64_t n = d == rank - 1 ? rnd(1, 300) : rnd(1, 9);
      int64_t lo, hi;
      if (mode == 1) lo = rnd(0, n - 1), hi = rnd(0, n - 1);
      else if (mode == 3) lo = rnd(0, n), hi = rnd(0, n);
      else lo = rnd(0, 6), hi = rnd(0, 6);
      if (mode == 0 && rnd(0, 3) == 0) lo = -rnd(0, n - 1), hi = rnd(-(n + lo - 1), 3);  // a crop
      if (rnd(0, 2) == 0) lo = hi = 0;
      c.shape.push_back(n), c.lo.push_back(lo), c.hi.push_back(hi);
    }
    const std::vector<int64_t> os = out_shape(c);
    const int64_t ni = count(c.shape), no = count(os);
    if ((ni + 8) * bytes > static_cast<int64_t>(cap) || (no + 8) * bytes > static_cast<int64_t>(cap) || no == 0) {
      --k;
      continue;
    }
    const int64_t in_off = rnd(0, 7), out_off = rnd(0, 7);
    std::vector<unsigned char> hin((ni + 8) * bytes), want((no + 8) * bytes), got(want.size());
    for (auto &x : hin) x = static_cast<unsigned char>(rnd(0, 255));
    unsigned char fill[16];
    for (auto &x : fill) x = static_cast<unsigned char>(rnd(0, 255));
    // Host reference (outside the output's elements the sentinel stays).
    std::memset(want.data(), 0x5A, want.size());
    const int r = rank;
    std::vector<int64_t> idx(r, 0);
    for (int64_t o = 0; o < no; ++o) {
      int64_t rest = o, src = 0, stride = 1;
      bool fl = false;
      for (int d = r - 1; d >= 0; --d) {
        const int64_t j = rest % os[d];
        rest /= os[d];
        const int64_t m = map_host(mode, j, c.lo[d], c.shape[d]);
        fl |= m < 0;
        src += m * stride;
        stride *= c.shape[d];
      }
      std::memcpy(&want[(out_off + o) * bytes], fl ? fill : &hin[(in_off + src) * bytes], bytes);
    }
    CK(cudaMemcpy(din, hin.data(), hin.size(), cudaMemcpyHostToDevice));
    for (size_t t = 0; t < g_trees.size(); ++t) {
      if (g_trees[t].diag) continue;
      CK(cudaMemset(dout, 0x5A, want.size()));
      const int st = launch(g_trees[t], bytes, mode, c, static_cast<unsigned char *>(din) + in_off * bytes,
                            static_cast<unsigned char *>(dout) + out_off * bytes, fill);
      CK(cudaDeviceSynchronize());
      if (st == 3) continue;  // a tree built without this element width
      CK(cudaMemcpy(got.data(), dout, got.size(), cudaMemcpyDeviceToHost));
      ++ran[t];
      if (st != 0 || got != want) {
        if (failed[t]++ < 3)
          printf("CHECK FAILED %s: %s b%d %s in+%lld out+%lld status %d\n", g_trees[t].name, kModeNames[mode], bytes,
                 text(c).c_str(), (long long)in_off, (long long)out_off, st);
      }
    }
  }
  for (size_t t = 0; t < g_trees.size(); ++t)
    if (!g_trees[t].diag) printf("small checks %s: %d of %d ok\n", g_trees[t].name, ran[t] - failed[t], ran[t]);
  CK(cudaFree(din));
  CK(cudaFree(dout));
}

double median(std::vector<float> v);

// Finite values (multiples of 1/256 up to 4), as f32 or bf16 bits.
__global__ void random_values(void *p, size_t n, int bytes, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
    uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull + seed;
    z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ull;
    const float x = static_cast<float>(static_cast<int>((z >> 33) % 2049) - 1024) / 256.0f;
    if (bytes == 4) static_cast<float *>(p)[i] = x;
    else static_cast<uint16_t *>(p)[i] = static_cast<uint16_t>(__float_as_uint(x) >> 16);
  }
}

// The backward shares the row tiles' staging: the branch's dx bitwise against main's on the grid's short rows.
void backward_checks(int reps) {
  if (!probe_pad_bwd_main || !probe_pad_bwd_v1) {
    printf("backward checks: not built\n");
    return;
  }
  const std::vector<Case> cases = {{{4, 32, 64, 64, 128}, {0, 0, 2, 2, 2}, {0, 0, 2, 2, 2}},
                                   {{4, 32, 64, 64, 127}, {0, 1, 0, 0, 3}, {0, 0, 0, 0, 4}},
                                   {{8, 64, 512, 512}, {0, 0, 1, 1}, {0, 0, 1, 1}},
                                   {{8, 64, 512, 512}, {0, 0, 16, 16}, {0, 0, 16, 16}}};
  const BackwardEntry trees[2] = {probe_pad_bwd_main, probe_pad_bwd_v1};
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  int bad = 0;
  for (int bytes : {2, 4})
    for (const Case &row : cases)
      for (int mode = 1; mode < 4; ++mode) {
        const Case c = simplified(row);
        const size_t xb = count(c.shape) * bytes, yb = count(out_shape(c)) * bytes;
        void *dy, *dx[2];
        CK(cudaMalloc(&dy, yb));
        CK(cudaMalloc(&dx[0], xb));
        CK(cudaMalloc(&dx[1], xb));
        random_values<<<2048, 256>>>(dy, yb / bytes, bytes, static_cast<uint32_t>(yb + mode));
        CK(cudaGetLastError());
        float ms[2];
        for (int t = 0; t < 2; ++t) {
          CK(cudaMemset(dx[t], t ? 0xA5 : 0x5A, xb));
          const int st = trees[t](bytes, static_cast<int>(c.shape.size()), mode, c.shape.data(), c.lo.data(),
                                  c.hi.data(), dy, dx[t], nullptr);
          CK(cudaDeviceSynchronize());
          if (st) printf("backward status %d\n", st);
          std::vector<float> v;
          for (int r = 0; r < reps; ++r) {
            CK(cudaEventRecord(e0));
            if (trees[t](bytes, static_cast<int>(c.shape.size()), mode, c.shape.data(), c.lo.data(), c.hi.data(), dy,
                         dx[t], nullptr))
              CK(cudaErrorUnknown);
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&ms[t], e0, e1));
            v.push_back(ms[t]);
          }
          ms[t] = static_cast<float>(median(v));
        }
        const unsigned long long d = differences(dx[0], dx[1], xb);
        bad += d != 0;
        printf("backward %s %-9s %-38s main %.4f ms, branch %.4f ms, %s\n", bytes == 2 ? "b16" : "f32",
               kModeNames[mode], text(row).c_str(), ms[0], ms[1], d ? "BAD" : "bit-identical");
        CK(cudaFree(dy));
        CK(cudaFree(dx[0]));
        CK(cudaFree(dx[1]));
      }
  printf("%s\n", bad ? "SOME BACKWARD OUTPUTS DIFFER FROM MAIN'S" : "every backward output bit-identical to main's");
}

struct Timed {
  const char *label;
  Case c;
  int bytes;
  int mode;
};

double median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One launch of a row as bench/shape_grid times it (events around it, then synchronized): ms.
float sync_launch_ms(const std::function<void()> &fn) {
  static cudaEvent_t a = nullptr, b = nullptr;
  if (!a) {
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
  }
  CK(cudaEventRecord(a));
  fn();
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  float ms;
  CK(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

// Is the grid's gap between bf16's and f16's rank-5 rows the kernel or the
// grid's method? Both dtypes run pad_forward_b2_run (pad_plan.cpp keys the
// forward on element width), so here the 2-byte kernel is timed under each
// label in turn, pass after pass: each row as the grid times it (30 launches,
// median), beside a copy of the same bytes timed in alternation with it, and
// each pass's 512 MiB copy (the grid's one figure a dtype, timed 30 times).
void order_experiment(const Tree &t, void *ca, void *cb, int passes) {
  const std::vector<Case> rows = {{{4, 32, 64, 64, 128}, {0, 0, 2, 2, 2}, {0, 0, 2, 2, 2}},
                                  {{4, 32, 64, 64, 127}, {0, 1, 0, 0, 3}, {0, 0, 0, 0, 4}}};
  const unsigned char fill[16] = {0x3c, 0x41};
  void *in, *out;
  CK(cudaMalloc(&in, size_t{160} << 20));
  CK(cudaMalloc(&out, size_t{160} << 20));
  random_bits<<<2048, 256>>>(static_cast<uint32_t *>(in), (size_t{160} << 20) / 4, 7u);
  CK(cudaGetLastError());
  printf("order: pass label row mode: pad ms | same-size copy ms | %% of same-size copy | %% of this pass's 512 MiB copy\n");
  for (int pass = 0; pass < passes; ++pass) {
    std::vector<float> big;
    for (int i = 0; i < 35; ++i) {
      const float x = sync_launch_ms([&] { CK(cudaMemcpyAsync(cb, ca, size_t{512} << 20, cudaMemcpyDeviceToDevice)); });
      if (i >= 5) big.push_back(x);
    }
    const double big_rate = 2.0 * (size_t{512} << 20) / (median(big) * 1e-3);
    printf("order pass %d: 512 MiB copy %.4f ms, %.0f GB/s\n", pass, median(big), big_rate / 1e9);
    for (const char *label : {"bf16", "f16"})
      for (size_t ri = 0; ri < rows.size(); ++ri)
        for (int mode = 0; mode < 4; ++mode) {
          const Case c = simplified(rows[ri]);
          const size_t ib = count(c.shape) * 2, ob = count(out_shape(c)) * 2, half = (ib + ob) / 2;
          std::vector<float> pad, copy;
          for (int i = 0; i < 35; ++i) {
            const float x = sync_launch_ms([&] {
              if (launch(t, 2, mode, c, in, out, fill)) CK(cudaErrorUnknown);
            });
            const float y = sync_launch_ms([&] { CK(cudaMemcpyAsync(cb, ca, half, cudaMemcpyDeviceToDevice)); });
            if (i >= 5) pad.push_back(x), copy.push_back(y);
          }
          const double pm = median(pad), cm = median(copy);
          printf("order %d %-4s %-5s %-9s %.4f | %.4f | %5.1f | %5.1f\n", pass, label, ri ? "odd" : "(2,2)", kModeNames[mode],
                 pm, cm, 100.0 * cm / pm, 100.0 * (ib + ob) / (pm * 1e-3) / big_rate);
        }
  }
  CK(cudaFree(in));
  CK(cudaFree(out));
}

// The block-times tree's one launch of a row: when its blocks started, had
// their tiles complete in shared memory, and ended (%globaltimer), summed up.
void block_times(const Tree &t, int bytes, int mode, const Case &c, const void *in, void *out, const char *label) {
  const int cap = 65536;
  const unsigned char fill[16] = {0x3c, 0x41, 0x7a, 0x3f};
  const int st = launch(t, bytes, mode, c, in, out, fill);  // warm
  CK(cudaDeviceSynchronize());
  if (st == 3) return;  // a tree built without this element width
  if (st) CK(cudaErrorUnknown);
  if (probe_block_times_io(nullptr, cap, 1)) CK(cudaErrorUnknown);
  const float ev = sync_launch_ms([&] {
    if (launch(t, bytes, mode, c, in, out, fill)) CK(cudaErrorUnknown);
  });
  std::vector<unsigned long long> h(4 * size_t{cap});
  if (probe_block_times_io(h.data(), cap, 0)) CK(cudaErrorUnknown);
  struct B { double s, m, e; int sm; };
  std::vector<B> bl;
  unsigned long long t0 = ~0ull;
  for (int i = 0; i < cap; ++i)
    if (h[4 * i + 3]) t0 = std::min(t0, h[4 * i + 1]);
  for (int i = 0; i < cap; ++i)
    if (h[4 * i + 3])
      bl.push_back({(h[4 * i + 1] - t0) * 1e-3, (h[4 * i + 2] - t0) * 1e-3, (h[4 * i + 3] - t0) * 1e-3, int(h[4 * i])});
  if (bl.empty()) {
    printf("times %s: no blocks recorded\n", label);
    return;
  }
  const size_t n = bl.size();
  double span = 0, last_start = 0, first_end = 1e30;
  for (const B &b : bl) span = std::max(span, b.e), last_start = std::max(last_start, b.s), first_end = std::min(first_end, b.e);
  std::vector<double> ends, life_first, life_mid, wait_mid, life_last;
  for (const B &b : bl) {
    ends.push_back(b.e);
    if (b.s < 0.5) life_first.push_back(b.e - b.s);
    else if (b.s > 0.25 * span && b.s < 0.75 * span) life_mid.push_back(b.e - b.s), wait_mid.push_back(b.m - b.s);
    if (b.s > last_start - 1.0) life_last.push_back(b.e - b.s);
  }
  std::sort(ends.begin(), ends.end());
  auto med = [](std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  // Steady rate: blocks ending in the middle half of the span.
  size_t mid = 0;
  for (double e : ends) mid += e >= 0.25 * span && e < 0.75 * span;
  const double rate = mid / (0.5 * span), ideal = n / rate;
  printf("times %s: %zu blocks, event %.2f us, span %.2f us, steady %.1f blocks/us -> ideal %.2f us, fixed %.2f us; "
         "first end %.2f, last start %.2f, drain %.2f; lifetime first wave %.2f (%zu), middle %.2f (complete %.2f), "
         "last starts %.2f (%zu)\n",
         label, n, ev * 1e3, span, rate, ideal, span - ideal, first_end, last_start, span - last_start, med(life_first),
         life_first.size(), med(life_mid), med(wait_mid), med(life_last), life_last.size());
  printf("times %s: ends a 5%% of span:", label);
  size_t k = 0;
  for (int bin = 1; bin <= 20; ++bin) {
    size_t c0 = 0;
    while (k < n && ends[k] <= span * bin / 20.0) ++k, ++c0;
    printf(" %zu", c0);
  }
  printf("\n");
}

}  // namespace

int main(int argc, char **argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);  // lines survive a timeout
  const int reps = argc > 1 ? atoi(argv[1]) : 15;
  const char *filter = argc > 2 ? argv[2] : "";
  // PROBE_DIAG: the trees (comma-separated) that are diagnostics; PROBE_TWIN=1
  // adds the traffic twin; PROBE_QUICK=1 skips the small and backward checks;
  // PROBE_ONCE=1 launches each row's kernels once, untimed (for a profiler);
  // PROBE_NO_GUARDS=1 times the rank-5 and scale rows alone; PROBE_ORDER=passes runs
  // order_experiment; PROBE_TIMES_TREE=name sums up that tree's block times.
  const std::string diag = std::string(",") + (getenv("PROBE_DIAG") ? getenv("PROBE_DIAG") : "") + ",";
  const bool quick = getenv("PROBE_QUICK") != nullptr, once = getenv("PROBE_ONCE") != nullptr;
  const Tree all[] = {{"main", probe_pad_main, false}, {"v1", probe_pad_v1, false}, {"v2", probe_pad_v2, false},
                      {"v3", probe_pad_v3, false},     {"v4", probe_pad_v4, false}, {"v5", probe_pad_v5, false},
                      {"v6", probe_pad_v6, false},     {"v7", probe_pad_v7, false}};
  for (Tree t : all) {
    t.diag = diag.find(std::string(",") + t.name + ",") != std::string::npos;
    if (t.run) g_trees.push_back(t);
  }
  if (getenv("PROBE_TWIN")) g_trees.push_back({"twin", probe_pad_twin, true});
  if (g_trees.empty() || std::strcmp(g_trees[0].name, "main") != 0) {
    printf("no main tree built\n");
    return 1;
  }
  printf("trees:");
  for (const Tree &t : g_trees) printf(" %s", t.name);
  printf("\n");
  CK(cudaMalloc(&g_diff, sizeof(*g_diff)));
  if (!quick) small_checks(1000);
  if (!quick) backward_checks(7);

  // A 512 MiB device copy: the rate every row's % is of.
  const size_t copy_cap = size_t{600} << 20;
  void *ca, *cb;
  CK(cudaMalloc(&ca, copy_cap));
  CK(cudaMalloc(&cb, copy_cap));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> ct;
  for (int i = 0; i < 25; ++i) {
    CK(cudaEventRecord(e0));
    CK(cudaMemcpyAsync(cb, ca, size_t{512} << 20, cudaMemcpyDeviceToDevice));
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (i >= 3) ct.push_back(ms);
  }
  const double copy_rate = 2.0 * (size_t{512} << 20) / (median(ct) * 1e-3);
  printf("copy 512 MiB: %.4f ms, %.0f GB/s\n", median(ct), copy_rate / 1e9);
  if (getenv("PROBE_ORDER")) order_experiment(g_trees[0], ca, cb, atoi(getenv("PROBE_ORDER")));
  // PROBE_TIMES_TREE: the tree built with PROBE_BLOCK_TIMES, whose per-block times are summed up on the rank-5 and scale rows.
  const Tree *times_tree = nullptr;
  for (const Tree &t : g_trees)
    if (getenv("PROBE_TIMES_TREE") && probe_block_times_io && std::strcmp(t.name, getenv("PROBE_TIMES_TREE")) == 0)
      times_tree = &t;

  const std::vector<Case> rank5 = {{{4, 32, 64, 64, 128}, {0, 0, 2, 2, 2}, {0, 0, 2, 2, 2}},
                                   {{4, 32, 64, 64, 127}, {0, 1, 0, 0, 3}, {0, 0, 0, 0, 4}}};
  const std::vector<Case> guards = {{{16384, 8192}, {0, 3}, {0, 5}},
                                    {{16384, 8192}, {2, 0}, {3, 0}},
                                    {{16384, 8192}, {0, 100}, {0, 300}},
                                    {{16, 2048, 4096}, {0, 3, 7}, {0, 2, 9}},
                                    {{16, 2048, 4096}, {1, 0, 0}, {1, 0, 0}},
                                    {{8, 64, 512, 512}, {0, 0, 1, 1}, {0, 0, 1, 1}},
                                    {{8, 64, 512, 512}, {0, 0, 16, 16}, {0, 0, 16, 16}}};
  // The rank-5 row at half and twice its batch: how much of its gap to copy is the size's.
  // and at a small one (a launch's fixed cost).
  std::vector<Case> scale;
  for (int64_t b : {1, 2, 8}) {
    scale.push_back({{b, 32, 64, 64, 128}, {0, 0, 2, 2, 2}, {0, 0, 2, 2, 2}});
    scale.push_back({{b, 32, 64, 64, 127}, {0, 1, 0, 0, 3}, {0, 0, 0, 0, 4}});
  }
  scale.push_back({{1, 1, 8, 64, 128}, {0, 0, 2, 2, 2}, {0, 0, 2, 2, 2}});
  // Constant pad backward (a slice, run by the forward's kernels) of the two rank-5 rows.
  const std::vector<Case> slices = {{{4, 32, 68, 68, 132}, {0, 0, -2, -2, -2}, {0, 0, -2, -2, -2}},
                                    {{4, 33, 64, 64, 134}, {0, -1, 0, 0, -3}, {0, 0, 0, 0, -4}}};
  std::vector<Timed> rows;
  for (int bytes : {2, 4})
    for (const Case &c : rank5)
      for (int m = 0; m < 4; ++m) rows.push_back({"rank5", c, bytes, m});
  for (int bytes : {2, 4})
    for (const Case &c : scale) rows.push_back({"scale", c, bytes, 1});
  for (int bytes : {2, 4})
    for (const Case &c : slices) rows.push_back({"slice", c, bytes, 0});
  for (int bytes : {2, 4})
    for (const Case &c : guards)
      for (int m = 0; m < 4 && !getenv("PROBE_NO_GUARDS"); ++m) rows.push_back({"guard", c, bytes, m});

  void *in = nullptr, *ref = nullptr, *out = nullptr;
  size_t in_cap = 0, out_cap = 0;
  const unsigned char fill[16] = {0x3c, 0x41, 0x7a, 0x3f, 0x11, 0x22, 0x33, 0x44,
                                  0x55, 0x66, 0x77, 0x01, 0x02, 0x03, 0x04, 0x05};
  int bad = 0;
  printf("%-5s %-4s %-9s %-38s %9s", "set", "type", "mode", "shape (pads axis:(lo,hi))", "copy=ms");
  for (const Tree &t : g_trees) printf(" | %-6s ms    %%cp", t.name);
  printf("\n");
  for (const Timed &row : rows) {
    const std::string label = std::string(row.label) + " " + kModeNames[row.mode] + " " + text(row.c);
    if (*filter && label.find(filter) == std::string::npos) continue;
    const Case c = simplified(row.c);
    const size_t ib = count(c.shape) * row.bytes, ob = count(out_shape(c)) * row.bytes;
    if (ib > in_cap) {
      if (in) CK(cudaFree(in));
      CK(cudaMalloc(&in, ib));
      in_cap = ib;
    }
    if (ob > out_cap) {
      if (ref) CK(cudaFree(ref));
      if (out) CK(cudaFree(out));
      CK(cudaMalloc(&ref, ob));
      CK(cudaMalloc(&out, ob));
      out_cap = ob;
    }
    random_bits<<<2048, 256>>>(static_cast<uint32_t *>(in), ib / 4, static_cast<uint32_t>(ib));
    CK(cudaGetLastError());
    CK(cudaMemset(ref, 0x5A, ob));
    int st = launch(g_trees[0], row.bytes, row.mode, c, in, ref, fill);
    CK(cudaDeviceSynchronize());
    if (st) printf("main status %d\n", st);
    std::vector<unsigned long long> diff(g_trees.size(), 0);
    std::vector<bool> skip(g_trees.size(), false);  // a tree built without this element width (status 3)
    for (size_t t = 1; t < g_trees.size(); ++t) {
      CK(cudaMemset(out, 0xA5, ob));
      st = launch(g_trees[t], row.bytes, row.mode, c, in, out, fill);
      CK(cudaDeviceSynchronize());
      skip[t] = st == 3;
      diff[t] = st ? ~0ull : differences(ref, out, ob);
      bad += diff[t] != 0 && !g_trees[t].diag && !skip[t];
    }
    if (once) continue;
    // Interleaved: the same-size copy, then every tree, rep after rep.
    const size_t half = std::min((ib + ob) / 2, copy_cap);
    const size_t n = g_trees.size() + 1;
    std::vector<cudaEvent_t> ev(2 * n * (reps + 2));
    for (auto &e : ev) CK(cudaEventCreate(&e));
    for (int r = 0; r < reps + 2; ++r)
      for (size_t k = 0; k < n; ++k) {
        CK(cudaEventRecord(ev[2 * (r * n + k)]));
        if (k == 0) CK(cudaMemcpyAsync(cb, ca, half, cudaMemcpyDeviceToDevice));
        else if (!skip[k - 1] && launch(g_trees[k - 1], row.bytes, row.mode, c, in, k == 1 ? ref : out, fill))
          CK(cudaErrorUnknown);
        CK(cudaEventRecord(ev[2 * (r * n + k) + 1]));
      }
    CK(cudaDeviceSynchronize());
    std::vector<std::vector<float>> ms(n);
    for (int r = 2; r < reps + 2; ++r)
      for (size_t k = 0; k < n; ++k) {
        float x;
        CK(cudaEventElapsedTime(&x, ev[2 * (r * n + k)], ev[2 * (r * n + k) + 1]));
        ms[k].push_back(x);
      }
    for (auto &e : ev) CK(cudaEventDestroy(e));
    const double cms = median(ms[0]);
    printf("%-5s %-4s %-9s %-38s %9.4f", row.label, row.bytes == 2 ? "b16" : "f32", kModeNames[row.mode],
           text(row.c).c_str(), cms);
    for (size_t k = 1; k < n; ++k) {
      const double t = median(ms[k]);
      if (skip[k - 1]) {
        printf(" | %-16s", "-");
        continue;
      }
      printf(" | %.4f %5.1f%s", t, 100.0 * (ib + ob) / (t * 1e-3) / copy_rate,
             k == 1                 ? "    "
             : g_trees[k - 1].diag  ? "   d"
             : diff[k - 1]          ? " BAD"
                                    : "  ok");
    }
    printf("\n");
    if (times_tree && (std::strcmp(row.label, "rank5") == 0 || std::strcmp(row.label, "scale") == 0))
      block_times(*times_tree, row.bytes, row.mode, c, in, out,
                  (std::string(row.bytes == 2 ? "b16 " : "f32 ") + kModeNames[row.mode] + " " + text(row.c)).c_str());
    if (std::strcmp(row.label, "rank5") != 0) continue;
    // As bench/shape_grid.cu times a row: a launch between two events, synchronized
    // after each, so that the host's work before the launch counts too.
    std::vector<std::vector<float>> sync_ms(n);
    for (int r = 0; r < reps + 2; ++r)
      for (size_t k = 0; k < n; ++k) {
        if (k > 0 && skip[k - 1]) continue;
        CK(cudaEventRecord(e0));
        if (k == 0) CK(cudaMemcpyAsync(cb, ca, half, cudaMemcpyDeviceToDevice));
        else if (launch(g_trees[k - 1], row.bytes, row.mode, c, in, k == 1 ? ref : out, fill)) CK(cudaErrorUnknown);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float x;
        CK(cudaEventElapsedTime(&x, e0, e1));
        if (r >= 2) sync_ms[k].push_back(x);
      }
    printf("%-5s %-4s %-9s %-38s %9.4f", "sync", row.bytes == 2 ? "b16" : "f32", kModeNames[row.mode],
           text(row.c).c_str(), median(sync_ms[0]));
    for (size_t k = 1; k < n; ++k) {
      if (skip[k - 1]) {
        printf(" | %-16s", "-");
        continue;
      }
      const double t = median(sync_ms[k]);
      printf(" | %.4f %5.1f %5.1f", t, 100.0 * (ib + ob) / (t * 1e-3) / copy_rate, 100.0 * median(sync_ms[0]) / t);
    }
    printf("\n");
  }
  printf("%s\n", bad ? "SOME OUTPUTS DIFFER FROM MAIN'S" : "every timed output bit-identical to main's");
  return 0;
}
