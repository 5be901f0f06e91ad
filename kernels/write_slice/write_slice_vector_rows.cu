// write_slice's vector-rows copy (write_slice_vector_rows.h): vector i of the
// window is column i % row_vectors of row i / row_vectors; a thread's K
// vectors, a block's width apart, are all loaded before any is stored.
#include <cuda_runtime.h>

#include <climits>

#include "common/rows_tiling.cuh"
#include "write_slice/write_slice_kernels.h"

namespace baracuda::kernels {

namespace {

constexpr int kThreads = VectorRowsTraits::kThreads;

// The offsets, in vectors, of vector i in the window and in the source; a
// multiply and a shift where every index is under 2^31 (a 64-bit division is
// some hundred instructions, a 32-bit one twenty, all before the first load).
// OneOuter: rows along one axis (a KV-cache append's, B and H merged), with
// no walk over the outer axes, whose code (a division each) would stand
// before the first load.
template <bool OneOuter>
__device__ __forceinline__ void vector_offsets(const VectorRowsCopy &v, int64_t i, bool narrow, int64_t &out,
                                               int64_t &in) {
  int64_t row, col;
  if (narrow) {
    const uint32_t r = fast_divide(static_cast<uint32_t>(i), v.row_div);
    row = r, col = static_cast<uint32_t>(i) - r * static_cast<uint32_t>(v.row_vectors);
  } else {
    row = i / v.row_vectors, col = i - row * v.row_vectors;
  }
  out = col, in = col;
  if constexpr (OneOuter) {
    out += row * v.out_stride[0];
    in += row * v.in_stride[0];
    return;
  }
  RowCoords rc(row, v.extent, v.outer);
#pragma unroll 1
  for (int d = v.outer - 1; d >= 0; --d) {
    const int64_t c = d == 0 ? rc.rest : rc.next(v.extent[d]);
    out += c * v.out_stride[d];
    in += c * v.in_stride[d];
  }
}

template <int K, bool OneOuter>
__global__ void __launch_bounds__(kThreads) vector_rows_kernel(VectorRowsCopy v) {
  const int64_t first = static_cast<int64_t>(blockIdx.x) * (kThreads * K) + threadIdx.x;
  const bool narrow = v.vectors < INT32_MAX;
  const uint4 *in = static_cast<const uint4 *>(v.in);
  uint4 *out = static_cast<uint4 *>(v.out);
  uint4 vals[K];
  int64_t dest[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int64_t i = first + k * kThreads;
    if (i >= v.vectors) break;
    int64_t src;
    vector_offsets<OneOuter>(v, i, narrow, dest[k], src);
    vals[k] = in[src];
  }
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if (first + k * kThreads >= v.vectors) break;
    out[dest[k]] = vals[k];
  }
}

template <int K>
int launch(const VectorRowsCopy &v, cudaStream_t stream) {
  const int64_t blocks = (v.vectors + kThreads * K - 1) / (kThreads * K);
  if (blocks > INT_MAX) return 3;  // UNSUPPORTED: over 2^31 blocks (2^41 bytes)
  if (v.outer == 1) {
    vector_rows_kernel<K, true><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(v);
  } else {
    vector_rows_kernel<K, false><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(v);
  }
  return -static_cast<int>(cudaGetLastError());
}

}  // namespace

int write_slice_vector_rows_run(const VectorRowsCopy &v, cudaStream_t stream) {
  if (v.vectors == 0) return 0;
  return vector_rows_per_thread(v.vectors) == 1 ? launch<1>(v, stream)
                                                : launch<VectorRowsTraits::kVectorsPerThread>(v, stream);
}

}  // namespace baracuda::kernels
