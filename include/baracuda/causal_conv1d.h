/*
 * baracuda-kernels: causal conv1d, the depthwise causal 1-D convolution that
 * Mamba-style models run between the input projection and the SSM.
 *
 * With x padded on the left by W-1 values (INITIAL_STATES when given, else
 * zeros) and act the descriptor's activation:
 *
 *   y[b, c, t] = act( sum_{k < W} weight[c, k] * x_pad[b, c, t - (W-1) + k] + bias[c] )
 *
 * BARACUDA_OP_CAUSAL_CONV1D   forward
 *   args: X [B, C, L]; WEIGHT [C, W]; BIAS [C] (optional); Y [B, C, L];
 *   INITIAL_STATES [B, C, W-1] (optional: the W-1 inputs before x, for
 *   chunked prefill); FINAL_STATES [B, C, W-1] (optional output: the last W-1
 *   inputs of x_pad, to carry into the next chunk); SEQ_IDX [B, L] of I32
 *   (optional: packed sequences, below).
 *
 * SEQ_IDX: several sequences packed along L in one row (as Mamba-2 trains on
 * packed batches), seq_idx[b, t] naming timestep t's sequence; a negative id
 * marks padding. An input reaches an output only within one sequence: with
 * id(t) = seq_idx[b, t] for t >= 0 and id(t) = seq_idx[b, 0] for the padded
 * t < 0,
 *
 *   y[b, c, t] = act( sum_{k < W} [id(t') == id(t)] * weight[c, k] * x_pad[b, c, t'] + bias[c] )
 *                where id(t) >= 0, and 0 where id(t) < 0 (padding),
 *   t' = t - (W-1) + k, [cond] = 1 where cond holds, else 0.
 *
 * Ids are compared for equality only (any int32), and padding's outputs are
 * 0, as Tri Dao's causal-conv1d does (his varlen tests). INITIAL_STATES
 * therefore feed the row's first sequence alone (the one at t = 0); every
 * later sequence starts on zeros. FINAL_STATES[b, c, j] is
 * x_pad[b, c, L - (W-1) + j] where id(L - (W-1) + j) == id(L-1) >= 0, else 0:
 * the last W-1 inputs of the row's last sequence, zero-filled where it is
 * shorter, all 0 where the row ends in padding (reaching into INITIAL_STATES
 * only where L < W-1 and id(L-1) == id(0)).
 * The backward takes the same SEQ_IDX and differentiates this function: dx,
 * DW, DB and DINITIAL_STATES see the same boundaries. Every layout is
 * served; channels-last keeps its staged kernels, [B, C, L] with SEQ_IDX
 * runs an element-wise one (lower bandwidth).
 *
 * BARACUDA_OP_CAUSAL_CONV1D_BACKWARD   gradients, given DY [B, C, L]
 *   args: X, WEIGHT, BIAS (optional; as in the forward, SiLU's derivative is
 *   taken at the recomputed pre-activation), INITIAL_STATES (optional),
 *   SEQ_IDX (optional, as in the forward), DY;
 *   outputs DX [B, C, L]; DW [C, W] (optional); DB [C] (optional, needs BIAS);
 *   DINITIAL_STATES [B, C, W-1] (optional: the gradient of the W-1 inputs
 *   before x, whether they came from INITIAL_STATES or the zero padding);
 *   DFINAL_STATES [B, C, W-1] (optional input: the gradient arriving on the
 *   forward's FINAL_STATES, added to DX of the last W-1 inputs, and to
 *   DINITIAL_STATES where L < W-1 makes the final states reach into the
 *   initial states). Outputs are overwritten. DW and DB are reduced with no
 *   atomics, through the workspace in a fixed order: deterministic and
 *   bit-stable.
 *   Workspace: baracuda_plan_workspace_size() bytes, about
 *   B * ceil(L / 256) * C * (W+1) accumulators (up to 8 times as many for
 *   small problems, whose chunks of L are shorter so that they fill the GPU).
 *
 * BARACUDA_OP_CAUSAL_CONV1D_UPDATE   one decoding step (or n tokens)
 *   args: X [B, C, n] (or [B, C] when n is 1); WEIGHT; BIAS (optional);
 *   Y like X; STATE [B, C, S] (or [P, C, S], below), S = state_len >= W-1,
 *   updated in place;
 *   CACHE_SEQLENS [B] of I32 (optional); CONV_STATE_INDICES [B] of I32
 *   (optional: continuous batching over a pool of states).
 *   Without CACHE_SEQLENS, STATE holds the last S inputs: the window before
 *   token 0 is its last W-1 entries, and after the step it is shifted left by
 *   n with the new inputs at its end. With CACHE_SEQLENS, STATE is a circular
 *   buffer: token i is written at (cache_seqlens[b] + i) mod S and the window
 *   before token 0 is the W-1 entries before cache_seqlens[b] mod S, cyclically;
 *   the caller advances cache_seqlens. y matches the forward run over the
 *   concatenated sequence.
 *   With CONV_STATE_INDICES, STATE is a pool [P, C, S] of any P: batch row b
 *   reads and writes state row indices[b] (with CACHE_SEQLENS too). A
 *   negative index marks a padding row: it is skipped, its Y left untouched
 *   and no state touched. An index >= P is the caller's bug, not checked on
 *   the host (that would cost a synchronization): such a row is skipped
 *   like a padding row. Two rows naming one state row race.
 *
 * dtypes: F32, F16, BF16, F64 (CACHE_SEQLENS, CONV_STATE_INDICES, SEQ_IDX
 * I32). X, Y, DY, DX and the state tensors have the descriptor's dtype;
 * WEIGHT, BIAS, DW and DB have weight_dtype, which is the dtype itself or,
 * for F16 and BF16, F32 (as Mamba trains: parameters and their gradients in
 * f32, activations in 16 bits). Accumulated in f32 (f64 for F64);
 * deterministic. Widths served: 2 to 8, every op (others UNSUPPORTED; below
 * 1 INVALID_PROBLEM). Any strides: contiguous [B, C, L] and channels-last
 * (stride 1 along C, memory [B, L, C]) take vectorized kernels (16-byte
 * aligned rows, L or C a multiple of the vector), other layouts a general
 * one. Y may not be X (no in-place).
 */
#ifndef BARACUDA_CAUSAL_CONV1D_H
#define BARACUDA_CAUSAL_CONV1D_H

#include "baracuda/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BARACUDA_ACTIVATION_NONE 0
#define BARACUDA_ACTIVATION_SILU 1 /* x * sigmoid(x) */

/* One descriptor serves the three ops; header.op says which. */
typedef struct baracuda_causal_conv1d_desc_t {
  baracuda_op_header_t header;
  baracuda_dtype_t dtype;
  int32_t width;      /* W */
  int32_t activation; /* BARACUDA_ACTIVATION_* */
  /* WEIGHT, BIAS, DW, DB's dtype: 0 (the default) means dtype; else dtype
     itself, or BARACUDA_DTYPE_F32 when dtype is F16 or BF16. */
  baracuda_dtype_t weight_dtype;
  int64_t batch;      /* B */
  int64_t channels;   /* C */
  int64_t seq_len;    /* L; for the update, n new tokens per sequence */
  int64_t state_len;  /* the update's S (>= W-1); ignored by the others */
} baracuda_causal_conv1d_desc_t;

#define BARACUDA_CAUSAL_CONV1D_DESC_INIT \
  {{sizeof(baracuda_causal_conv1d_desc_t), BARACUDA_OP_CAUSAL_CONV1D}, 0, 4, BARACUDA_ACTIVATION_NONE, 0, 0, 0, 0, 0}
#define BARACUDA_CAUSAL_CONV1D_BACKWARD_DESC_INIT                                                      \
  {{sizeof(baracuda_causal_conv1d_desc_t), BARACUDA_OP_CAUSAL_CONV1D_BACKWARD}, 0, 4, BARACUDA_ACTIVATION_NONE, 0, \
   0, 0, 0, 0}
#define BARACUDA_CAUSAL_CONV1D_UPDATE_DESC_INIT                                                      \
  {{sizeof(baracuda_causal_conv1d_desc_t), BARACUDA_OP_CAUSAL_CONV1D_UPDATE}, 0, 4, BARACUDA_ACTIVATION_NONE, 0, \
   0, 0, 1, 3}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BARACUDA_CAUSAL_CONV1D_H */
