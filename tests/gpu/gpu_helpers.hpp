#pragma once

#include <cuda_runtime_api.h>

#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "reference/harness.hpp"

// One harness case as one Catch2 check, described when it fails.
#define CHECK_CASE(case_value, runner)                            \
  do {                                                            \
    const auto &c_ = (case_value);                                \
    const baracuda::check::Result r_ = runner(c_);                \
    INFO(baracuda::check::describe(c_) << ": " << r_.detail);     \
    CHECK(r_.ok);                                                 \
  } while (0)

inline double fill_for(baracuda_dtype_t dtype) {
  switch (dtype) {
    case BARACUDA_DTYPE_BOOL: return 1;
    case BARACUDA_DTYPE_U8: return 7;
    case BARACUDA_DTYPE_I32: case BARACUDA_DTYPE_I64: case BARACUDA_DTYPE_S8: return -7;
    default: return 1.5;
  }
}

// runs(t, stream) from n host threads at once, each on a non-blocking stream
// of its own that is then synchronized: each thread's status (runs' first
// non-zero one; -1 when its stream could not be made or synchronized).
template <class Runs>
std::vector<int> on_threads_and_streams(int n, Runs runs) {
  std::vector<int> status(n, -1);
  std::vector<std::thread> threads;
  for (int t = 0; t < n; ++t)
    threads.emplace_back([&, t] {
      cudaStream_t s;
      if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) return;
      int st = runs(t, s);
      if (st == 0) st = cudaStreamSynchronize(s) == cudaSuccess ? 0 : -1;
      cudaStreamDestroy(s);
      status[t] = st;
    });
  for (auto &th : threads) th.join();
  return status;
}
