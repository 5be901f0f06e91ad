// The staged dy rows of pad backward's tiles as the sums read them: a
// dy row's copies of a dx column, 16 bytes of shared memory from any
// element, and a vector across two rows' end from two such.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/accumulate.cuh"
#include "pad/pad_backward_copies.cuh"

namespace baracuda::kernels {

// Adds a dy row's copies of dx column c (add_copies; add_run: as copy_run
// gives them) to sum, in ascending order.
// Replicate's edge cells sum runs of a whole pad: their loads are issued
// eight at a time ahead of the adds (the same adds, in order), so that a
// long run waits on the adds' chain rather than on a shared load each.
template <class T, IndexMap M, class A>
__device__ __forceinline__ void add_run(A &sum, const T *row, const CopyRunOf<int32_t> &run) {
  if (run.before >= 0) sum += Accum<T>::load(row[run.before]);
  int32_t j = run.begin;
  if constexpr (M == IndexMap::Replicate) {
    constexpr int kAhead = 8;
    for (; j + kAhead <= run.end; j += kAhead) {
      T x[kAhead];
#pragma unroll
      for (int e = 0; e < kAhead; ++e) x[e] = row[j + e];
#pragma unroll
      for (int e = 0; e < kAhead; ++e) sum += Accum<T>::load(x[e]);
    }
  }
  for (; j < run.end; ++j) sum += Accum<T>::load(row[j]);
  if (run.after >= 0) sum += Accum<T>::load(row[run.after]);
}

template <class T, IndexMap M, class A>
__device__ __forceinline__ void add_copies(A &sum, const T *row, int32_t c, int32_t lo, int32_t n, int32_t m) {
  add_run<T, M>(sum, row, copy_run<M>(c, lo, n, m));
}

// The 16 bytes of the slots from element `elem` on (any phase of the
// element width): 32-bit loads (four, five where elements are narrower than
// a word) and funnel shifts, the same instructions at every phase, so that a
// warp whose rows alternate phase (rank 5's dy rows of 264 bytes) runs one
// path. Session 21 (H200): 3-7 points of copy ahead of two aligned 16-byte
// loads and a switch on the phase on the rank-5 rows despite 4-way bank
// conflicts, 1-2 behind on some 16-bit rows of 1 KiB and more (one phase).
template <int Bytes>
__device__ __forceinline__ uint4 staged_vector(const uint4 *slots, int32_t elem) {
  const int32_t byte = elem * Bytes;
  const uint32_t *w = reinterpret_cast<const uint32_t *>(slots) + (byte >> 2);
  if constexpr (Bytes >= 4) {
    return make_uint4(w[0], w[1], w[2], w[3]);
  } else {
    const uint32_t bits = (byte & 3) * 8, x4 = w[4];
    return make_uint4(__funnelshift_r(w[0], w[1], bits), __funnelshift_r(w[1], w[2], bits),
                      __funnelshift_r(w[2], w[3], bits), __funnelshift_r(w[3], x4, bits));
  }
}

// The 16 bytes of dx a vector takes from the folded slots of two
// one-source rows: its first `split_bytes` from `lo`, the rest from `hi`.
__device__ __forceinline__ uint4 blend16(uint4 lo, uint4 hi, int32_t split_bytes) {
  const uint32_t a[4] = {lo.x, lo.y, lo.z, lo.w}, b[4] = {hi.x, hi.y, hi.z, hi.w};
  uint32_t w[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const int32_t keep = split_bytes - 4 * k;  // bytes of word k from lo
    const uint32_t mask = keep >= 4 ? 0xffffffffu : keep <= 0 ? 0u : (1u << (8 * keep)) - 1;
    w[k] = (a[k] & mask) | (b[k] & ~mask);
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

}  // namespace baracuda::kernels
