// The benchmark's two ways of filling attention inputs, for run.py: the
// random bits every bench_ops buffer starts with (bench_harness.hpp) and the
// standard-normal values its attention rows now hold (bench_normal_fill.hpp),
// so that a kernel's time on either shows beside torch.randn's.
#include "../../bench_harness.hpp"
#include "../../bench_normal_fill.hpp"

extern "C" int probe_fill_bits(void *p, size_t bytes, uint32_t seed) {
  fill_random<<<1024, 256>>>(static_cast<uint32_t *>(p), bytes / 4, seed);
  return static_cast<int>(cudaGetLastError());
}
extern "C" int probe_fill_normal_bf16(void *p, size_t n, uint64_t seed) {
  fill_standard_normal(p, BARACUDA_DTYPE_BF16, n, seed);
  return static_cast<int>(cudaGetLastError());
}
