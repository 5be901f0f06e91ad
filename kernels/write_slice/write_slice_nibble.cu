// write_slice for S4/U4, two elements per byte. A byte may hold one nibble
// inside the window and one outside, or nibbles of two window elements, so
// the copy runs in two launches: first every element at an even (low) nibble
// offset, then every element at an odd (high) one. Within a launch two
// elements share a byte only if they share an offset, which a non-overlapping
// dest rules out; so no byte has two writers, and each writer keeps the
// other nibble.
#include <cuda_runtime.h>

#include <climits>

#include "write_slice/write_slice_kernels.h"

namespace baracuda::kernels {

namespace {

constexpr int kNibbleThreads = 256;

__global__ void __launch_bounds__(kNibbleThreads)
    write_slice_nibble_parity_kernel(NibbleSliceProblem p, int64_t total, int parity) {
  const int64_t e = static_cast<int64_t>(blockIdx.x) * kNibbleThreads + threadIdx.x;
  if (e >= total) return;
  int64_t rest = e, dest = p.dest_offset, source = 0;
  for (int d = p.rank - 1; d >= 0; --d) {
    const int64_t c = rest % p.extent[d];
    rest /= p.extent[d];
    dest += c * p.dest_stride[d];
    source += c * p.source_stride[d];
  }
  if ((dest & 1) != parity) return;
  const uint8_t value = (p.source[source >> 1] >> ((source & 1) * 4)) & 0xF;
  uint8_t &byte = p.dest[dest >> 1];
  byte = parity ? static_cast<uint8_t>((byte & 0x0F) | (value << 4)) : static_cast<uint8_t>((byte & 0xF0) | value);
}

}  // namespace

int write_slice_nibble_run(const NibbleSliceProblem &p, cudaStream_t stream) {
  int64_t total = 1;
  for (int d = 0; d < p.rank; ++d) total *= p.extent[d];
  if (total == 0) return 0;
  const int64_t blocks = (total + kNibbleThreads - 1) / kNibbleThreads;
  if (blocks > INT_MAX) return 3;
  for (int parity = 0; parity < 2; ++parity) {
    write_slice_nibble_parity_kernel<<<static_cast<unsigned>(blocks), kNibbleThreads, 0, stream>>>(p, total, parity);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return -static_cast<int>(e);
  }
  return 0;
}

}  // namespace baracuda::kernels
