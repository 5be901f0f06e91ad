// The `baracuda` command: `info` describes this build and the visible GPUs;
// `check` runs every op and dtype on the GPU against the CPU reference.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "baracuda/baracuda.h"
#include "reference/harness.hpp"

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: baracuda info    version, compiled SMs, cuDNN, the op x dtype table, visible GPUs\n"
               "       baracuda check   run every op and dtype on the GPU against the CPU reference\n");
  return 2;
}

int gpu_count() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

int info() {
  baracuda_build_info_t b = BARACUDA_BUILD_INFO_INIT;
  if (baracuda_get_build_info(&b) != BARACUDA_STATUS_SUCCESS) {
    std::fprintf(stderr, "baracuda: %s\n", baracuda_last_error_message());
    return 1;
  }
  const uint32_t v = baracuda_version();
  std::printf("baracuda-kernels %u.%u.%u (CUDA runtime %d.%d)\n", v / 10000, v / 100 % 100, v % 100,
              b.cuda_runtime_version / 1000, b.cuda_runtime_version % 1000 / 10);
  std::printf("machine code for sm:");
  for (int i = 0; i < b.num_sass_archs; ++i) std::printf(" %d", b.sass_archs[i]);
  std::printf("; PTX for sm %d\n", b.ptx_arch);
  std::printf("cuDNN backend: %s\n\n", b.cudnn_enabled ? "on" : "not in this build");

  int32_t ops[64];
  const int32_t n = baracuda_op_list(ops, 64);
  std::printf("%-14s dtypes\n", "op");
  for (int32_t i = 0; i < n && i < 64; ++i) {
    std::printf("%-14s", baracuda_op_name(ops[i]));
    const uint64_t mask = baracuda_op_dtype_mask(ops[i]);
    for (baracuda_dtype_t d = 1; d < BARACUDA_DTYPE_COUNT; ++d)
      if (mask >> d & 1) std::printf(" %s", baracuda_dtype_name(d));
    std::printf("\n");
  }

  const int gpus = gpu_count();
  std::printf("\nGPUs: %d\n", gpus);
  for (int g = 0; g < gpus; ++g) {
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, g) != cudaSuccess) continue;
    std::printf("  %d: %s, sm %d%d, %d SMs, %.1f GiB\n", g, p.name, p.major, p.minor, p.multiProcessorCount,
                p.totalGlobalMem / 1073741824.0);
  }
  return 0;
}

int check() {
  if (gpu_count() == 0) {
    std::fprintf(stderr, "baracuda check: no CUDA device is visible; nothing was checked\n");
    return 1;
  }
  int failed = 0, passed = 0;
  for (const auto &c : baracuda::check::smoke_cases()) {
    const baracuda::check::Result r = c.run();
    std::printf("%-14s %-11s %s%s%s\n", c.op.c_str(), c.dtype.c_str(), r.ok ? "pass" : "FAIL", r.ok ? "" : ": ",
                r.detail.c_str());
    (r.ok ? passed : failed)++;
  }
  std::printf("check: %d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) return usage();
  if (std::strcmp(argv[1], "info") == 0) return info();
  if (std::strcmp(argv[1], "check") == 0) return check();
  return usage();
}
