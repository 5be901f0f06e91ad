// Pad backward probe: several trees' pad backward (entry.cu, built into one
// library by build.sh) on the shape grid's rows (bench/shape_grid.cu), dx of
// every tree checked bitwise against the first's (the baseline, main) on
// random dy, then timed with CUDA events, median of the reps, the trees
// interleaved rep by rep, beside a same-size device-to-device copy and a
// 512 MiB copy of the same process (the grid's % of copy).
//   bash build.sh /tmp/pb 170 main=<main's kernels/> mine=kernels/
//   /tmp/pb/pad_bwd_probe /tmp/pb/libpadbwd_probe.so <filter|-> <reps> main mine
// (tree 0 is the baseline; filter: substrings of "bf16 reflect [4,32,...]"
// rows, '|' between them; PROBE_NO_CHECKS=1 skips the checks, for ncu).
// Session 19's runs, an ncu source-counter run included: bench/NOTES.md.
// ncu_source.py sums an ncu source page of the tiles kernel by phase (the
// objects carry -lineinfo; session 20's rounds ran it on one row each).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../common/probe_check.h"
#include "common/rows_problem.h"

using baracuda::kernels::IndexMap;
using baracuda::kernels::RowsProblem;
using Entry = int (*)(const void *, cudaStream_t);

namespace {

const char *kDtypeName[] = {"f32", "bf16", "f16"};
const int kDtypeBytes[] = {4, 2, 2};
const char *kModeName[] = {"constant", "reflect", "replicate", "circular"};

struct Case {
  std::vector<int64_t> shape, low, high;  // dx shape (the forward's input), pads
};

// The grid's pad cases (bench/shape_grid.cu).
const Case kGrid[] = {
    {{16384, 8192}, {0, 3}, {0, 5}},
    {{16384, 8192}, {2, 0}, {3, 0}},
    {{16384, 8192}, {0, 100}, {0, 300}},
    {{16, 2048, 4096}, {0, 3, 7}, {0, 2, 9}},
    {{16, 2048, 4096}, {1, 0, 0}, {1, 0, 0}},
    {{8, 64, 512, 512}, {0, 0, 1, 1}, {0, 0, 1, 1}},
    {{8, 64, 512, 512}, {0, 0, 16, 16}, {0, 0, 16, 16}},
    {{4, 32, 64, 64, 128}, {0, 0, 2, 2, 2}, {0, 0, 2, 2, 2}},
    {{4, 32, 64, 64, 127}, {0, 1, 0, 0, 3}, {0, 0, 0, 0, 4}},
};

std::string shape_text(const Case &c) {
  std::string s = "[";
  for (size_t i = 0; i < c.shape.size(); ++i) s += (i ? "," : "") + std::to_string(c.shape[i]);
  s += "]";
  for (size_t i = 0; i < c.shape.size(); ++i)
    if (c.low[i] || c.high[i])
      s += " " + std::to_string(i) + ":(" + std::to_string(c.low[i]) + "," + std::to_string(c.high[i]) + ")";
  return s;
}

int64_t count(const std::vector<int64_t> &v) {
  int64_t n = 1;
  for (int64_t e : v) n *= e;
  return n;
}

// The plan layer's problem (src/ops/pad/pad_desc.cpp, core/layout.cpp) for
// dense tensors: unpadded axes of extent 1 dropped, runs of unpadded axes merged.
RowsProblem make_problem(const Case &c, int mode, const void *dy, void *dx) {
  struct Axis {
    int64_t n, m, lo;
    bool pinned;
  };
  std::vector<Axis> kept;
  for (size_t d = 0; d < c.shape.size(); ++d) {
    const bool pinned = c.low[d] || c.high[d];
    if (pinned || c.shape[d] != 1) kept.push_back({c.shape[d], c.shape[d] + c.low[d] + c.high[d], c.low[d], pinned});
  }
  if (kept.empty()) kept.push_back({1, 1, 0, false});
  std::vector<Axis> merged;
  for (const Axis &a : kept) {
    if (!merged.empty() && !a.pinned && !merged.back().pinned) {
      merged.back().n *= a.n;
      merged.back().m *= a.m;
    } else {
      merged.push_back(a);
    }
  }
  RowsProblem p;
  p.rank = static_cast<int32_t>(merged.size());
  p.map = static_cast<IndexMap>(mode);
  int64_t so = 1, si = 1;
  for (int d = p.rank - 1; d >= 0; --d) {
    p.out_extent[d] = merged[d].n;
    p.in_extent[d] = merged[d].m;
    p.pad_low[d] = merged[d].lo;
    p.out_stride[d] = so;
    p.in_stride[d] = si;
    so *= merged[d].n;
    si *= merged[d].m;
  }
  p.in = dy;
  p.out = dx;
  return p;
}

// Random values of the dtype, never zero (a hash of the index).
__global__ void fill_random(void *buf, int64_t n, int dtype, uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ seed ^ static_cast<uint32_t>(i >> 32) * 40503u;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13, h *= 3266489917u, h ^= h >> 16;
    const float v = (static_cast<float>(h & 0xffffff) / 16777216.0f - 0.5f) * 8.0f + ((h >> 24) & 1 ? 0.01f : -0.01f);
    if (dtype == 0) static_cast<float *>(buf)[i] = v;
    if (dtype == 1) static_cast<__nv_bfloat16 *>(buf)[i] = __float2bfloat16_rn(v);
    if (dtype == 2) static_cast<__half *>(buf)[i] = __float2half_rn(v);
  }
}

// Bytes of a and b that differ (counted into *diff).
__global__ void count_diff(const uint8_t *a, const uint8_t *b, int64_t n, unsigned long long *diff) {
  unsigned long long local = 0;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    local += a[i] != b[i];
  if (local) atomicAdd(diff, local);
}

// filter: substrings separated by '|', any of which selects a row ("" or "-": every row).
bool wanted(const std::string &filter, const std::string &key) {
  if (filter.empty()) return true;
  size_t at = 0;
  for (;;) {
    const size_t bar = filter.find('|', at);
    if (key.find(filter.substr(at, bar == std::string::npos ? std::string::npos : bar - at)) != std::string::npos)
      return true;
    if (bar == std::string::npos) return false;
    at = bar + 1;
  }
}

using Stamps = int (*)(unsigned long long *);
struct Tree {
  std::string name;
  Entry entry[3];
  Stamps stamps[3];
};

double median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Runs every tree on one problem: checks each against tree 0, bitwise
// (margin elements around dx and dx's cells all compared), then times them.
// Returns false when a check failed.
struct Runner {
  std::vector<Tree> trees;
  int reps = 15;
  double copy_gbs = 0;  // the 512 MiB copy's rate
  void *dy = nullptr, *dx_ref = nullptr, *dx = nullptr, *copy_a = nullptr, *copy_b = nullptr;
  unsigned long long *diff = nullptr;
  cudaEvent_t ev[64][2];

  bool run(const Case &c, int mode, int dt, bool timed, int64_t off_in = 0, int64_t off_out = 0) {
    const int eb = kDtypeBytes[dt];
    std::vector<int64_t> padded = c.shape;
    for (size_t i = 0; i < padded.size(); ++i) padded[i] += c.low[i] + c.high[i];
    const int64_t nx = count(c.shape), ny = count(padded);
    const int64_t guard = 64;  // elements written around dx would show as differences
    fill_random<<<1024, 256>>>(dy, ny + off_in, dt, static_cast<uint32_t>(nx * 31 + mode * 7 + dt));
    CK(cudaGetLastError());
    const char *dyp = static_cast<const char *>(dy) + off_in * eb;
    std::vector<int> rc(trees.size());
    const int64_t span = (nx + 2 * guard + off_out) * eb;
    bool ok = true;
    std::vector<std::string> verdict(trees.size());
    for (size_t t = 0; t < trees.size(); ++t) {
      Entry e = trees[t].entry[dt];
      if (!e) {
        verdict[t] = "absent";
        continue;
      }
      void *base = t == 0 ? dx_ref : dx;
      CK(cudaMemset(base, 0xA5, span));
      RowsProblem p = make_problem(c, mode, dyp, static_cast<char *>(base) + (guard + off_out) * eb);
      rc[t] = e(&p, nullptr);
      CK(cudaDeviceSynchronize());
      if (rc[t] != 0) {
        verdict[t] = "rc=" + std::to_string(rc[t]);
        ok &= t == 0;
        continue;
      }
      if (t == 0) continue;
      if (rc[0] != 0) {  // nothing to compare with
        verdict[t] = "unchecked";
        continue;
      }
      CK(cudaMemset(diff, 0, sizeof *diff));
      count_diff<<<1024, 256>>>(static_cast<const uint8_t *>(dx_ref), static_cast<const uint8_t *>(dx), span, diff);
      unsigned long long h = 0;
      CK(cudaMemcpy(&h, diff, sizeof h, cudaMemcpyDeviceToHost));
      verdict[t] = h ? "DIFF " + std::to_string(h) + " bytes" : "same";
      ok &= h == 0;
    }
    const std::string name =
        std::string(kDtypeName[dt]) + " " + kModeName[mode] + " " + shape_text(c) +
        (off_in || off_out ? " off " + std::to_string(off_in) + "/" + std::to_string(off_out) : "");
    if (!timed) {
      if (!ok) {
        printf("CHECK FAILED %s:", name.c_str());
        for (size_t t = 0; t < trees.size(); ++t) printf(" %s=%s", trees[t].name.c_str(), verdict[t].c_str());
        printf("\n");
      }
      return ok;
    }
    // Timing: every tree and a copy of the same bytes, interleaved rep by rep.
    const double bytes = double(nx + ny) * eb;
    const size_t copy_bytes = static_cast<size_t>(bytes / 2);
    const int n = static_cast<int>(trees.size()) + 1;
    std::vector<std::vector<float>> ms(n);
    std::vector<RowsProblem> probs;
    for (size_t t = 0; t < trees.size(); ++t)
      probs.push_back(make_problem(c, mode, dyp, static_cast<char *>(t == 0 ? dx_ref : dx) + (guard + off_out) * eb));
    for (int r = -3; r < reps; ++r)
      for (int t = 0; t < n; ++t) {
        if (t < n - 1 && (!trees[t].entry[dt] || rc[t] != 0)) continue;
        CK(cudaEventRecord(ev[t][0]));
        if (t < n - 1)
          trees[t].entry[dt](&probs[t], nullptr);
        else
          CK(cudaMemcpyAsync(copy_b, copy_a, copy_bytes, cudaMemcpyDeviceToDevice));
        CK(cudaEventRecord(ev[t][1]));
        CK(cudaEventSynchronize(ev[t][1]));
        float v = 0;
        CK(cudaEventElapsedTime(&v, ev[t][0], ev[t][1]));
        if (r >= 0) ms[t].push_back(v);
      }
    CK(cudaGetLastError());
    printf("%-4s %-9s %-40s", kDtypeName[dt], kModeName[mode], shape_text(c).c_str());
    for (int t = 0; t < n; ++t) {
      if (ms[t].empty()) {
        printf(" | %-5s %13s", t < n - 1 ? trees[t].name.c_str() : "copy", t < n - 1 ? verdict[t].c_str() : "");
        continue;
      }
      const double m = median(ms[t]);
      const double gbs = bytes / (m * 1e-3) / 1e9;
      printf(" | %6.1f us %5.1f%%", m * 1e3, 100.0 * gbs / copy_gbs);
      if (t > 0 && t < n - 1 && verdict[t] != "same") printf(" %s", verdict[t].c_str());
    }
    printf("\n");
    for (size_t t = 0; t < trees.size(); ++t) {  // the phase clocks of a stamped tree, from one more launch
      if (!trees[t].stamps[dt] || rc[t] != 0) continue;
      unsigned long long st[8];
      trees[t].stamps[dt](st);
      trees[t].entry[dt](&probs[t], nullptr);
      CK(cudaDeviceSynchronize());
      trees[t].stamps[dt](st);
      if (st[7] == 0) continue;  // the passes ran, not the tiles
      const double blocks = double(st[7]);
      printf("     %s cycles a block (%llu blocks): rows %.0f, list %.0f, stage %.0f, vectors %.0f, edges %.0f\n",
             trees[t].name.c_str(), st[7], st[0] / blocks, st[1] / blocks, st[2] / blocks, st[3] / blocks, st[4] / blocks);
    }
    fflush(stdout);
    return ok;
  }
};

}  // namespace

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: %s lib.so filter reps tree...\n", argv[0]);
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW);
  if (!lib) {
    printf("dlopen: %s\n", dlerror());
    return 1;
  }
  const std::string filter = strcmp(argv[2], "-") ? argv[2] : "";
  Runner run;
  run.reps = atoi(argv[3]);
  for (int i = 4; i < argc; ++i) {
    Tree t{argv[i], {}, {}};
    for (int d = 0; d < 3; ++d) {
      const std::string sym = "probe_bwd_" + t.name + "_" + kDtypeName[d];
      t.entry[d] = reinterpret_cast<Entry>(dlsym(lib, sym.c_str()));
      t.stamps[d] = reinterpret_cast<Stamps>(dlsym(lib, (sym + "_stamps").c_str()));
    }
    run.trees.push_back(t);
  }
  if (!run.trees[0].entry[0] || !run.trees[0].entry[1] || !run.trees[0].entry[2]) {
    printf("baseline %s missing\n", run.trees[0].name.c_str());
    return 1;
  }
  const size_t big = size_t{600} << 20;  // the largest tensor (f32 [16384,8592]) and a margin
  CK(cudaMalloc(&run.dy, big));
  CK(cudaMalloc(&run.dx_ref, big));
  CK(cudaMalloc(&run.dx, big));
  CK(cudaMalloc(&run.copy_a, big));
  CK(cudaMalloc(&run.copy_b, big));
  CK(cudaMalloc(&run.diff, sizeof *run.diff));
  CK(cudaMemset(run.copy_a, 1, big));
  for (auto &e : run.ev) {
    CK(cudaEventCreate(&e[0]));
    CK(cudaEventCreate(&e[1]));
  }
  {  // the 512 MiB copy's rate: the grid's 100%
    const size_t b = size_t{512} << 20;
    std::vector<float> v;
    for (int r = -3; r < 20; ++r) {
      CK(cudaEventRecord(run.ev[0][0]));
      CK(cudaMemcpyAsync(run.copy_b, run.copy_a, b, cudaMemcpyDeviceToDevice));
      CK(cudaEventRecord(run.ev[0][1]));
      CK(cudaEventSynchronize(run.ev[0][1]));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, run.ev[0][0], run.ev[0][1]));
      if (r >= 0) v.push_back(ms);
    }
    run.copy_gbs = 2.0 * b / (median(v) * 1e-3) / 1e9;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("%s, copy 512 MiB %.0f GB/s (100%%); columns: ", prop.name, run.copy_gbs);
    for (auto &t : run.trees) printf("%s ", t.name.c_str());
    printf("same-size-copy (%% of the 512 MiB copy's rate)\n");
  }
  // Checks: odd, small and offset problems in tiles and passes, every tree against the baseline, bitwise
  // (PROBE_NO_CHECKS=1: none, for a profiler's run of the timed rows).
  int checks = 0, failed = 0;
  std::mt19937 rng(19);
  const bool no_checks = getenv("PROBE_NO_CHECKS") != nullptr;
  for (int i = 0; i < (no_checks ? 0 : 180); ++i) {
    const int rank = 1 + static_cast<int>(rng() % 5);
    Case c;
    for (int d = 0; d < rank; ++d) {
      const int64_t e = d == rank - 1 ? 1 + rng() % 300 : 1 + rng() % (rank >= 4 ? 9 : 40);
      c.shape.push_back(e);
      const bool padded = rng() % 3 != 0 || d == rank - 1;
      const int64_t cap = std::min<int64_t>(e - 1, 20);
      c.low.push_back(padded ? rng() % (cap + 1) : 0);
      c.high.push_back(padded ? rng() % (cap + 1) : 0);
    }
    const int mode = 1 + static_cast<int>(rng() % 3);
    const int dt = static_cast<int>(rng() % 3);
    const int64_t off_in = rng() % 4 == 0 ? rng() % 8 : 0, off_out = rng() % 4 == 0 ? rng() % 8 : 0;
    ++checks;
    failed += !run.run(c, mode, dt, false, off_in, off_out);
  }
  const Case kBig[] = {  // larger odd rows, tiles and passes
      {{3, 37, 1000}, {0, 2, 5}, {0, 3, 1}},     {{5, 9, 11, 130}, {0, 1, 3, 7}, {0, 2, 3, 2}},
      {{2, 700, 4099}, {0, 1, 9}, {0, 0, 40}},   {{64, 2050}, {3, 101}, {2, 299}},
      {{7, 3, 5, 7, 257}, {1, 2, 2, 3, 4}, {1, 1, 2, 3, 5}}, {{300, 16383}, {0, 7}, {0, 1}},
      // tiles of whole planes (flat ranges of dy planes), and tiles inside and
      // across planes without a pad along their axis
      {{3, 10, 16, 64}, {0, 2, 3, 1}, {0, 1, 2, 2}},     {{2, 9, 4, 16, 64}, {0, 0, 1, 2, 2}, {0, 0, 1, 2, 2}},
      {{40, 8, 32}, {1, 2, 3}, {2, 1, 3}},               {{5, 7, 300, 120}, {0, 1, 0, 3}, {0, 2, 0, 4}},
  };
  for (const Case &c : kBig)
    for (int mode = no_checks ? 4 : 1; mode <= 3; ++mode)
      for (int dt = 0; dt < 3; ++dt)
        for (int off = 0; off < 2; ++off) ++checks, failed += !run.run(c, mode, dt, false, off, 3 * off);
  const Case kPlanes[] = {  // tiles of whole planes (session 24's flat ranges): rows of whole vectors
      {{4, 6, 8, 16, 64}, {0, 1, 2, 2, 2}, {0, 2, 1, 2, 3}}, {{3, 40, 8, 8}, {0, 1, 2, 3}, {0, 2, 1, 2}},
      {{32, 64}, {3, 5}, {2, 3}},                              {{2, 5, 64, 64, 128}, {0, 0, 2, 2, 2}, {0, 0, 2, 2, 2}},
      {{6, 12, 24}, {0, 0, 4}, {0, 0, 4}},                     {{3, 9, 17, 32}, {0, 2, 5, 1}, {0, 1, 6, 1}},
      // tiles anywhere along a plane axis without a pad, rows of any phase
      {{4, 32, 64, 127}, {0, 1, 0, 3}, {0, 0, 0, 4}},          {{6, 50, 37}, {1, 0, 5}, {2, 0, 3}},
      {{6, 50, 8}, {1, 0, 2}, {0, 0, 1}},                      {{3, 5, 700, 61}, {0, 2, 0, 9}, {1, 1, 0, 2}},
  };
  const int64_t kPlaneOffsets[][2] = {{0, 0}, {5, 0}, {1, 8}};
  for (const Case &c : kPlanes)
    for (int mode = no_checks ? 4 : 1; mode <= 3; ++mode)
      for (int dt = 0; dt < 3; ++dt)
        for (const auto &o : kPlaneOffsets) ++checks, failed += !run.run(c, mode, dt, false, o[0], o[1]);
  printf("checks: %d problems, %d failed (every tree bitwise against %s)\n", checks, failed, run.trees[0].name.c_str());
  // The grid's rows, timed.
  for (int dt = 0; dt < 3; ++dt)
    for (const Case &c : kGrid)
      for (int mode = 1; mode <= 3; ++mode) {
        const std::string key = std::string(kDtypeName[dt]) + " " + kModeName[mode] + " " + shape_text(c);
        if (!wanted(filter, key)) continue;
        failed += !run.run(c, mode, dt, true);
      }
  printf("done, %d failed\n", failed);
  return failed ? 3 : 0;
}
