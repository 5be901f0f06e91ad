// The atomic mode's dq conversion at the end of the tensor-core backward's
// main kernel, in place of the pass after it that read the whole f32
// accumulator back from memory: the last block of a (b, kv head) to finish
// converts the dq rows of the kv head's query heads, from L2 where they
// mostly still are, while other SMs compute.
//
// A counter per (b, kv head), zeroed before the kernel, counts the key
// tiles done. Once every warp of a block has issued its last reductions (a
// block barrier), thread 0 fences (releasing them all: the barrier ordered
// the other warps' before its own) and adds 1; the block that brings it to
// the grid's key tiles fences again (acquiring every block's) and converts.
// Kept out of the main loop: code there took registers from the
// accumulators (a count per query tile spilled 44-204 B at D 128).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "sdpa/sdpa_backward_rows.cuh"
#include "sdpa/sdpa_problem.h"

namespace baracuda::kernels::sdpa {

__device__ __forceinline__ void fence_acq_rel_gpu() { asm volatile("fence.acq_rel.gpu;\n" ::: "memory"); }

// What the conversion reads of the problem.
struct DqConversionArgs {
  const float *dq_ws;
  void *dq;
  int64_t dq_stride_b, dq_stride_h, dq_stride_i;
  int64_t heads_q, heads_kv, queries;
  int head_dim;
};

// All threads of the block (Threads of them), after its dK/dV stores, in
// the atomic mode's grid (kv heads, key tiles, batch), whose indices it
// reads again; done: the counters.
template <class T, int Threads>
__device__ __forceinline__ void convert_dq_if_last(const DqConversionArgs a, int *done) {
  const int64_t head_kv = blockIdx.x, b = blockIdx.z, key_tiles = gridDim.y;
  __shared__ int last;
  __syncthreads();  // every warp's reductions issued
  if (threadIdx.x == 0) {
    fence_acq_rel_gpu();
    last = atomicAdd(done + b * a.heads_kv + head_kv, 1) == key_tiles - 1;
    if (last) fence_acq_rel_gpu();
  }
  __syncthreads();
  if (!last) return;
  // The kv head's query heads' rows are consecutive in the accumulator
  // ([B, Hq, Q, D] dense): group * Q rows from the first one's, a thread
  // eight columns of every rows_per_pass-th row. No 64-bit division: the
  // call to its subroutine made ptxas spill 60-160 B in the main loop.
  constexpr int C = kDqColumnsPerThread, U = 8;  // a thread's loads in flight
  const int per_row = a.head_dim / C, rows_per_pass = Threads / per_row;
  const int first_row = static_cast<int>(threadIdx.x) / per_row;
  if (first_row >= rows_per_pass) return;
  const int col = (static_cast<int>(threadIdx.x) - first_row * per_row) * C;
  // Hq < 2^32 (sdpa_backward_passes checks): a 32-bit division, inlined.
  const int64_t group = static_cast<uint32_t>(a.heads_q) / static_cast<uint32_t>(a.heads_kv);
  const int64_t rows = group * a.queries;
  const float *acc = a.dq_ws + (b * a.heads_q + head_kv * group) * a.queries * a.head_dim + col;
  T *out = static_cast<T *>(a.dq) + b * a.dq_stride_b + head_kv * group * a.dq_stride_h + col;
  int64_t r = first_row, h = 0, i = first_row;  // row r is row i of query head h of the group
  while (i >= a.queries) i -= a.queries, ++h;
  while (r < rows) {
    DqColumns v[U];
    T *to[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      to[u] = r < rows ? out + h * a.dq_stride_h + i * a.dq_stride_i : nullptr;
      if (to[u] != nullptr) v[u] = load_dq_columns(acc + r * a.head_dim);
      r += rows_per_pass, i += rows_per_pass;
      while (i >= a.queries) i -= a.queries, ++h;
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (to[u] != nullptr) store_dq_columns(v[u], to[u]);
  }
}

}  // namespace baracuda::kernels::sdpa
