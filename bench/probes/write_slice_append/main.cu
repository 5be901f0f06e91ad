// write_slice append probe: main's vector-rows copy and staged trees
// (variant.cu, one entry a tree) in one process, KV-cache appends of 1 to 1024
// tokens into a [16, 32, 4096, 128] cache as bench/shape_grid.cu times them:
// CUDA events around one launch, synchronized after each (a launch's host
// cost counts, as plan.run's does), median of many, each tree beside a
// same-size cudaMemcpyAsync and an empty kernel, interleaved. Before timing,
// every tree's cache checked element by element: the window holds the
// source, every other element its old bits.
// Build: bench/probes/write_slice_append/build.sh OUT SECONDS include main=MAIN/kernels w1=TREE/kernels ...
// Run: OUT/probe [reps]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "../common/probe_check.h"

using Entry = int (*)(int, int64_t, int64_t, int64_t, int64_t, int64_t, const void *, void *, void *);
#define PROBE_TREE(n)                                                                                   \
  extern "C" int probe_ws_##n(int, int64_t, int64_t, int64_t, int64_t, int64_t, const void *, void *, \
                              void *) __attribute__((weak));
PROBE_TREE(main)
PROBE_TREE(w1)
PROBE_TREE(w2)
PROBE_TREE(w3)
PROBE_TREE(w4)
PROBE_TREE(w5)

namespace {

__global__ void empty_kernel() {}

__device__ uint32_t hash_bits(uint64_t i, uint32_t seed) {
  uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull + seed;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<uint32_t>(z ^ (z >> 31));
}

template <class W>
__global__ void fill_bits(W *p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    p[i] = static_cast<W>(hash_bits(i, seed));
}

// Elements of the cache that differ from what the append should leave.
template <class W>
__global__ void count_wrong(const W *cache, const W *source, int64_t rows, int64_t len, int64_t dim, int64_t at,
                            int64_t tokens, uint32_t seed, unsigned long long *wrong) {
  const size_t n = static_cast<size_t>(rows * len * dim);
  unsigned long long bad = 0;
  for (size_t e = blockIdx.x * size_t{blockDim.x} + threadIdx.x; e < n; e += size_t{gridDim.x} * blockDim.x) {
    const int64_t d = e % dim, t = (e / dim) % len, r = e / (dim * len);
    const W want = t >= at && t < at + tokens ? source[(r * tokens + (t - at)) * dim + d]
                                              : static_cast<W>(hash_bits(e, seed));
    bad += cache[e] != want;
  }
  if (bad) atomicAdd(wrong, bad);
}

double median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Tree {
  const char *name;
  Entry run;
};

}  // namespace

int main(int argc, char **argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  const int reps = argc > 1 ? atoi(argv[1]) : 101;
  std::vector<Tree> trees;
  for (Tree t : {Tree{"main", probe_ws_main}, Tree{"w1", probe_ws_w1}, Tree{"w2", probe_ws_w2},
                 Tree{"w3", probe_ws_w3}, Tree{"w4", probe_ws_w4}, Tree{"w5", probe_ws_w5}})
    if (t.run) trees.push_back(t);
  if (trees.empty() || trees[0].run != probe_ws_main) {
    printf("no main tree built\n");
    return 1;
  }
  const int64_t rows = 16 * 32, len = 4096, dim = 128;
  unsigned long long *wrong;
  CK(cudaMalloc(&wrong, sizeof(*wrong)));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  int bad = 0;
  printf("%-4s %-6s %9s %9s", "type", "tokens", "empty us", "copy us");
  for (const Tree &t : trees) printf(" | %-5s us  %%copy  -empty", t.name);
  printf("\n");
  for (int bytes : {2, 4}) {
    void *cache, *source, *other;
    CK(cudaMalloc(&cache, rows * len * dim * bytes));
    CK(cudaMalloc(&source, rows * 1024 * dim * bytes));
    CK(cudaMalloc(&other, rows * 1024 * dim * bytes));
    for (int64_t tokens : {1, 4, 16, 32, 64, 128, 1024}) {
      const int64_t at = 1000;
      const size_t src_elems = rows * tokens * dim, src_bytes = src_elems * bytes;
      const uint32_t seed = static_cast<uint32_t>(tokens * 7 + bytes);
      // Correctness first: every tree from a freshly filled cache.
      for (const Tree &t : trees) {
        if (bytes == 2) {
          fill_bits<<<2048, 256>>>(static_cast<uint16_t *>(cache), rows * len * dim, seed);
          fill_bits<<<2048, 256>>>(static_cast<uint16_t *>(source), src_elems, seed + 1);
        } else {
          fill_bits<<<2048, 256>>>(static_cast<uint32_t *>(cache), rows * len * dim, seed);
          fill_bits<<<2048, 256>>>(static_cast<uint32_t *>(source), src_elems, seed + 1);
        }
        CK(cudaGetLastError());
        const int st = t.run(bytes, rows, len, dim, at, tokens, source, cache, nullptr);
        CK(cudaDeviceSynchronize());
        CK(cudaMemset(wrong, 0, sizeof(*wrong)));
        if (bytes == 2)
          count_wrong<<<2048, 256>>>(static_cast<const uint16_t *>(cache), static_cast<const uint16_t *>(source), rows,
                                     len, dim, at, tokens, seed, wrong);
        else
          count_wrong<<<2048, 256>>>(static_cast<const uint32_t *>(cache), static_cast<const uint32_t *>(source), rows,
                                     len, dim, at, tokens, seed, wrong);
        CK(cudaGetLastError());
        unsigned long long h;
        CK(cudaMemcpy(&h, wrong, sizeof(h), cudaMemcpyDeviceToHost));
        if (st || h) {
          ++bad;
          printf("CHECK FAILED %s b%d tokens %lld: status %d, %llu elements wrong\n", t.name, bytes, (long long)tokens,
                 st, h);
        }
      }
      // Timing: empty kernel, copy, each tree; interleaved, rep after rep.
      const size_t n = trees.size() + 2;
      std::vector<std::vector<float>> ms(n);
      for (int r = 0; r < reps + 5; ++r)
        for (size_t k = 0; k < n; ++k) {
          CK(cudaEventRecord(e0));
          if (k == 0) empty_kernel<<<1, 32>>>();
          else if (k == 1) CK(cudaMemcpyAsync(other, source, src_bytes, cudaMemcpyDeviceToDevice));
          else if (trees[k - 2].run(bytes, rows, len, dim, at, tokens, source, cache, nullptr)) CK(cudaErrorUnknown);
          CK(cudaEventRecord(e1));
          CK(cudaEventSynchronize(e1));
          float x;
          CK(cudaEventElapsedTime(&x, e0, e1));
          if (r >= 5) ms[k].push_back(x);
        }
      const double empty = median(ms[0]) * 1e3, copy = median(ms[1]) * 1e3;
      printf("%-4s %-6lld %9.2f %9.2f", bytes == 2 ? "b16" : "f32", (long long)tokens, empty, copy);
      for (size_t k = 2; k < n; ++k) {
        const double us = median(ms[k]) * 1e3;
        printf(" | %6.2f %6.1f %6.2f", us, 100.0 * copy / us, us - empty);
      }
      printf("\n");
    }
    CK(cudaFree(cache));
    CK(cudaFree(source));
    CK(cudaFree(other));
  }
  printf("%s\n", bad ? "SOME CHECKS FAILED" : "every tree's cache checked: window = source, the rest untouched");
  return 0;
}
