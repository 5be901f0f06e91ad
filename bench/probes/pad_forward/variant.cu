// One tree's pad forward behind a C entry named PROBE_ENTRY (its namespace
// renamed on the command line, so that several trees link into one binary):
// the kernels that tree's dispatch picks, for 2- and 4-byte elements.
#include <cstdint>
#include <cstring>

#include "pad/pad_forward_impl.cuh"
// After the kernels: their namespace.
#include "contiguous_pad.h"

// A contiguous input of `rank` axes, padded by lo/hi per axis into a contiguous
// output.
extern "C" int PROBE_ENTRY(int bytes, int rank, int mode, const int64_t *shape, const int64_t *lo, const int64_t *hi,
                           const void *in, void *out, const void *fill, void *stream) {
  using namespace baracuda::kernels;
  RowsProblem p = contiguous_pad(rank, mode, shape, lo, hi, false);
  p.in = in, p.out = out;
  std::memcpy(p.fill, fill, static_cast<size_t>(bytes));
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (bytes) {
    case 2:
      return pad_forward_dispatch<2>(p, s);
#ifndef PROBE_B2_ONLY  // a diagnostic tree built for the 2-byte kernels alone (a shorter build)
    case 4:
      return pad_forward_dispatch<4>(p, s);
#endif
  }
  return 3;
}

#ifdef PROBE_BLOCK_TIMES
// The diagnostic tree's per-block times (pad_forward_slot_tiles.cuh): clear = 1 zeroes them,
// else the first `blocks` blocks' 4 words are copied to `host`.
extern "C" int probe_block_times_io(unsigned long long *host, int blocks, int clear) {
  void *at = nullptr;
  if (cudaGetSymbolAddress(&at, baracuda::kernels::probe_block_times) != cudaSuccess) return 1;
  const size_t bytes = sizeof(unsigned long long) * 4 * static_cast<size_t>(blocks);
  if (clear) return cudaMemset(at, 0, bytes) != cudaSuccess;
  return cudaMemcpy(host, at, bytes, cudaMemcpyDeviceToHost) != cudaSuccess;
}
#endif
