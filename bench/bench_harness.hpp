// What every benchmark here shares: random-filled device buffers, CUDA-event
// timing (the median of many runs after warm-up), a plan with its own
// workspace, and the JSON row bench/report.py reads.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#include "baracuda/baracuda.h"
#include "bench_checks.hpp"

static __global__ void empty_kernel() {}

// Random bits, so that no timing runs on zeros.
static __global__ void fill_random(uint32_t *p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint32_t v = static_cast<uint32_t>(i) * 2654435761u ^ seed;
    v ^= v >> 15;
    v *= 2246822519u;
    v ^= v >> 13;
    p[i] = (v & 0x3F7F3F7F);  // finite floats of any width (each 16-bit half too), magnitudes below 2
  }
}

struct Buffer {
  void *p = nullptr;
  size_t bytes = 0;
  explicit Buffer(size_t n) : bytes(n) {
    cuda(cudaMalloc(&p, n), "cudaMalloc");
    fill_random<<<1024, 256>>>(static_cast<uint32_t *>(p), n / 4, static_cast<uint32_t>(n));
    cuda(cudaGetLastError(), "fill_random");
  }
  ~Buffer() { cudaFree(p); }
};

inline double median_of(std::vector<float> t) {
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Each function's launches, one at a time between two events and synchronized
// (so that the host's work before the launch counts), in turn: fns[0], fns[1],
// ..., reps times after 5 warm-up turns; each one's times in ms.
inline std::vector<std::vector<float>> times_in_turn(const std::vector<std::function<void()>> &fns, int reps) {
  cudaEvent_t a, b;
  cuda(cudaEventCreate(&a), "event");
  cuda(cudaEventCreate(&b), "event");
  for (int i = 0; i < 5; ++i)
    for (const auto &fn : fns) fn();
  std::vector<std::vector<float>> t(fns.size());
  for (int i = 0; i < reps; ++i)
    for (size_t k = 0; k < fns.size(); ++k) {
      cuda(cudaEventRecord(a), "record");
      fns[k]();
      cuda(cudaEventRecord(b), "record");
      cuda(cudaEventSynchronize(b), "sync");
      float ms;
      cuda(cudaEventElapsedTime(&ms, a, b), "elapsed");
      t[k].push_back(ms);
    }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return t;
}

inline double median_ms(const std::function<void()> &fn, int reps = 30) { return median_of(times_in_turn({fn}, reps)[0]); }

inline void row(const char *op, const char *dtype, const char *shape, double ms, double bytes) {
  std::printf("{\"op\": \"%s\", \"dtype\": \"%s\", \"shape\": \"%s\", \"ms\": %.5f, \"bytes\": %.0f}\n", op, dtype,
              shape, ms, bytes);
  std::fflush(stdout);
}

struct Plan {
  baracuda_plan_t p = nullptr;
  void *workspace = nullptr;
  size_t workspace_bytes = 0;
  explicit Plan(const baracuda_op_header_t *d, const baracuda_select_options_t *options = nullptr) {
    ok(baracuda_plan_select(d, options, &p), "select");
    ok(baracuda_plan_workspace_size(p, &workspace_bytes), "workspace_size");
    if (workspace_bytes) cuda(cudaMalloc(&workspace, workspace_bytes), "cudaMalloc workspace");
  }
  ~Plan() {
    baracuda_plan_destroy(p);
    cudaFree(workspace);
  }
  void run(const std::vector<baracuda_arg_t> &args) const {
    ok(baracuda_plan_run(p, args.data(), static_cast<int32_t>(args.size()), workspace, workspace_bytes, nullptr),
       "run");
  }
};

inline baracuda_tensor_t tensor(void *p, baracuda_dtype_t dt, std::vector<int64_t> shape) {
  return baracuda_tensor_contiguous(p, dt, static_cast<int32_t>(shape.size()), shape.data());
}
