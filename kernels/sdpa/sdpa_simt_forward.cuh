// The CUDA-core attention forward (FlashAttention's online softmax), in the
// input's precision. A block takes `rows` queries of one (b, h) with Q in
// shared memory and walks the key tiles its rows may see: K and V tiles come
// by cp.async, V's while S = Q K^T is computed and the next K's while
// O += P V is, each thread holding a block of S and of O in registers.
// Instantiated per dtype by sdpa_simt_forward_<dtype>.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "sdpa/sdpa_simt_launch.cuh"
#include "sdpa/sdpa_simt_scores.cuh"
#include "sdpa/sdpa_simt_tiles.cuh"

namespace baracuda::kernels::sdpa_simt {

// The per-row softmax state lives with the rows' threads: the running max
// (the same in the 16 threads of a row) and each thread's part of the sum.
template <class T, int TM>
struct RowState {
  T max[TM], sum[TM];
};

// The max over a row's 16 threads (lanes that differ in their low 4 bits).
template <class T>
__device__ __forceinline__ T row_max(T v) {
#pragma unroll
  for (int off = 1; off < 16; off *= 2) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, off));
  return v;
}
template <class T>
__device__ __forceinline__ T row_sum(T v) {
#pragma unroll
  for (int off = 1; off < 16; off *= 2) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

// Folds a tile of scores into the state: s becomes P = exp(s - max), O and
// the sums are rescaled to the new max. A row with no visible score so far
// keeps max -inf and exponentiates against 0 (every term is 0).
template <class T, int TM, int TN, int KC>
__device__ __forceinline__ void online_softmax(T (&s)[TM][TN], RowState<T, TM> &st, T (&o)[TM][KC][kVec<T>]) {
#pragma unroll
  for (int r = 0; r < TM; ++r) {
    T tile_max = s[r][0];
#pragma unroll
    for (int c = 1; c < TN; ++c) tile_max = fmax(tile_max, s[r][c]);
    const T new_max = fmax(st.max[r], row_max(tile_max));
    const T base = new_max == -INFINITY ? T(0) : new_max;
    const T alpha = exp(st.max[r] - base);
    st.max[r] = new_max;
    T sum = T(0);
#pragma unroll
    for (int c = 0; c < TN; ++c) {
      s[r][c] = exp(s[r][c] - base);
      sum += s[r][c];
    }
    st.sum[r] = st.sum[r] * alpha + sum;
#pragma unroll
    for (int k = 0; k < KC; ++k)
#pragma unroll
      for (int w = 0; w < kVec<T>; ++w) o[r][k][w] *= alpha;
  }
}

template <class T, int Class, int Rows, int Cols, int MinBlocks>
__global__ void __launch_bounds__(kThreads, MinBlocks) sdpa_simt_forward_kernel(const SdpaProblem p, Operands<T> ops) {
  constexpr int W = kVec<T>, TM = Rows / 16, TN = Cols / 16, KC = Class / (16 * W);
  const int pad = W, ldk = p.head_dim + pad, ldv = p.head_dim_v + pad, ldp = Cols + pad;
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  T *qs = reinterpret_cast<T *>(smem_bytes), *ks = qs + Rows * ldk, *vs = ks + Cols * ldk, *ps = vs + Cols * ldv;

  // Heaviest query tiles (the last ones, under a causal mask) first.
  const int64_t heads = p.batch * p.heads_q, q_tiles = (p.queries + Rows - 1) / Rows;
  const int64_t bh = blockIdx.x % heads, q_tile = q_tiles - 1 - blockIdx.x / heads;
  const int64_t b = bh / p.heads_q, h = bh % p.heads_q, hk = h / (p.heads_q / p.heads_kv);
  const int64_t q0 = q_tile * Rows, q_end = min(q0 + Rows, p.queries);
  const ScoreParams<T> sp = score_params<T>(p, b, h);
  const RowSource<T> q = rows_of<T>(ops.q, p.q, b, h, p.queries), k = rows_of<T>(ops.k, p.k, b, hk, p.keys),
                v = rows_of<T>(ops.v, p.v, b, hk, p.keys);
  const SdpaSimtSpan span = sdpa_simt_key_span(sp.mask, q0, q_end);
  const int64_t k_first = span.begin / Cols * Cols;

  load_rows<T, Rows>(qs, ldk, q, q0, p.head_dim);
  if (k_first < span.end) load_rows<T, Cols>(ks, ldk, k, k_first, p.head_dim);
  commit_copies();

  RowState<T, TM> st;
  T o[TM][KC][W];
#pragma unroll
  for (int r = 0; r < TM; ++r) {
    st.max[r] = -INFINITY, st.sum[r] = T(0);
#pragma unroll
    for (int c = 0; c < KC; ++c)
#pragma unroll
      for (int w = 0; w < W; ++w) o[r][c][w] = T(0);
  }
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  for (int64_t k0 = k_first; k0 < span.end; k0 += Cols) {
    load_rows<T, Cols>(vs, ldv, v, k0, p.head_dim_v);
    commit_copies();
    wait_copies<1>();  // Q and this K tile
    __syncthreads();
    T s[TM][TN], dsoft[TM][TN];
    dot_rows(s, qs, ldk, ks, ldk, p.head_dim);
    const bool all_seen = sdpa_simt_all_seen(sp.mask, q0, q0 + Rows, k0, k0 + Cols);
    if (sp.softcap > T(0)) finish_scores<false, true>(s, dsoft, sp, q0, k0, all_seen);
    else finish_scores<false, false>(s, dsoft, sp, q0, k0, all_seen);
    online_softmax(s, st, o);
#pragma unroll
    for (int r = 0; r < TM; ++r)
#pragma unroll
      for (int c = 0; c < TN; ++c) ps[(ty + 16 * r) * ldp + tx + 16 * c] = s[r][c];
    wait_copies<0>();  // V
    __syncthreads();   // P written, K read by all
    if (k0 + Cols < span.end) load_rows<T, Cols>(ks, ldk, k, k0 + Cols, p.head_dim);
    commit_copies();
    mul_rows<T, TM, KC, Cols>(o, ps, ldp, vs, ldv, p.head_dim_v / W);
    __syncthreads();  // V and P read by all
  }
  wait_copies<0>();

  T inv[TM];
#pragma unroll
  for (int r = 0; r < TM; ++r) {
    const T sum = row_sum(st.sum[r]);
    inv[r] = sum > T(0) ? T(1) / sum : T(0);  // a row that saw no key: out = 0
    const int64_t row = q0 + ty + 16 * r;
    if (ops.lse != nullptr && tx == 0 && row < p.queries)
      ops.lse[b * p.lse_stride[0] + h * p.lse_stride[1] + row * p.lse_stride[2]] =
          sum > T(0) ? st.max[r] + log(sum) : T(-INFINITY);
  }
  store_rows(sink_of(ops.out, p.out, b, h, p.queries), q0, p.head_dim_v / W, o, inv);
}

// Launches the forward with the tiles of the head-size class (compact ones
// where the device's shared memory asks for them).
template <class T, int Class>
int launch_forward(const SdpaProblem &p, cudaStream_t stream) {
  constexpr SdpaSimtTile kBig = SdpaSimtTraits::forward(sizeof(T), Class, false);
  constexpr SdpaSimtTile kSmall = SdpaSimtTraits::forward(sizeof(T), Class, true);
  const int compact =
      needs_compact_tiles([&](bool c) { return sdpa_simt_forward_smem(sizeof(T), p.head_dim, p.head_dim_v, c ? kSmall : kBig); });
  if (compact != 0 && compact != 1) return compact;
  const SdpaSimtTile t = compact ? kSmall : kBig;
  auto kernel = compact ? sdpa_simt_forward_kernel<T, Class, kSmall.rows, kSmall.cols, kSmall.min_blocks>
                        : sdpa_simt_forward_kernel<T, Class, kBig.rows, kBig.cols, kBig.min_blocks>;
  return launch_kernel(kernel, sdpa_simt_blocks(p.batch, p.heads_q, p.queries, t.rows),
                       sdpa_simt_forward_smem(sizeof(T), p.head_dim, p.head_dim_v, t), stream, p,
                       operands_of<T>(p, nullptr));
}

template <class T>
int forward(const SdpaProblem &p, cudaStream_t stream) {
  return with_head_class(p, [&](auto head_class) { return launch_forward<T, decltype(head_class)::value>(p, stream); });
}

}  // namespace baracuda::kernels::sdpa_simt
