// Shared-memory tiles of the CUDA-core attention kernels: rows of a [.., S, D]
// operand brought in with cp.async (zero-filled past the sequence's end), and
// the two register-tiled products every pass is made of. A block is a 16 x 16
// grid of threads (tx across columns, ty across rows, tx = lane % 16); a
// thread's rows are ty + 16 i and its columns tx + 16 j, its accumulator
// columns the 16-byte vectors tx + 16 k (sdpa_simt_traits.h).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "sdpa/sdpa_simt_traits.h"

namespace baracuda::kernels::sdpa_simt {

constexpr int kThreads = SdpaSimtTraits::kThreads;

// Elements of a 16-byte vector.
template <class T>
constexpr int kVec = 16 / static_cast<int>(sizeof(T));

template <class T>
struct Vec16;
template <>
struct Vec16<float> { using type = float4; };
template <>
struct Vec16<double> { using type = double2; };

// One 16-byte vector of shared memory as elements.
template <class T>
__device__ __forceinline__ void load_vec(const T *p, T (&out)[kVec<T>]) {
  const typename Vec16<T>::type v = *reinterpret_cast<const typename Vec16<T>::type *>(p);
  if constexpr (kVec<T> == 4) {
    out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
  } else {
    out[0] = v.x, out[1] = v.y;
  }
}

// Copies Bytes from global to shared memory asynchronously; when !valid,
// writes zeros instead (src-size 0: nothing is read).
template <int Bytes>
__device__ __forceinline__ void copy_async(void *smem, const void *global, bool valid) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const int src_bytes = valid ? Bytes : 0;
  if constexpr (Bytes == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(global), "r"(src_bytes));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(global), "n"(Bytes),
                 "r"(src_bytes));
}
__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::); }
// Waits until at most Pending of the committed groups are still in flight.
template <int Pending>
__device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
}

// The rows of one (b, h) of a [B, H, S, width] tensor: address of row 0,
// stride of S, and whether every row starts 16-byte aligned (else elements
// are copied one by one).
template <class T>
struct RowSource {
  const T *data;
  int64_t stride;
  int64_t length;  // S: rows past it read as zeros
  bool vec;
};

// Starts copying rows [row0, row0 + R) (width elements each) to smem with
// row pitch ld. The caller commits and waits.
template <class T, int R>
__device__ __forceinline__ void load_rows(T *smem, int ld, const RowSource<T> &src, int64_t row0, int width) {
  constexpr int W = kVec<T>;
  const int vecs = width / W, total = R * vecs;
  for (int k = threadIdx.x; k < total; k += kThreads) {
    const int r = k / vecs, c = (k - r * vecs) * W;
    const bool valid = row0 + r < src.length;
    const T *g = src.data + (valid ? (row0 + r) * src.stride + c : 0);
    T *s = smem + r * ld + c;
    if (src.vec) {
      copy_async<16>(s, g, valid);
    } else {
#pragma unroll
      for (int e = 0; e < W; ++e) copy_async<sizeof(T)>(s + e, g + e, valid);
    }
  }
}

// s[i][j] = dot(a[ty + 16 i][0 .. depth), b[tx + 16 j][0 .. depth)), depth a
// multiple of the vector (D and Dv are multiples of 8); in order of d (bit-stable).
template <class T, int TM, int TN>
__device__ __forceinline__ void dot_rows(T (&s)[TM][TN], const T *a, int lda, const T *b, int ldb, int depth) {
  constexpr int W = kVec<T>;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) s[i][j] = T(0);
#pragma unroll 1
  for (int d = 0; d < depth; d += W) {
    T bv[TN][W];
#pragma unroll
    for (int j = 0; j < TN; ++j) load_vec(b + (tx + 16 * j) * ldb + d, bv[j]);
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      T av[W];
      load_vec(a + (ty + 16 * i) * lda + d, av);
#pragma unroll
      for (int e = 0; e < W; ++e)
#pragma unroll
        for (int j = 0; j < TN; ++j) s[i][j] = fma(av[e], bv[j][e], s[i][j]);
    }
  }
}

// acc[i][k][w] += sum over n < N of a[ty + 16 i][n] * x[n][(tx + 16 k) W + w],
// for the column vectors below vecs (the head size / W); in order of n.
template <class T, int TM, int KC, int N>
__device__ __forceinline__ void mul_rows(T (&acc)[TM][KC][kVec<T>], const T *a, int lda, const T *x, int ldx,
                                         int vecs) {
  constexpr int W = kVec<T>;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
#pragma unroll 2
  for (int n = 0; n < N; n += W) {
    T av[TM][W];
#pragma unroll
    for (int i = 0; i < TM; ++i) load_vec(a + (ty + 16 * i) * lda + n, av[i]);
#pragma unroll
    for (int e = 0; e < W; ++e)
#pragma unroll
      for (int k = 0; k < KC; ++k) {
        if (tx + 16 * k >= vecs) continue;
        T xv[W];
        load_vec(x + (n + e) * ldx + (tx + 16 * k) * W, xv);
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int w = 0; w < W; ++w) acc[i][k][w] = fma(av[i][e], xv[w], acc[i][k][w]);
      }
  }
}

// The rows of one (b, h) of an output [B, H, S, width] tensor.
template <class T>
struct RowSink {
  T *data;
  int64_t stride;
  int64_t length;
  bool vec;
};

// Writes rows [row0, row0 + 16 TM) (those below dst.length) of a thread's
// accumulator, times factor, to dst.
template <class T, int TM, int KC>
__device__ __forceinline__ void store_rows(const RowSink<T> &dst, int64_t row0, int vecs,
                                           const T (&acc)[TM][KC][kVec<T>], const T (&factor)[TM]) {
  constexpr int W = kVec<T>;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int64_t row = row0 + ty + 16 * i;
    if (row >= dst.length) continue;
#pragma unroll
    for (int k = 0; k < KC; ++k) {
      if (tx + 16 * k >= vecs) continue;
      T *g = dst.data + row * dst.stride + (tx + 16 * k) * W;
      T v[W];
#pragma unroll
      for (int w = 0; w < W; ++w) v[w] = acc[i][k][w] * factor[i];
      if (dst.vec) {
        typename Vec16<T>::type packed;
        if constexpr (W == 4) packed = {v[0], v[1], v[2], v[3]};
        else packed = {v[0], v[1]};
        *reinterpret_cast<typename Vec16<T>::type *>(g) = packed;
      } else {
#pragma unroll
        for (int w = 0; w < W; ++w) g[w] = v[w];
      }
    }
  }
}

}  // namespace baracuda::kernels::sdpa_simt
