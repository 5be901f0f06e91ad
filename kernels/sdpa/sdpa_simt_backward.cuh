// The CUDA-core attention backward, in the input's precision, deterministic
// and bit-stable by construction (no atomics; every sum in a fixed order):
//   1. delta[b, h, i] = rowsum(dout * out) into the workspace, a warp a row;
//   2. dk, dv: a block per `rows` keys of one (b, kv head) holds K, V and the
//      dk, dv accumulators, and walks the query tiles that see its keys, of
//      every query head sharing the kv head (GQA sums in registers);
//   3. dq: a block per `rows` queries of one (b, h) holds Q, dout and the dq
//      accumulator, and walks the key tiles its queries see.
// Both recompute P = exp(s - lse) from the scores, and
//   dP = dout v^T, dS = P (dP - delta) (times 1 - tanh^2 under softcap),
//   dv += P^T dout, dk += scale dS^T q, dq += scale dS k.
// Instantiated per dtype by sdpa_simt_backward_<dtype>.cu.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "sdpa/sdpa_simt_launch.cuh"
#include "sdpa/sdpa_simt_scores.cuh"
#include "sdpa/sdpa_simt_tiles.cuh"

namespace baracuda::kernels::sdpa_simt {

constexpr int kDeltaThreads = SdpaSimtTraits::kDeltaThreads;

template <class T>
__global__ void __launch_bounds__(kDeltaThreads) sdpa_simt_delta_kernel(const SdpaProblem p, Operands<T> ops) {
  constexpr int kWarps = kDeltaThreads / 32;
  const int lane = threadIdx.x % 32;
  const int64_t rows = p.batch * p.heads_q * p.queries;
  for (int64_t r = int64_t{blockIdx.x} * kWarps + threadIdx.x / 32; r < rows; r += int64_t{gridDim.x} * kWarps) {
    const int64_t i = r % p.queries, bh = r / p.queries, b = bh / p.heads_q, h = bh % p.heads_q;
    const T *o = ops.out.data + b * p.out.stride[0] + h * p.out.stride[1] + i * p.out.stride[2];
    const T *d = ops.dout.data + b * p.dout.stride[0] + h * p.dout.stride[1] + i * p.dout.stride[2];
    T sum = T(0);
    for (int c = lane; c < p.head_dim_v; c += 32) sum = fma(o[c], d[c], sum);
#pragma unroll
    for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, off);
    if (lane == 0) ops.delta[r] = sum;
  }
}

// P and dS of a tile in registers. rows_d / cols_d are the [.][D] operands
// of the scores (K and Q for dk/dv, Q and K for dq), rows_v / cols_v the
// [.][Dv] ones of dP (V and dout, or dout and V); lse_of(r, c) and
// delta_of(r, c) give the query's values at a thread's element.
template <bool KeyRows, class T, int TM, int TN, class LseOf, class DeltaOf>
__device__ __forceinline__ void tile_grads(T (&pr)[TM][TN], T (&ds)[TM][TN], const SdpaProblem &p,
                                           const ScoreParams<T> &sp, const T *rows_d, const T *cols_d,
                                           const T *rows_v, const T *cols_v, int64_t q0, int64_t k0, bool all_seen,
                                           LseOf &&lse_of, DeltaOf &&delta_of) {
  const int ldd = p.head_dim + kVec<T>, ldv = p.head_dim_v + kVec<T>;
  T dsoft[TM][TN];
  dot_rows(pr, rows_d, ldd, cols_d, ldd, p.head_dim);
  const bool softcap = sp.softcap > T(0);
  if (softcap) finish_scores<KeyRows, true>(pr, dsoft, sp, q0, k0, all_seen);
  else finish_scores<KeyRows, false>(pr, dsoft, sp, q0, k0, all_seen);
  dot_rows(ds, rows_v, ldv, cols_v, ldv, p.head_dim_v);
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int c = 0; c < TN; ++c) {
      // A masked score gives 0, also in a row that sees no key (lse = -inf).
      pr[r][c] = pr[r][c] == -INFINITY ? T(0) : exp(pr[r][c] - lse_of(r, c));
      ds[r][c] = pr[r][c] * (ds[r][c] - delta_of(r, c));
      if (softcap) ds[r][c] *= dsoft[r][c];
    }
}

template <class T, int TM, int TN>
__device__ __forceinline__ void store_tile(T *smem, int ld, const T (&v)[TM][TN]) {
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int c = 0; c < TN; ++c) smem[(ty + 16 * r) * ld + tx + 16 * c] = v[r][c];
}

template <class T, int TM, int KC>
__device__ __forceinline__ void zero(T (&acc)[TM][KC][kVec<T>]) {
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int k = 0; k < KC; ++k)
#pragma unroll
      for (int w = 0; w < kVec<T>; ++w) acc[r][k][w] = T(0);
}

// The shared memory of a backward block (sdpa_simt_backward_smem): the row
// side's [R][D] and [R][Dv], the column side's [C][D] and [C][Dv], P and dS
// [R][C], two per-column values.
template <class T, int R, int C>
struct BackwardSmem {
  T *rows_d, *rows_v, *cols_d, *cols_v, *p, *ds, *col_lse, *col_delta;
  int ldd, ldv, ldp;
  __device__ __forceinline__ BackwardSmem(T *base, int head_dim, int head_dim_v)
      : ldd(head_dim + kVec<T>), ldv(head_dim_v + kVec<T>), ldp(C + kVec<T>) {
    rows_d = base;
    rows_v = rows_d + R * ldd;
    cols_d = rows_v + R * ldv;
    cols_v = cols_d + C * ldd;
    p = cols_v + C * ldv;
    ds = p + R * ldp;
    col_lse = ds + R * ldp;
    col_delta = col_lse + C;
  }
};

template <class T, int Class, int R, int C, int MinBlocks>
__global__ void __launch_bounds__(kThreads, MinBlocks) sdpa_simt_dkdv_kernel(const SdpaProblem p, Operands<T> ops) {
  constexpr int W = kVec<T>, TM = R / 16, TN = C / 16, KC = Class / (16 * W);
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  const BackwardSmem<T, R, C> sm(reinterpret_cast<T *>(smem_bytes), p.head_dim, p.head_dim_v);
  const int64_t heads = p.batch * p.heads_kv, bh = blockIdx.x % heads;
  const int64_t b = bh / p.heads_kv, hk = bh % p.heads_kv, group = p.heads_q / p.heads_kv;
  const int64_t k0 = blockIdx.x / heads * R, k_end = min(k0 + R, p.keys);
  load_rows<T, R>(sm.rows_d, sm.ldd, rows_of<T>(ops.k, p.k, b, hk, p.keys), k0, p.head_dim);
  load_rows<T, R>(sm.rows_v, sm.ldv, rows_of<T>(ops.v, p.v, b, hk, p.keys), k0, p.head_dim_v);
  commit_copies();

  T dk[TM][KC][W], dv[TM][KC][W];
  zero(dk);
  zero(dv);
  const int tx = threadIdx.x % 16;
  for (int64_t h = hk * group; h < (hk + 1) * group; ++h) {
    const ScoreParams<T> sp = score_params<T>(p, b, h);
    const SdpaSimtSpan span = sdpa_simt_query_span(sp.mask, k0, k_end);
    const RowSource<T> q = rows_of<T>(ops.q, p.q, b, h, p.queries), dout = rows_of<T>(ops.dout, p.dout, b, h, p.queries);
    const T *lse = static_cast<const T *>(p.lse) + b * p.lse_stride[0] + h * p.lse_stride[1];
    const T *delta = ops.delta + (b * p.heads_q + h) * p.queries;
    for (int64_t q0 = span.begin / C * C; q0 < span.end; q0 += C) {
      load_rows<T, C>(sm.cols_d, sm.ldd, q, q0, p.head_dim);
      load_rows<T, C>(sm.cols_v, sm.ldv, dout, q0, p.head_dim_v);
      commit_copies();
      for (int c = threadIdx.x; c < C; c += kThreads) {
        const int64_t i = q0 + c;
        sm.col_lse[c] = i < p.queries ? lse[i * p.lse_stride[2]] : T(0);
        sm.col_delta[c] = i < p.queries ? delta[i] : T(0);
      }
      wait_copies<0>();
      __syncthreads();
      T pr[TM][TN], ds[TM][TN];
      tile_grads<true>(pr, ds, p, sp, sm.rows_d, sm.cols_d, sm.rows_v, sm.cols_v, q0, k0,
                       sdpa_simt_all_seen(sp.mask, q0, q0 + C, k0, k0 + R),
                       [&](int, int c) { return sm.col_lse[tx + 16 * c]; },
                       [&](int, int c) { return sm.col_delta[tx + 16 * c]; });
      store_tile(sm.p, sm.ldp, pr);
      store_tile(sm.ds, sm.ldp, ds);
      __syncthreads();
      mul_rows<T, TM, KC, C>(dv, sm.p, sm.ldp, sm.cols_v, sm.ldv, p.head_dim_v / W);
      mul_rows<T, TM, KC, C>(dk, sm.ds, sm.ldp, sm.cols_d, sm.ldd, p.head_dim / W);
      __syncthreads();
    }
  }
  wait_copies<0>();  // K and V, when no query sees these keys
  T scale[TM], one[TM];
#pragma unroll
  for (int r = 0; r < TM; ++r) scale[r] = static_cast<T>(p.scale), one[r] = T(1);
  store_rows(sink_of(ops.dk, p.dk, b, hk, p.keys), k0, p.head_dim / W, dk, scale);
  store_rows(sink_of(ops.dv, p.dv, b, hk, p.keys), k0, p.head_dim_v / W, dv, one);
}

template <class T, int Class, int R, int C, int MinBlocks>
__global__ void __launch_bounds__(kThreads, MinBlocks) sdpa_simt_dq_kernel(const SdpaProblem p, Operands<T> ops) {
  constexpr int W = kVec<T>, TM = R / 16, TN = C / 16, KC = Class / (16 * W);
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  const BackwardSmem<T, R, C> sm(reinterpret_cast<T *>(smem_bytes), p.head_dim, p.head_dim_v);
  // Heaviest query tiles (the last ones, under a causal mask) first.
  const int64_t heads = p.batch * p.heads_q, q_tiles = (p.queries + R - 1) / R;
  const int64_t bh = blockIdx.x % heads, q0 = (q_tiles - 1 - blockIdx.x / heads) * R;
  const int64_t b = bh / p.heads_q, h = bh % p.heads_q, hk = h / (p.heads_q / p.heads_kv);
  const ScoreParams<T> sp = score_params<T>(p, b, h);
  load_rows<T, R>(sm.rows_d, sm.ldd, rows_of<T>(ops.q, p.q, b, h, p.queries), q0, p.head_dim);
  load_rows<T, R>(sm.rows_v, sm.ldv, rows_of<T>(ops.dout, p.dout, b, h, p.queries), q0, p.head_dim_v);
  commit_copies();

  const int ty = threadIdx.x / 16;
  T row_lse[TM], row_delta[TM];
#pragma unroll
  for (int r = 0; r < TM; ++r) {
    const int64_t i = q0 + ty + 16 * r;
    const bool inside = i < p.queries;
    row_lse[r] = inside ? static_cast<const T *>(p.lse)[b * p.lse_stride[0] + h * p.lse_stride[1] + i * p.lse_stride[2]]
                        : T(0);
    row_delta[r] = inside ? ops.delta[(b * p.heads_q + h) * p.queries + i] : T(0);
  }
  T dq[TM][KC][W];
  zero(dq);
  const RowSource<T> k = rows_of<T>(ops.k, p.k, b, hk, p.keys), v = rows_of<T>(ops.v, p.v, b, hk, p.keys);
  const SdpaSimtSpan span = sdpa_simt_key_span(sp.mask, q0, min(q0 + R, p.queries));
  for (int64_t k0 = span.begin / C * C; k0 < span.end; k0 += C) {
    load_rows<T, C>(sm.cols_d, sm.ldd, k, k0, p.head_dim);
    load_rows<T, C>(sm.cols_v, sm.ldv, v, k0, p.head_dim_v);
    commit_copies();
    wait_copies<0>();
    __syncthreads();
    T pr[TM][TN], ds[TM][TN];
    tile_grads<false>(pr, ds, p, sp, sm.rows_d, sm.cols_d, sm.rows_v, sm.cols_v, q0, k0,
                      sdpa_simt_all_seen(sp.mask, q0, q0 + R, k0, k0 + C), [&](int r, int) { return row_lse[r]; },
                      [&](int r, int) { return row_delta[r]; });
    store_tile(sm.ds, sm.ldp, ds);
    __syncthreads();
    mul_rows<T, TM, KC, C>(dq, sm.ds, sm.ldp, sm.cols_d, sm.ldd, p.head_dim / W);
    __syncthreads();
  }
  wait_copies<0>();  // Q and dout, when these queries see no key
  T scale[TM];
#pragma unroll
  for (int r = 0; r < TM; ++r) scale[r] = static_cast<T>(p.scale);
  store_rows(sink_of(ops.dq, p.dq, b, h, p.queries), q0, p.head_dim / W, dq, scale);
}

template <class T, int Class>
int launch_backward(const SdpaProblem &p, const Operands<T> &ops, cudaStream_t stream) {
  constexpr SdpaSimtTile kBig = SdpaSimtTraits::backward(sizeof(T), Class, false);
  constexpr SdpaSimtTile kSmall = SdpaSimtTraits::backward(sizeof(T), Class, true);
  const int compact = needs_compact_tiles(
      [&](bool c) { return sdpa_simt_backward_smem(sizeof(T), p.head_dim, p.head_dim_v, c ? kSmall : kBig); });
  if (compact != 0 && compact != 1) return compact;
  const SdpaSimtTile t = compact ? kSmall : kBig;
  const size_t smem = sdpa_simt_backward_smem(sizeof(T), p.head_dim, p.head_dim_v, t);
  auto dkdv = compact ? sdpa_simt_dkdv_kernel<T, Class, kSmall.rows, kSmall.cols, kSmall.min_blocks>
                      : sdpa_simt_dkdv_kernel<T, Class, kBig.rows, kBig.cols, kBig.min_blocks>;
  auto dq = compact ? sdpa_simt_dq_kernel<T, Class, kSmall.rows, kSmall.cols, kSmall.min_blocks>
                    : sdpa_simt_dq_kernel<T, Class, kBig.rows, kBig.cols, kBig.min_blocks>;
  const int status = launch_kernel(dkdv, sdpa_simt_blocks(p.batch, p.heads_kv, p.keys, t.rows), smem, stream, p, ops);
  if (status != 0) return status;
  return launch_kernel(dq, sdpa_simt_blocks(p.batch, p.heads_q, p.queries, t.rows), smem, stream, p, ops);
}

template <class T>
int backward(const SdpaProblem &p, void *workspace, size_t workspace_bytes, cudaStream_t stream) {
  if (workspace_bytes < sdpa_simt_backward_workspace(p.batch, p.heads_q, p.queries))
    return BARACUDA_STATUS_WORKSPACE_TOO_SMALL;
  const Operands<T> ops = operands_of<T>(p, workspace);
  const int64_t rows = p.batch * p.heads_q * p.queries;
  if (rows > 0) {
    constexpr int64_t kRowsPerBlock = kDeltaThreads / 32, kMaxBlocks = 65536;
    const int64_t blocks = std::min((rows + kRowsPerBlock - 1) / kRowsPerBlock, kMaxBlocks);
    sdpa_simt_delta_kernel<T><<<static_cast<unsigned>(blocks), kDeltaThreads, 0, stream>>>(p, ops);
    const int status = -static_cast<int>(cudaGetLastError());
    if (status != 0) return status;
  }
  return with_head_class(p, [&](auto head_class) { return launch_backward<T, decltype(head_class)::value>(p, ops, stream); });
}

}  // namespace baracuda::kernels::sdpa_simt
