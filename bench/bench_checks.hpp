// The benchmarks' answer to a failed call: a line naming it, then exit 1
// (a benchmark has no result to give past a failure).
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "baracuda/baracuda.h"

inline void cuda(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

inline void ok(baracuda_status_t s, const char *what) {
  if (s != BARACUDA_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s: %s: %s\n", what, baracuda_status_string(s), baracuda_last_error_message());
    std::exit(1);
  }
}
