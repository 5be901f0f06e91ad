// The GPU suite's entry: exits 77 (meson's SKIP) where no CUDA device is.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cuda_runtime_api.h>

#include <cstdio>

int main(int argc, char **argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "no CUDA device: GPU suite skipped\n");
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
