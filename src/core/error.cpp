#include "core/error.hpp"

#include <cuda_runtime_api.h>

namespace baracuda {

namespace {
thread_local std::string g_last_error;
}

void check_cuda(int code, const char *op, const char *what) {
  if (code == 0) return;
  auto err = static_cast<cudaError_t>(code);
  fail(-code, op, ": ", what, " failed: ", cudaGetErrorName(err), " (", cudaGetErrorString(err), ")");
}

void check_launch(int status, const char *op) {
  if (status < 0) check_cuda(-status, op, "kernel launch");
  if (status != 0) fail(status, op, ": the kernel refused the problem (too large for one launch)");
}

void set_last_error(const std::string &message) { g_last_error = message; }
const char *last_error() { return g_last_error.c_str(); }

}  // namespace baracuda
