/*
 * baracuda-kernels: scaled dot-product attention (SDPA), fused as in
 * FlashAttention (Dao et al., 2022-2023): the scores never reach memory.
 *
 * BARACUDA_OP_SDPA            out = softmax(s) v, per query row
 *   args: Q [B, Hq, Q, D], K [B, Hkv, K, D], V [B, Hkv, K, Dv], OUT [B, Hq, Q, Dv],
 *   LSE [B, Hq, Q] (optional output), SLOPES (needed with ALiBi, see below).
 *   Workspace: baracuda_plan_workspace_size() bytes, 0 but for the Hopper
 *   kernel at head sizes over 64 up to 128, which may share its last round of
 *   tiles out over its blocks and merge their partial rows there (up to
 *   about 18 MB).
 *
 * BARACUDA_OP_SDPA_BACKWARD   dq, dk, dv given dout
 *   args: Q, K, V, OUT, LSE (the forward's, required), DOUT [B, Hq, Q, Dv],
 *   SLOPES (with ALiBi); outputs DQ like Q, DK like K, DV like V, all three
 *   required and overwritten. dk and dv of a kv head shared by several query
 *   heads (GQA) are the sums over those heads. Workspace:
 *   baracuda_plan_workspace_size() bytes (rowsum(dout * out) per query row, and
 *   f32 accumulators where the kernel keeps them).
 *
 * The scores of query i and key j, in this order:
 *   s  = scale * dot(q[i], k[j])
 *   s  = softcap * tanh(s / softcap)            when softcap > 0 (Gemma 2)
 *   s += slope(b, h) * bias(i, j)               with ALiBi: the bias of the ALiBi op (alibi.h)
 *   s  = -inf where key j is masked for query i
 * and lse[b, h, i] = log(sum over j of exp(s)), the natural log of the row's sum
 * of exponentials of these final scores (bias included). A row that sees no key
 * gives out = 0 and lse = -inf, never NaN; its gradients are 0.
 *
 * Positions: i' = i (BARACUDA_SDPA_TOP_LEFT, PyTorch's is_causal) or
 * i' = i + K - Q (BARACUDA_SDPA_BOTTOM_RIGHT, FlashAttention's: the last query
 * faces the last key, as for a block of queries at the end of a KV cache). One
 * alignment serves the causal mask, the window and the ALiBi bias. Key j is
 * visible to query i when
 *   causal:        j <= i'
 *   window_left:   j >= i' - window_left     (when window_left >= 0)
 *   window_right:  j <= i' + window_right    (when window_right >= 0)
 *
 * GQA / MQA: query head h reads kv head h / (Hq / Hkv); Hq must be a multiple
 * of Hkv (INVALID_PROBLEM otherwise). A head stride of 0 on K or V (one kv head
 * seen as many) is accepted in the forward.
 *
 * ALiBi: alibi = BARACUDA_ALIBI_SIGNED (bias = j - i') or BARACUDA_ALIBI_SYMMETRIC
 * (bias = -|j - i'|); SLOPES [Hq], or [B, Hq] with per_batch_slopes = 1, any
 * strides, in f32 (f64 for f64 attention).
 *
 * dtypes: F16 and BF16 on tensor cores, products and sums in f32, P rounded to
 * the input dtype before the P v product (as FlashAttention does). F32: the
 * forward on tensor cores on sm 80, 90 and 100-103 (where tf32 MMAs far
 * outrun the f32 CUDA cores), each operand split into a tf32 part and its
 * remainder, big * big on a tf32 MMA and the two cross terms on a bf16 MMA, so
 * that every product of q k and of P v is good to about 2^-20 relative (the
 * remainders' own product is dropped); sums and the softmax in f32. Its error
 * stays within f32's 1e-5 of the float64 result (max error over max |out|).
 * Elsewhere, and for the backward, CUDA cores in f32. F32_STRICT: f32 where no
 * reduced-precision math is used, the CUDA-core kernels on every arch. F64 on
 * CUDA cores in f64. LSE is f32 (f64 for F64).
 * Head sizes: D and Dv multiples of 8 from 8 to 256, D != Dv allowed.
 * Layout: any strides on B, H and the sequence axis, so Q, K, V may be views
 * into one packed QKV buffer; stride 1 on the head-size axis (UNSUPPORTED
 * otherwise). LSE takes any strides.
 *
 * Empty problems: with B, Hq or Q = 0 nothing is written (the backward still
 * writes dk = dv = 0 when Q = 0 and K > 0: keys that no query sees); with
 * K = 0 and Q > 0 every row sees no key: out = 0, lse = -inf, dq = 0. Windows
 * wider than Q + K are unbounded. Outputs may share no byte with an input or
 * with another output (INVALID_PROBLEM); inputs may.
 *
 * Determinism: plan info says whether a plan repeats its results bit for
 * bit; with BARACUDA_SELECT_DETERMINISTIC select keeps only plans that do.
 * The library's own forward kernels do (and are bit-stable); cuDNN's forward
 * (below) and the f16/bf16 backward that sums dQ with atomics do not.
 *
 * Kernels (plan info's kernel_name names the one chosen): an sm_80 tensor-core
 * kernel (mma.sync, ldmatrix, multi-stage cp.async K/V tiles; with D or Dv
 * over 128, 8-warp tiles on GPUs whose blocks hold 192 KiB of shared
 * memory, sm 90 and 100-103), its sm_89
 * sibling (double-buffered K/V tiles, 256-thread blocks), the f32 forward on
 * tensor cores (sdpa_fwd_sm80_3xtf32), and a CUDA-core kernel for F32, F32_STRICT
 * and F64. target_sm 80 or 89 asks for that variant on any newer GPU;
 * F32_STRICT asks for the CUDA-core kernel. A Hopper forward for F16 and
 * BF16 (sdpa_fwd_sm90_wgmma: TMA, wgmma, warp-specialized; sm 90 only, in
 * builds whose archs include 90) serves every feature above but is not yet
 * chosen by select: the environment variable BARACUDA_FORCE_CANDIDATE=
 * sdpa_fwd_sm90_wgmma asks for it (tests and benchmarks). Views whose rows
 * are not 16-byte aligned run the sm_80 kernel under that plan.
 *
 * cuDNN (plan info's backend BARACUDA_BACKEND_CUDNN, kernel_name
 * "sdpa_fwd_cudnn_..." with cuDNN's engine): F16 and BF16 on a GPU where
 * libcudnn.so.9 loads (opened at run time; BARACUDA_CUDNN_LIBRARY names
 * another file), chosen first on sm 90 where the library's measured table
 * puts it ahead of the kernels above; BARACUDA_SELECT_BESPOKE_ONLY leaves it
 * out. Its graph is built at select, on the device (target_sm 0 only), for
 * dense [B, H, S, D] tensors; a run with other strides, pointers not 16-byte
 * aligned, or another current device runs the bespoke plan that select keeps
 * beside it, so every layout above stays served. It does not serve softcap,
 * ALiBi, empty extents, rows that see no key, nor the f16 backward with
 * shared kv heads (its dV misses our accuracy bound); select then moves on.
 * Its forward is not promised to repeat bit for bit (a decoding step's LSE
 * has differed between two runs), so with BARACUDA_SELECT_DETERMINISTIC the
 * forward runs the library's kernels. Its backward sums dQ with atomics
 * unless BARACUDA_SELECT_DETERMINISTIC asks for cuDNN's deterministic
 * algorithm. Not bit-stable (plan info says so).
 */
#ifndef BARACUDA_SDPA_H
#define BARACUDA_SDPA_H

#include "baracuda/alibi.h"
#include "baracuda/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Values of baracuda_sdpa_desc_t.alignment. */
#define BARACUDA_SDPA_TOP_LEFT 1
#define BARACUDA_SDPA_BOTTOM_RIGHT 2

typedef struct baracuda_sdpa_desc_t {
  baracuda_op_header_t header; /* BARACUDA_OP_SDPA or BARACUDA_OP_SDPA_BACKWARD */
  baracuda_dtype_t dtype;      /* q, k, v, out, dout, dq, dk, dv */
  int32_t head_dim;            /* D: a multiple of 8, 8 to 256 */
  int32_t head_dim_v;          /* Dv: a multiple of 8, 8 to 256; 0: the same as D */
  int32_t causal;              /* 0: no causal mask; 1: key j visible to query i when j <= i' */
  int32_t alignment;           /* BARACUDA_SDPA_TOP_LEFT (default) or _BOTTOM_RIGHT: i' for mask, window, ALiBi */
  int32_t alibi;               /* 0: none (default); BARACUDA_ALIBI_SIGNED or BARACUDA_ALIBI_SYMMETRIC */
  int32_t per_batch_slopes;    /* with ALiBi: 0, SLOPES [Hq]; 1, SLOPES [B, Hq] */
  float scale;                 /* finite; 0 (the default): 1 / sqrt(D) */
  float softcap;               /* 0 (the default): none; > 0: s = softcap * tanh(s / softcap) */
  int32_t reserved0;           /* 0 */
  int64_t window_left;         /* -1 (the default): unbounded; >= 0: keys j >= i' - window_left */
  int64_t window_right;        /* -1 (the default): unbounded; >= 0: keys j <= i' + window_right */
  int64_t batch;               /* B */
  int64_t heads_q;             /* Hq */
  int64_t heads_kv;            /* Hkv: divides Hq; 0: the same as Hq */
  int64_t queries;             /* Q */
  int64_t keys;                /* K */
} baracuda_sdpa_desc_t;

#define BARACUDA_SDPA_DESC_INIT                                                                               \
  {{sizeof(baracuda_sdpa_desc_t), BARACUDA_OP_SDPA}, 0, 0, 0, 0, BARACUDA_SDPA_TOP_LEFT, 0, 0, 0.0f, 0.0f, 0, -1, \
   -1, 0, 0, 0, 0, 0}
#define BARACUDA_SDPA_BACKWARD_DESC_INIT                                                                 \
  {{sizeof(baracuda_sdpa_desc_t), BARACUDA_OP_SDPA_BACKWARD}, 0, 0, 0, 0, BARACUDA_SDPA_TOP_LEFT, 0, 0, 0.0f, \
   0.0f, 0, -1, -1, 0, 0, 0, 0, 0}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BARACUDA_SDPA_H */
