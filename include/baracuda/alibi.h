/*
 * baracuda-kernels: ALiBi, Attention with Linear Biases (Press et al., 2022).
 *
 * BARACUDA_OP_ALIBI            y[b,h,i,j] = scores[b,h,i,j] + slope(b,h) * bias(i, j)
 *   args: SCORES [B, H, Q, K], SLOPES (see below), Y [B, H, Q, K]. Y may be
 *   the same memory as SCORES, with the same strides (in place).
 *
 * BARACUDA_OP_ALIBI_BACKWARD   dscores = dy
 *                              dslopes(b,h) = sum over i, j (and b, for [H] slopes) of dy[b,h,i,j] * bias(i, j)
 *   args: DY [B, H, Q, K], then DSCORES [B, H, Q, K] and DSLOPES (the slopes'
 *   shape), either of which may be left out, not both. DSCORES may be the same
 *   memory as DY. One pass reads dy once, writes dscores and per-block partial
 *   sums into the workspace; a second small launch adds them in a fixed order.
 *   On sm_90 and later, when each slope's sum has at most 8 blocks (a decoding
 *   step: Q = 1, K up to 32768 in f32, 65536 in f16/bf16), it is one launch
 *   instead (candidate alibi_bwd_clusters): a thread-block cluster per slope
 *   adds its blocks' sums through their shared memory, in the same order, to
 *   the same bits as the two launches (candidate alibi_bwd; plan info's kernel
 *   name says which), and the plan needs no workspace.
 *   No atomics: deterministic and bit-stable (plan info says so).
 *   With Q * K = 0 (and B * H > 0) dslopes, sums of nothing, are written as
 *   0 by that second launch alone: the one empty problem that launches.
 *
 * The bias, i and j counting queries and keys from 0, with i' the query's
 * position on the key axis:
 *   convention  BARACUDA_ALIBI_SIGNED     bias = j - i'      (the ALiBi paper's causal form, cuDNN's)
 *               BARACUDA_ALIBI_SYMMETRIC  bias = -|j - i'|   (FlashAttention's, for attention without a mask)
 *   alignment   BARACUDA_ALIBI_TOP_LEFT      i' = i          (query 0 faces key 0)
 *               BARACUDA_ALIBI_BOTTOM_RIGHT  i' = i + K - Q  (the last query faces the last key: a block of
 *                                                             queries at the end of a KV cache, as in decoding)
 * These conventions and slope shapes are the library's one definition of
 * ALiBi: attention ops that fuse the bias take them as they are.
 *
 * Slopes: [H] (one slope per head, shared by every batch) or, with
 * per_batch_slopes = 1, [B, H]. Any strides, stride 0 included (one slope for
 * all). Their dtype (slopes_dtype) is f32 or the scores' dtype; f64 scores take
 * f64 slopes. DSLOPES has the slopes' shape and dtype; it is overwritten.
 *
 * dtypes: f32, f16, bf16, f64 for scores, y, dy and dscores; arithmetic in f32
 * (f64 for f64): y = round(float(scores) + float(slope) * float(bias)).
 * Layout: any strides on the outer axes B, H, Q; stride 1 on K (UNSUPPORTED
 * otherwise).
 *
 * Accuracy of dslopes: each slope's sum of N = Q * K (times B for [H] slopes)
 * products is formed in f32 (f64 for f64): each product exactly rounded, then
 * added in balanced trees within blocks of up to 2^12 products (2^13 for f16
 * and bf16) and in a fixed order across the P blocks of the slope, each of 256
 * threads adding a run of ceil(P / 256) partial sums before a last tree. The
 * error is then at most about (log2 N + 2 + P / 256) * eps * sum |dy * bias|
 * (eps = 2^-24 in f32, 2^-53 in f64), far under a sequential sum's N * eps; P /
 * 256 < 1 up to N = 2^20 products per slope. The tests check the bound at
 * K = 32768.
 */
#ifndef BARACUDA_ALIBI_H
#define BARACUDA_ALIBI_H

#include "baracuda/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Values of baracuda_alibi_desc_t.convention. */
#define BARACUDA_ALIBI_SIGNED 1
#define BARACUDA_ALIBI_SYMMETRIC 2

/* Values of baracuda_alibi_desc_t.alignment. */
#define BARACUDA_ALIBI_TOP_LEFT 1
#define BARACUDA_ALIBI_BOTTOM_RIGHT 2

typedef struct baracuda_alibi_desc_t {
  baracuda_op_header_t header; /* BARACUDA_OP_ALIBI or BARACUDA_OP_ALIBI_BACKWARD */
  baracuda_dtype_t dtype;       /* scores, y, dy, dscores */
  baracuda_dtype_t slopes_dtype; /* slopes and dslopes: BARACUDA_DTYPE_F32 or dtype; 0: f32 (f64 for f64) */
  int32_t convention;           /* BARACUDA_ALIBI_SIGNED (default) or _SYMMETRIC */
  int32_t alignment;            /* BARACUDA_ALIBI_TOP_LEFT (default) or _BOTTOM_RIGHT */
  int32_t per_batch_slopes;     /* 0: slopes [H]; 1: slopes [B, H] */
  int32_t reserved0;            /* 0 */
  int64_t batch;                /* B */
  int64_t heads;                /* H */
  int64_t queries;              /* Q */
  int64_t keys;                 /* K */
} baracuda_alibi_desc_t;

#define BARACUDA_ALIBI_DESC_INIT                                                                          \
  {{sizeof(baracuda_alibi_desc_t), BARACUDA_OP_ALIBI}, 0, 0, BARACUDA_ALIBI_SIGNED, BARACUDA_ALIBI_TOP_LEFT, 0, 0, \
   0, 0, 0, 0}
#define BARACUDA_ALIBI_BACKWARD_DESC_INIT                                                                     \
  {{sizeof(baracuda_alibi_desc_t), BARACUDA_OP_ALIBI_BACKWARD}, 0, 0, BARACUDA_ALIBI_SIGNED, BARACUDA_ALIBI_TOP_LEFT, \
   0, 0, 0, 0, 0, 0}

/*
 * The ALiBi paper's slopes for num_heads heads, written to out[0 .. num_heads):
 * for n a power of two, slope k (k = 1 .. n) is 2^(-8k/n); otherwise the
 * slopes of the largest power of two m < n, followed by every other slope of
 * 2m heads (2^(-4/m), 2^(-12/m), ...) until n are given. For n = 12: 2^-1,
 * 2^-2, ..., 2^-8, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5. Host code, no GPU.
 * INVALID_PROBLEM for num_heads < 1 or out NULL.
 */
BARACUDA_API baracuda_status_t baracuda_alibi_slopes(int32_t num_heads, float *out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BARACUDA_ALIBI_H */
