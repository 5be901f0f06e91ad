// f32 products on tf32 tensor cores at near-f32 accuracy: each operand x is
// split into big = tf32(x) and small = x - big, and
//   a b = a_big b_big + (a_big b_small + a_small b_big)   (a_small b_small dropped).
// a_big b_big is one tf32 MMA, exact in its products. The corrections, each
// 2^-11 of the product, take either two more tf32 MMAs (3xTF32: about 2^-22
// relative per product) or, with Bf16Corrections, one bf16 m16n8k16 MMA that
// sums both over the same 8 k indices (bf16's 2^-9 on a 2^-11 term: about
// 2^-20): two MMA issues a product instead of three.
//
// Fragments follow mma.m16n8k8.tf32's layout, g = lane / 4, t = lane % 4:
// A (16 x 8) elements x0 (g, t), x1 (g + 8, t), x2 (g, t + 4), x3 (g + 8, t + 4);
// B (8 x 8) y0 (t, g), y1 (t + 4, g). The bf16 correction fragment puts the
// thread's k t and t + 4 at bf16 k 2t, 2t + 1 (big halves of A against small
// halves of B) and 8 + 2t, 9 + 2t (small against big): any order of k serves
// as long as A and B agree.
#pragma once

#include <cuda_bf16.h>

#include <cstdint>

#include "sdpa/sdpa_tc_primitives.cuh"

namespace baracuda::kernels::sdpa_tc {

// x's bits rounded to the nearest tf32, ties away from zero (cvt.rna's
// rounding): the carry of half a tf32 unit into bit 13, the 13 bits below
// cleared. Equal to cvt.rna.tf32.f32 for every finite x and for inf; two
// integer instructions where ptxas expands cvt.rna into five (it adds a
// NaN / inf guard, and NaN still propagates here through x - big).
__device__ __forceinline__ uint32_t round_tf32(float x) { return (__float_as_uint(x) + 0x1000u) & 0xffffe000u; }

// An A fragment: tf32 big halves and the correction operand (tf32 small
// halves, or the bf16 [big | small] fragment).
struct SplitA {
  uint32_t big[4], lo[4];
};
struct SplitB {
  uint32_t big[2], lo[2];
};

template <bool Bf16Corrections>
__device__ __forceinline__ SplitA split_a(float x0, float x1, float x2, float x3) {
  const float x[4] = {x0, x1, x2, x3};
  SplitA f;
  float small[4];
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    f.big[e] = round_tf32(x[e]);
    small[e] = x[e] - __uint_as_float(f.big[e]);
  }
  if constexpr (Bf16Corrections) {
    f.lo[0] = pack2<__nv_bfloat16>(x[0], x[2]);
    f.lo[1] = pack2<__nv_bfloat16>(x[1], x[3]);
    f.lo[2] = pack2<__nv_bfloat16>(small[0], small[2]);
    f.lo[3] = pack2<__nv_bfloat16>(small[1], small[3]);
  } else {
#pragma unroll
    for (int e = 0; e < 4; ++e) f.lo[e] = round_tf32(small[e]);
  }
  return f;
}

template <bool Bf16Corrections>
__device__ __forceinline__ SplitB split_b(float y0, float y1) {
  SplitB f;
  f.big[0] = round_tf32(y0);
  f.big[1] = round_tf32(y1);
  const float small0 = y0 - __uint_as_float(f.big[0]), small1 = y1 - __uint_as_float(f.big[1]);
  if constexpr (Bf16Corrections) {
    f.lo[0] = pack2<__nv_bfloat16>(small0, small1);
    f.lo[1] = pack2<__nv_bfloat16>(y0, y1);
  } else {
    f.lo[0] = round_tf32(small0);
    f.lo[1] = round_tf32(small1);
  }
  return f;
}

// c += a_big b_small + a_small b_big.
template <bool Bf16Corrections>
__device__ __forceinline__ void mma_corrections(float (&c)[4], const SplitA &a, const SplitB &b) {
  if constexpr (Bf16Corrections) {
    mma_16816<__nv_bfloat16>(c, a.lo, b.lo[0], b.lo[1]);
  } else {
    mma_1688_tf32(c, a.lo, b.big[0], b.big[1]);
    mma_1688_tf32(c, a.big, b.lo[0], b.lo[1]);
  }
}

// c += a_big b_big.
__device__ __forceinline__ void mma_big(float (&c)[4], const SplitA &a, const SplitB &b) {
  mma_1688_tf32(c, a.big, b.big[0], b.big[1]);
}

// acc[a][n] += A[a] B[n] for every pair: all corrections first, then the big
// products, so that back-to-back MMAs never wait on one another's sums.
template <bool Bf16Corrections, int MAtoms, int N, int Blocks>
__device__ __forceinline__ void mma_split(float (&acc)[MAtoms][Blocks][4], const SplitA (&a)[MAtoms],
                                          const SplitB (&b)[N], int first_block) {
#pragma unroll
  for (int n = 0; n < N; ++n)
#pragma unroll
    for (int m = 0; m < MAtoms; ++m) mma_corrections<Bf16Corrections>(acc[m][first_block + n], a[m], b[n]);
#pragma unroll
  for (int n = 0; n < N; ++n)
#pragma unroll
    for (int m = 0; m < MAtoms; ++m) mma_big(acc[m][first_block + n], a[m], b[n]);
}

}  // namespace baracuda::kernels::sdpa_tc
