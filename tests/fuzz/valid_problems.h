/*
 * A valid problem of every op (descriptor and a full argument array), shared
 * by the fuzz seed generator and the valgrind leak cycles. C99, valid C++.
 * Data pointers are fake addresses 1 MiB apart, so no two tensors overlap
 * (select and check never dereference them).
 */
#ifndef BARACUDA_TESTS_VALID_PROBLEMS_H
#define BARACUDA_TESTS_VALID_PROBLEMS_H

#include <stdint.h>
#include <string.h>

#include "baracuda/baracuda.h"

#define VALID_PROBLEM_MAX_ARGS 12

typedef struct valid_problem_t {
  const char *name;
  union {
    baracuda_op_header_t header;
    baracuda_pad_desc_t pad;
    baracuda_write_slice_desc_t slice;
    baracuda_causal_conv1d_desc_t conv;
    baracuda_alibi_desc_t alibi;
    baracuda_sdpa_desc_t sdpa;
  } desc;
  int32_t num_args;
  baracuda_arg_t args[VALID_PROBLEM_MAX_ARGS];
} valid_problem_t;

static void valid_problem_add_arg(valid_problem_t *p, int32_t role, baracuda_dtype_t dtype, int32_t rank,
                                  const int64_t *shape) {
  baracuda_arg_t *a = &p->args[p->num_args];
  a->role = role;
  a->tensor = baracuda_tensor_contiguous((void *)((uintptr_t)(p->num_args + 1) << 20), dtype, rank, shape);
  p->num_args++;
}

/* pad or pad backward of a [2, 5, 7] tensor padded by (0,0), (1,2), (2,3). */
static void valid_pad(valid_problem_t *p, int32_t op, baracuda_dtype_t dtype, int32_t mode) {
  const baracuda_pad_desc_t init = BARACUDA_PAD_DESC_INIT;
  const int64_t in[3] = {2, 5, 7}, lo[3] = {0, 1, 2}, hi[3] = {0, 2, 3};
  int64_t out[3];
  int d;
  p->desc.pad = init;
  p->desc.pad.header.op = op;
  p->desc.pad.dtype = dtype;
  p->desc.pad.mode = mode;
  p->desc.pad.rank = 3;
  for (d = 0; d < 3; ++d) {
    p->desc.pad.input_shape[d] = in[d];
    p->desc.pad.pad_low[d] = lo[d];
    p->desc.pad.pad_high[d] = hi[d];
    out[d] = in[d] + lo[d] + hi[d];
  }
  if (op == BARACUDA_OP_PAD_BACKWARD) {
    valid_problem_add_arg(p, BARACUDA_ARG_DY, dtype, 3, out);
    valid_problem_add_arg(p, BARACUDA_ARG_DX, dtype, 3, in);
  } else {
    valid_problem_add_arg(p, BARACUDA_ARG_X, dtype, 3, in);
    valid_problem_add_arg(p, BARACUDA_ARG_Y, dtype, 3, out);
  }
}

/* dest[1:4, 2:8] = source, dest [6, 10]. */
static void valid_write_slice(valid_problem_t *p, baracuda_dtype_t dtype) {
  const baracuda_write_slice_desc_t init = BARACUDA_WRITE_SLICE_DESC_INIT;
  const int64_t dest[2] = {6, 10}, start[2] = {1, 2}, end[2] = {4, 8}, source[2] = {3, 6};
  int d;
  p->desc.slice = init;
  p->desc.slice.dtype = dtype;
  p->desc.slice.rank = 2;
  for (d = 0; d < 2; ++d) {
    p->desc.slice.dest_shape[d] = dest[d];
    p->desc.slice.start[d] = start[d];
    p->desc.slice.end[d] = end[d];
  }
  valid_problem_add_arg(p, BARACUDA_ARG_DEST, dtype, 2, dest);
  valid_problem_add_arg(p, BARACUDA_ARG_SOURCE, dtype, 2, source);
}

/* B=2, C=8, L=17 (1 for the update), W=4, S=5, SiLU, WEIGHT, BIAS, DW and DB
 * in weight_dtype (0: the dtype), with every optional argument. */
static void valid_causal_conv1d(valid_problem_t *p, int32_t op, baracuda_dtype_t dtype, baracuda_dtype_t weight_dtype) {
  const baracuda_causal_conv1d_desc_t init = BARACUDA_CAUSAL_CONV1D_DESC_INIT;
  const baracuda_dtype_t w = weight_dtype ? weight_dtype : dtype;
  const int64_t B = 2, C = 8, W = 4, S = 5, L = op == BARACUDA_OP_CAUSAL_CONV1D_UPDATE ? 1 : 17;
  const int64_t seq[3] = {B, C, L}, taps[2] = {C, W}, chan[1] = {C}, ends[3] = {B, C, W - 1}, state[3] = {B, C, S};
  const int64_t seq_idx[2] = {B, L}, rows[1] = {B};
  p->desc.conv = init;
  p->desc.conv.header.op = op;
  p->desc.conv.dtype = dtype;
  p->desc.conv.weight_dtype = weight_dtype;
  p->desc.conv.activation = BARACUDA_ACTIVATION_SILU;
  p->desc.conv.batch = B;
  p->desc.conv.channels = C;
  p->desc.conv.seq_len = L;
  p->desc.conv.state_len = S;
  valid_problem_add_arg(p, BARACUDA_ARG_X, dtype, 3, seq);
  valid_problem_add_arg(p, BARACUDA_ARG_WEIGHT, w, 2, taps);
  valid_problem_add_arg(p, BARACUDA_ARG_BIAS, w, 1, chan);
  if (op == BARACUDA_OP_CAUSAL_CONV1D) {
    valid_problem_add_arg(p, BARACUDA_ARG_Y, dtype, 3, seq);
    valid_problem_add_arg(p, BARACUDA_ARG_INITIAL_STATES, dtype, 3, ends);
    valid_problem_add_arg(p, BARACUDA_ARG_FINAL_STATES, dtype, 3, ends);
    valid_problem_add_arg(p, BARACUDA_ARG_SEQ_IDX, BARACUDA_DTYPE_I32, 2, seq_idx);
  } else if (op == BARACUDA_OP_CAUSAL_CONV1D_BACKWARD) {
    valid_problem_add_arg(p, BARACUDA_ARG_INITIAL_STATES, dtype, 3, ends);
    valid_problem_add_arg(p, BARACUDA_ARG_SEQ_IDX, BARACUDA_DTYPE_I32, 2, seq_idx);
    valid_problem_add_arg(p, BARACUDA_ARG_DY, dtype, 3, seq);
    valid_problem_add_arg(p, BARACUDA_ARG_DFINAL_STATES, dtype, 3, ends);
    valid_problem_add_arg(p, BARACUDA_ARG_DX, dtype, 3, seq);
    valid_problem_add_arg(p, BARACUDA_ARG_DW, w, 2, taps);
    valid_problem_add_arg(p, BARACUDA_ARG_DB, w, 1, chan);
    valid_problem_add_arg(p, BARACUDA_ARG_DINITIAL_STATES, dtype, 3, ends);
  } else {
    valid_problem_add_arg(p, BARACUDA_ARG_Y, dtype, 3, seq);
    valid_problem_add_arg(p, BARACUDA_ARG_STATE, dtype, 3, state);
    valid_problem_add_arg(p, BARACUDA_ARG_CACHE_SEQLENS, BARACUDA_DTYPE_I32, 1, rows);
    valid_problem_add_arg(p, BARACUDA_ARG_CONV_STATE_INDICES, BARACUDA_DTYPE_I32, 1, rows);
  }
}

/* B=2, H=3, Q=5, K=9, symmetric and bottom-right, slopes [B, H] in the scores'
 * dtype, both backward outputs. */
static void valid_alibi(valid_problem_t *p, int32_t op, baracuda_dtype_t dtype) {
  const baracuda_alibi_desc_t init = BARACUDA_ALIBI_DESC_INIT;
  const int64_t scores[4] = {2, 3, 5, 9};
  p->desc.alibi = init;
  p->desc.alibi.header.op = op;
  p->desc.alibi.dtype = dtype;
  p->desc.alibi.slopes_dtype = dtype;
  p->desc.alibi.convention = BARACUDA_ALIBI_SYMMETRIC;
  p->desc.alibi.alignment = BARACUDA_ALIBI_BOTTOM_RIGHT;
  p->desc.alibi.per_batch_slopes = 1;
  p->desc.alibi.batch = scores[0];
  p->desc.alibi.heads = scores[1];
  p->desc.alibi.queries = scores[2];
  p->desc.alibi.keys = scores[3];
  if (op == BARACUDA_OP_ALIBI) {
    valid_problem_add_arg(p, BARACUDA_ARG_SCORES, dtype, 4, scores);
    valid_problem_add_arg(p, BARACUDA_ARG_SLOPES, dtype, 2, scores);
    valid_problem_add_arg(p, BARACUDA_ARG_Y, dtype, 4, scores);
  } else {
    valid_problem_add_arg(p, BARACUDA_ARG_DY, dtype, 4, scores);
    valid_problem_add_arg(p, BARACUDA_ARG_DSCORES, dtype, 4, scores);
    valid_problem_add_arg(p, BARACUDA_ARG_DSLOPES, dtype, 2, scores);
  }
}

/* B=2, Hq=4, Hkv=2 (GQA), Q=5, K=9, D=64, Dv=32, causal and bottom-right with
 * a window, symmetric ALiBi with [B, Hq] f32 slopes (f64 for f64), softcap,
 * every optional argument. */
static void valid_sdpa(valid_problem_t *p, int32_t op, baracuda_dtype_t dtype) {
  const baracuda_sdpa_desc_t init = BARACUDA_SDPA_DESC_INIT;
  const baracuda_dtype_t stats = dtype == BARACUDA_DTYPE_F64 ? BARACUDA_DTYPE_F64 : BARACUDA_DTYPE_F32;
  const int64_t q[4] = {2, 4, 5, 64}, k[4] = {2, 2, 9, 64}, v[4] = {2, 2, 9, 32}, out[4] = {2, 4, 5, 32};
  const int64_t lse[3] = {2, 4, 5}, slopes[2] = {2, 4};
  p->desc.sdpa = init;
  p->desc.sdpa.header.op = op;
  p->desc.sdpa.dtype = dtype;
  p->desc.sdpa.head_dim = 64;
  p->desc.sdpa.head_dim_v = 32;
  p->desc.sdpa.causal = 1;
  p->desc.sdpa.alignment = BARACUDA_SDPA_BOTTOM_RIGHT;
  p->desc.sdpa.alibi = BARACUDA_ALIBI_SYMMETRIC;
  p->desc.sdpa.per_batch_slopes = 1;
  p->desc.sdpa.softcap = 30.0f;
  p->desc.sdpa.window_left = 3;
  p->desc.sdpa.batch = 2;
  p->desc.sdpa.heads_q = 4;
  p->desc.sdpa.heads_kv = 2;
  p->desc.sdpa.queries = 5;
  p->desc.sdpa.keys = 9;
  valid_problem_add_arg(p, BARACUDA_ARG_Q, dtype, 4, q);
  valid_problem_add_arg(p, BARACUDA_ARG_K, dtype, 4, k);
  valid_problem_add_arg(p, BARACUDA_ARG_V, dtype, 4, v);
  valid_problem_add_arg(p, BARACUDA_ARG_OUT, dtype, 4, out);
  valid_problem_add_arg(p, BARACUDA_ARG_LSE, stats, 3, lse);
  valid_problem_add_arg(p, BARACUDA_ARG_SLOPES, stats, 2, slopes);
  if (op == BARACUDA_OP_SDPA_BACKWARD) {
    valid_problem_add_arg(p, BARACUDA_ARG_DOUT, dtype, 4, out);
    valid_problem_add_arg(p, BARACUDA_ARG_DQ, dtype, 4, q);
    valid_problem_add_arg(p, BARACUDA_ARG_DK, dtype, 4, k);
    valid_problem_add_arg(p, BARACUDA_ARG_DV, dtype, 4, v);
  }
}

/* Fills *p with the index-th problem; returns 0 once index is past the last. */
static int valid_problem(int index, valid_problem_t *p) {
  memset(p, 0, sizeof *p);
  switch (index) {
    case 0: p->name = "write_slice_f32"; valid_write_slice(p, BARACUDA_DTYPE_F32); break;
    case 1: p->name = "write_slice_bf16"; valid_write_slice(p, BARACUDA_DTYPE_BF16); break;
    case 2: p->name = "write_slice_u4"; valid_write_slice(p, BARACUDA_DTYPE_U4); break;
    case 3: p->name = "write_slice_complex64"; valid_write_slice(p, BARACUDA_DTYPE_COMPLEX64); break;
    case 4: p->name = "pad_constant_complex32"; valid_pad(p, BARACUDA_OP_PAD, BARACUDA_DTYPE_COMPLEX32, BARACUDA_PAD_CONSTANT); break;
    case 5: p->name = "pad_reflect_f16"; valid_pad(p, BARACUDA_OP_PAD, BARACUDA_DTYPE_F16, BARACUDA_PAD_REFLECT); break;
    case 6: p->name = "pad_replicate_u8"; valid_pad(p, BARACUDA_OP_PAD, BARACUDA_DTYPE_U8, BARACUDA_PAD_REPLICATE); break;
    case 7: p->name = "pad_circular_f64"; valid_pad(p, BARACUDA_OP_PAD, BARACUDA_DTYPE_F64, BARACUDA_PAD_CIRCULAR); break;
    case 8: p->name = "pad_backward_constant_f32"; valid_pad(p, BARACUDA_OP_PAD_BACKWARD, BARACUDA_DTYPE_F32, BARACUDA_PAD_CONSTANT); break;
    case 9: p->name = "pad_backward_reflect_bf16"; valid_pad(p, BARACUDA_OP_PAD_BACKWARD, BARACUDA_DTYPE_BF16, BARACUDA_PAD_REFLECT); break;
    case 10: p->name = "pad_backward_replicate_f16"; valid_pad(p, BARACUDA_OP_PAD_BACKWARD, BARACUDA_DTYPE_F16, BARACUDA_PAD_REPLICATE); break;
    case 11: p->name = "pad_backward_circular_f64"; valid_pad(p, BARACUDA_OP_PAD_BACKWARD, BARACUDA_DTYPE_F64, BARACUDA_PAD_CIRCULAR); break;
    case 12: p->name = "causal_conv1d_f32"; valid_causal_conv1d(p, BARACUDA_OP_CAUSAL_CONV1D, BARACUDA_DTYPE_F32, 0); break;
    case 13: p->name = "causal_conv1d_bf16_f32_weights"; valid_causal_conv1d(p, BARACUDA_OP_CAUSAL_CONV1D, BARACUDA_DTYPE_BF16, BARACUDA_DTYPE_F32); break;
    case 14: p->name = "causal_conv1d_backward_f32"; valid_causal_conv1d(p, BARACUDA_OP_CAUSAL_CONV1D_BACKWARD, BARACUDA_DTYPE_F32, 0); break;
    case 15: p->name = "causal_conv1d_backward_f64"; valid_causal_conv1d(p, BARACUDA_OP_CAUSAL_CONV1D_BACKWARD, BARACUDA_DTYPE_F64, 0); break;
    case 16: p->name = "causal_conv1d_update_f16_f32_weights"; valid_causal_conv1d(p, BARACUDA_OP_CAUSAL_CONV1D_UPDATE, BARACUDA_DTYPE_F16, BARACUDA_DTYPE_F32); break;
    case 17: p->name = "causal_conv1d_update_f64"; valid_causal_conv1d(p, BARACUDA_OP_CAUSAL_CONV1D_UPDATE, BARACUDA_DTYPE_F64, 0); break;
    case 18: p->name = "alibi_f32"; valid_alibi(p, BARACUDA_OP_ALIBI, BARACUDA_DTYPE_F32); break;
    case 19: p->name = "alibi_bf16"; valid_alibi(p, BARACUDA_OP_ALIBI, BARACUDA_DTYPE_BF16); break;
    case 20: p->name = "alibi_backward_f16"; valid_alibi(p, BARACUDA_OP_ALIBI_BACKWARD, BARACUDA_DTYPE_F16); break;
    case 21: p->name = "alibi_backward_f64"; valid_alibi(p, BARACUDA_OP_ALIBI_BACKWARD, BARACUDA_DTYPE_F64); break;
    case 22: p->name = "sdpa_bf16"; valid_sdpa(p, BARACUDA_OP_SDPA, BARACUDA_DTYPE_BF16); break;
    case 23: p->name = "sdpa_f64"; valid_sdpa(p, BARACUDA_OP_SDPA, BARACUDA_DTYPE_F64); break;
    case 24: p->name = "sdpa_backward_f16"; valid_sdpa(p, BARACUDA_OP_SDPA_BACKWARD, BARACUDA_DTYPE_F16); break;
    case 25: p->name = "sdpa_backward_f32"; valid_sdpa(p, BARACUDA_OP_SDPA_BACKWARD, BARACUDA_DTYPE_F32); break;
    case 26: p->name = "causal_conv1d_backward_bf16_f32_weights"; valid_causal_conv1d(p, BARACUDA_OP_CAUSAL_CONV1D_BACKWARD, BARACUDA_DTYPE_BF16, BARACUDA_DTYPE_F32); break;
    default: return 0;
  }
  return 1;
}

#endif /* BARACUDA_TESTS_VALID_PROBLEMS_H */
