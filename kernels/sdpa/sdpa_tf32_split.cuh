// f32 products on tf32 tensor cores at near-f32 accuracy: each operand x is
// split into big = tf32(x) and small = x - big, and
//   a b = a_big b_big + (a_big b_small + a_small b_big)   (a_small b_small dropped).
// a_big b_big is one tf32 MMA, exact in its products. The corrections, each
// 2^-11 of the product, take one bf16 m16n8k16 MMA that sums both over the
// same 8 k indices (bf16's 2^-9 on a 2^-11 term: about 2^-20 relative per
// product): two MMA issues a product where 3xTF32 takes three.
//
// Fragments follow mma.m16n8k8.tf32's layout, g = lane / 4, t = lane % 4:
// A (16 x 8) elements x0 (g, t), x1 (g + 8, t), x2 (g, t + 4), x3 (g + 8, t + 4);
// B (8 x 8) y0 (t, g), y1 (t + 4, g). The bf16 correction fragment puts the
// thread's k t and t + 4 at bf16 k 2t, 2t + 1 (big halves of A against small
// halves of B) and 8 + 2t, 9 + 2t (small against big): any order of k serves
// as long as A and B agree. The bf16 copies of the big halves are bf16(big),
// within 2^-9 of x as bf16(x) is.
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

// x = big + small, small exact.
struct Tf32Halves {
  float big, small;
};
__device__ __forceinline__ Tf32Halves tf32_halves(float x) {
  const float big = __uint_as_float(round_tf32(x));
  return {big, x - big};
}

// An A fragment: tf32 big halves and the bf16 correction operand
// [bf16(big) | bf16(small)].
struct SplitA {
  uint32_t big[4], lo[4];
};
// A B fragment: tf32 big halves and the bf16 correction operand [small | bf16(big)].
struct SplitB {
  uint32_t big[2], lo[2];
};

// From big halves x0..x3 (already tf32) and their small halves as bf16
// pairs (x0, x2) and (x1, x3).
__device__ __forceinline__ SplitA split_a_from_halves(float x0, float x1, float x2, float x3, uint32_t small02,
                                                      uint32_t small13) {
  return {{__float_as_uint(x0), __float_as_uint(x1), __float_as_uint(x2), __float_as_uint(x3)},
          {pack2<__nv_bfloat16>(x0, x2), pack2<__nv_bfloat16>(x1, x3), small02, small13}};
}

// From f32 values (P, split in registers).
__device__ __forceinline__ SplitA split_a(float x0, float x1, float x2, float x3) {
  const Tf32Halves h0 = tf32_halves(x0), h1 = tf32_halves(x1), h2 = tf32_halves(x2), h3 = tf32_halves(x3);
  return split_a_from_halves(h0.big, h1.big, h2.big, h3.big, pack2<__nv_bfloat16>(h0.small, h2.small),
                             pack2<__nv_bfloat16>(h1.small, h3.small));
}

// From big halves y0, y1 (already tf32) and their small halves as a bf16 pair.
__device__ __forceinline__ SplitB split_b_from_halves(float y0, float y1, uint32_t small01) {
  return {{__float_as_uint(y0), __float_as_uint(y1)}, {small01, pack2<__nv_bfloat16>(y0, y1)}};
}

// c += a_big b_small + a_small b_big.
__device__ __forceinline__ void mma_corrections(float (&c)[4], const SplitA &a, const SplitB &b) {
  mma_16816<__nv_bfloat16>(c, a.lo, b.lo[0], b.lo[1]);
}

// c += a_big b_big.
__device__ __forceinline__ void mma_big(float (&c)[4], const SplitA &a, const SplitB &b) {
  mma_1688_tf32(c, a.big, b.big[0], b.big[1]);
}

// acc[a][n] += A[a] B[n] for every pair: all corrections first, then the big
// products, so that back-to-back MMAs never wait on one another's sums.
template <int MAtoms, int N, int Blocks>
__device__ __forceinline__ void mma_split(float (&acc)[MAtoms][Blocks][4], const SplitA (&a)[MAtoms],
                                          const SplitB (&b)[N], int first_block) {
#pragma unroll
  for (int n = 0; n < N; ++n)
#pragma unroll
    for (int m = 0; m < MAtoms; ++m) mma_corrections(acc[m][first_block + n], a[m], b[n]);
#pragma unroll
  for (int n = 0; n < N; ++n)
#pragma unroll
    for (int m = 0; m < MAtoms; ++m) mma_big(acc[m][first_block + n], a[m], b[n]);
}

}  // namespace baracuda::kernels::sdpa_tc
