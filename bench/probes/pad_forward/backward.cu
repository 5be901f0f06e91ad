// One tree's pad backward behind a C entry named PROBE_ENTRY (its namespace
// renamed on the command line): the row tiles' staging is shared with the
// forward, so a forward branch checks the backward's bits against main's.
#include <cuda_bf16.h>

#include <cstdint>

#include "pad/pad_backward_impl.cuh"
// After the kernels: their namespace.
#include "contiguous_pad.h"

// dx of a contiguous input of `rank` axes (shape) from dy padded by lo/hi per axis; bytes 2: bf16, 4: f32.
extern "C" int PROBE_ENTRY(int bytes, int rank, int mode, const int64_t *shape, const int64_t *lo, const int64_t *hi,
                           const void *dy, void *dx, void *stream) {
  using namespace baracuda::kernels;
  RowsProblem p = contiguous_pad(rank, mode, shape, lo, hi, true);
  p.in = dy, p.out = dx;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (bytes == 4) return pad_backward_dispatch<float>(p, s);
  if (bytes == 2) return pad_backward_dispatch<__nv_bfloat16>(p, s);
  return 3;
}
