// write_slice for S4/U4. A byte may hold one nibble inside the window and one
// outside, or nibbles of two different window rows, so bytes are assigned to
// threads such that no byte is written by two threads of one launch:
//   pass 1: per row, each byte whose low nibble is in the row; the thread also
//           writes the high nibble when it is in the row, else keeps it;
//   pass 2: per row that starts on a high nibble, that one nibble.
// Rows of dest never overlap (validated: no stride 0), so within each pass
// every byte has one owner.
#include <cuda_runtime.h>

#include <climits>

#include "write_slice/write_slice_kernels.h"

namespace baracuda::kernels {

namespace {

constexpr int kNibbleThreads = 256;

struct RowStart {
  int64_t dest;    // nibble offset of the row's first element
  int64_t source;  // nibble offset of the source row's first element
};

__device__ RowStart row_start(const NibbleSliceProblem &p, int64_t row) {
  RowStart s{p.dest_offset, 0};
  for (int d = p.rank - 2; d >= 0; --d) {
    const int64_t c = row % p.extent[d];
    row /= p.extent[d];
    s.dest += c * p.dest_stride[d];
    s.source += c * p.source_stride[d];
  }
  return s;
}

__device__ uint8_t source_nibble(const NibbleSliceProblem &p, int64_t source_row, int64_t k) {
  const int64_t at = source_row + k * p.source_stride[p.rank - 1];
  return (p.source[at >> 1] >> ((at & 1) * 4)) & 0xF;
}

__global__ void __launch_bounds__(kNibbleThreads)
    write_slice_nibble_pairs_kernel(NibbleSliceProblem p, int64_t bytes_per_row, int64_t total) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * kNibbleThreads + threadIdx.x;
  if (t >= total) return;
  const int64_t row = t / bytes_per_row;
  const int64_t slot = t - row * bytes_per_row;
  const int64_t width = p.extent[p.rank - 1];
  const RowStart s = row_start(p, row);
  const int64_t low = ((s.dest + 1) & ~int64_t{1}) + 2 * slot;  // the slot's even nibble
  if (low >= s.dest + width) return;
  const int64_t k = low - s.dest;
  uint8_t byte = source_nibble(p, s.source, k);
  byte |= (k + 1 < width ? source_nibble(p, s.source, k + 1) : (p.dest[low >> 1] >> 4)) << 4;
  p.dest[low >> 1] = byte;
}

__global__ void __launch_bounds__(kNibbleThreads)
    write_slice_nibble_row_heads_kernel(NibbleSliceProblem p, int64_t rows) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kNibbleThreads + threadIdx.x;
  if (row >= rows) return;
  const RowStart s = row_start(p, row);
  if ((s.dest & 1) == 0) return;
  uint8_t *byte = p.dest + (s.dest >> 1);
  *byte = static_cast<uint8_t>((*byte & 0x0F) | (source_nibble(p, s.source, 0) << 4));
}

int64_t blocks_for(int64_t threads) { return (threads + kNibbleThreads - 1) / kNibbleThreads; }

}  // namespace

int write_slice_nibble_run(const NibbleSliceProblem &p, cudaStream_t stream) {
  int64_t rows = 1;
  for (int d = 0; d < p.rank - 1; ++d) rows *= p.extent[d];
  const int64_t width = p.extent[p.rank - 1];
  if (rows == 0 || width == 0) return 0;
  const int64_t bytes_per_row = (width + 1) / 2;
  const int64_t total = rows * bytes_per_row;
  if (blocks_for(total) > INT_MAX) return 3;
  write_slice_nibble_pairs_kernel<<<static_cast<unsigned>(blocks_for(total)), kNibbleThreads, 0, stream>>>(
      p, bytes_per_row, total);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return -static_cast<int>(e);
  write_slice_nibble_row_heads_kernel<<<static_cast<unsigned>(blocks_for(rows)), kNibbleThreads, 0, stream>>>(
      p, rows);
  return -static_cast<int>(cudaGetLastError());
}

}  // namespace baracuda::kernels
