// The score pipeline of a warp's S tile between the two MMAs: scale,
// softcap and ALiBi, the mask, and the online softmax that turns S into P
// and rescales the O accumulator. A thread holds, per 16-row mma tile a,
// rows g and g + 8 (g = lane / 4) and of each 8-key block the columns
// 2 (lane % 4) and 2 (lane % 4) + 1: element e of block nb is row g + 8 (e / 2),
// column 8 nb + 2 (lane % 4) + e % 2.
#pragma once

#include <cmath>
#include <cstdint>

#include "sdpa/sdpa_tc_primitives.cuh"
#include "sdpa/sdpa_visible_keys.h"

namespace baracuda::kernels::sdpa_tc {

// What the kernels derive once from the problem (host-side, at launch).
struct ScoreParams {
  // Kept scores times `mul` are scores in log2 units. On the plain path the
  // kernels keep q.k itself and mul = scale * log2(e) folds the scale into
  // the exp2's FFMA; with softcap, ALiBi or a non-positive scale they keep
  // the final score in log2 units and mul = 1, so the running max stays a max.
  float mul;
  bool transformed;
  float scale_log2;      // scale * log2(e)
  float softcap_log2;    // softcap * log2(e); 0: no softcap
  float scale_over_cap;  // scale / softcap
  int32_t alibi;         // 0, 1 (signed: j - i'), 2 (symmetric: -|j - i'|), as in alibi.h
  SdpaVisibleKeys visible;
};

// The score pipeline's constants for p (host side).
inline ScoreParams score_params(const SdpaProblem &p) {
  constexpr double kLog2e = 1.4426950408889634;
  ScoreParams sp{};
  sp.scale_log2 = static_cast<float>(p.scale * kLog2e);
  sp.softcap_log2 = p.softcap > 0 ? static_cast<float>(p.softcap * kLog2e) : 0.f;
  sp.scale_over_cap = p.softcap > 0 ? static_cast<float>(p.scale / p.softcap) : 0.f;
  sp.alibi = p.alibi;
  sp.transformed = p.softcap > 0 || p.alibi != 0 || !(sp.scale_log2 > 0.f);
  sp.mul = sp.transformed ? 1.f : sp.scale_log2;
  sp.visible = sdpa_visible_keys(p);
  return sp;
}

// The local row (within the block) of a thread's row hr of mma tile a.
template <int WarpRows>
__device__ __forceinline__ int thread_row(int a, int hr) {
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  return warp * WarpRows + a * 16 + lane / 4 + hr * 8;
}
__device__ __forceinline__ int thread_col(int nb, int e) {
  return nb * 8 + 2 * (static_cast<int>(threadIdx.x) % 4) + (e & 1);
}

// s = final scores in log2 units (the transformed path only); slope_log2 =
// slope * log2(e) of this (b, h). m0, n0: the tile's first query and key.
template <int MAtoms, int KeyBlocks, int WarpRows>
__device__ __forceinline__ void transform_scores(float (&s)[MAtoms][KeyBlocks][4], const ScoreParams &sp,
                                                 float slope_log2, int64_t m0, int64_t n0) {
#pragma unroll
  for (int a = 0; a < MAtoms; ++a)
#pragma unroll
    for (int hr = 0; hr < 2; ++hr) {
      // j - i' at column 0 of this row.
      const int64_t d0 = n0 - (m0 + thread_row<WarpRows>(a, hr) + sp.visible.shift);
#pragma unroll
      for (int nb = 0; nb < KeyBlocks; ++nb)
#pragma unroll
        for (int e = 2 * hr; e < 2 * hr + 2; ++e) {
          float x = sp.softcap_log2 > 0.f ? sp.softcap_log2 * tanhf(s[a][nb][e] * sp.scale_over_cap)
                                          : s[a][nb][e] * sp.scale_log2;
          if (sp.alibi != 0) {
            const float d = static_cast<float>(d0 + thread_col(nb, e));
            x = fmaf(slope_log2, sp.alibi == 2 ? -fabsf(d) : d, x);
          }
          s[a][nb][e] = x;
        }
    }
}

// -inf where key n0 + col is outside row m0 + row's visible interval.
// ConstantColumns: the interval moved by the thread's first column, each
// compare against a constant; the sm_80 forward's key loop otherwise kept
// the 16 columns a thread holds live across it (its spills 84 -> 52 bytes
// at D 128). The Hopper forward, tuned on its own probe, keeps its code.
template <int MAtoms, int KeyBlocks, int WarpRows, bool ConstantColumns = false>
__device__ __forceinline__ void mask_scores(float (&s)[MAtoms][KeyBlocks][4], const SdpaVisibleKeys &v, int64_t m0,
                                            int64_t n0) {
  const int first_col = ConstantColumns ? thread_col(0, 0) : 0;
#pragma unroll
  for (int a = 0; a < MAtoms; ++a)
#pragma unroll
    for (int hr = 0; hr < 2; ++hr) {
      const int64_t i = m0 + thread_row<WarpRows>(a, hr);
      // The row's interval in tile columns, clamped to [-1, 64 Ki]: 32 bits.
      const int lo = static_cast<int>(max(int64_t{-1}, min(v.lo(i) - n0, int64_t{1} << 16))) - first_col;
      const int hi = static_cast<int>(max(int64_t{-1}, min(v.hi(i) - n0, int64_t{1} << 16))) - first_col;
#pragma unroll
      for (int nb = 0; nb < KeyBlocks; ++nb)
#pragma unroll
        for (int e = 2 * hr; e < 2 * hr + 2; ++e) {
          const int col = ConstantColumns ? nb * 8 + (e & 1) : thread_col(nb, e);
          if (col < lo || col > hi) s[a][nb][e] = -INFINITY;
        }
    }
}

// The max (or the sum) of a row's 2 KeyBlocks entries of s held by one
// thread, as a tree: a chain of that many dependent operations stalls on
// each one's latency, and a tree takes log2 as many steps.
template <bool Max, int MAtoms, int KeyBlocks>
__device__ __forceinline__ float row_tree(const float (&s)[MAtoms][KeyBlocks][4], int a, int hr) {
  const auto op = [](float x, float y) { return Max ? fmaxf(x, y) : x + y; };
  float t[KeyBlocks];
#pragma unroll
  for (int nb = 0; nb < KeyBlocks; ++nb) t[nb] = op(s[a][nb][2 * hr], s[a][nb][2 * hr + 1]);
#pragma unroll
  for (int w = 1; w < KeyBlocks; w *= 2)
#pragma unroll
    for (int nb = 0; nb + w < KeyBlocks; nb += 2 * w) t[nb] = op(t[nb], t[nb + w]);
  return t[0];
}

// The running max of row (a, hr) with this tile's entries, before the
// reduction over the row's four threads.
template <int MAtoms, int KeyBlocks>
__device__ __forceinline__ float thread_row_max(const float (&s)[MAtoms][KeyBlocks][4], const float (&row_max)[MAtoms][2],
                                                int a, int hr) {
  return fmaxf(row_max[a][hr], row_tree<true>(s, a, hr));
}

// A row's running max after a tile whose max (over the row's four threads)
// is mx: base = the new max * mul (0 for a row that has seen no key), and
// the correction that O's row and partial sum owe. Slack >= 0: the running
// max moves only where mx passes it by more than Slack (in log2 units);
// elsewhere it stays, P may reach 2^Slack and the correction is exactly 1,
// not 2^(the product's rounding), so that a kernel can skip O's rescale.
// Slack -1 moves it on every tile.
template <int Slack>
__device__ __forceinline__ float settle_row_max(float mx, float &row_max, float mul, float &base) {
  const bool keep = Slack >= 0 && !(mx * mul > fmaf(row_max, mul, static_cast<float>(Slack)));
  if (keep) mx = row_max;
  base = mx == -INFINITY ? 0.f : mx * mul;
  const float correction = keep ? 1.f : exp2_approx(fmaf(row_max, mul, -base));
  row_max = mx;
  return correction;
}

// One online-softmax step on the scores alone: the running max takes this
// tile's (settle_row_max), the thread's partial row sums are rescaled, s
// becomes P = 2^(s mul - base), and `correction` gets the factor that O's
// rows still owe (rescale_rows). A row that has seen no key yet keeps max
// -inf and P 0, never NaN. Split from O's rescale so that a kernel can run
// it while an earlier tile's P V still writes O.
template <int MAtoms, int KeyBlocks, int Slack = -1>
__device__ __forceinline__ void softmax_probabilities(float (&s)[MAtoms][KeyBlocks][4], float (&row_max)[MAtoms][2],
                                                      float (&row_sum)[MAtoms][2], float mul,
                                                      float (&correction)[MAtoms][2]) {
#pragma unroll
  for (int a = 0; a < MAtoms; ++a)
#pragma unroll
    for (int hr = 0; hr < 2; ++hr) {
      float mx = thread_row_max(s, row_max, a, hr);
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      float base;
      correction[a][hr] = settle_row_max<Slack>(mx, row_max[a][hr], mul, base);
#pragma unroll
      for (int nb = 0; nb < KeyBlocks; ++nb)
#pragma unroll
        for (int e = 2 * hr; e < 2 * hr + 2; ++e) s[a][nb][e] = exp2_approx(fmaf(s[a][nb][e], mul, -base));
      row_sum[a][hr] = fmaf(row_sum[a][hr], correction[a][hr], row_tree<false>(s, a, hr));
    }
}

// An online-softmax step in three parts, so that the exponentials can run
// among P V's products (the same arithmetic as softmax_probabilities): the
// rows' maxima side by side (each shuffle round over all rows, so that
// their latencies overlap), giving `base` and `correction`
// (settle_row_max); then P = 2^(s mul - base) a few key blocks at a time;
// then the partial row sums, once P is whole.
template <int MAtoms, int KeyBlocks, int Slack = -1>
__device__ __forceinline__ void softmax_maxima(const float (&s)[MAtoms][KeyBlocks][4], float (&row_max)[MAtoms][2],
                                               float mul, float (&base)[MAtoms][2], float (&correction)[MAtoms][2]) {
  float mx[MAtoms][2];
#pragma unroll
  for (int a = 0; a < MAtoms; ++a)
#pragma unroll
    for (int hr = 0; hr < 2; ++hr) mx[a][hr] = thread_row_max(s, row_max, a, hr);
#pragma unroll
  for (int lanes = 1; lanes <= 2; lanes *= 2)
#pragma unroll
    for (int a = 0; a < MAtoms; ++a)
#pragma unroll
      for (int hr = 0; hr < 2; ++hr) mx[a][hr] = fmaxf(mx[a][hr], __shfl_xor_sync(0xffffffffu, mx[a][hr], lanes));
#pragma unroll
  for (int a = 0; a < MAtoms; ++a)
#pragma unroll
    for (int hr = 0; hr < 2; ++hr) correction[a][hr] = settle_row_max<Slack>(mx[a][hr], row_max[a][hr], mul, base[a][hr]);
}
// Key blocks [first, first + count) of every row.
template <int MAtoms, int KeyBlocks>
__device__ __forceinline__ void exponentiate_blocks(float (&s)[MAtoms][KeyBlocks][4], const float (&base)[MAtoms][2],
                                                    float mul, int first, int count) {
#pragma unroll
  for (int a = 0; a < MAtoms; ++a)
#pragma unroll
    for (int nb = first; nb < first + count; ++nb)
#pragma unroll
      for (int e = 0; e < 4; ++e) s[a][nb][e] = exp2_approx(fmaf(s[a][nb][e], mul, -base[a][e / 2]));
}
template <int MAtoms, int KeyBlocks>
__device__ __forceinline__ void softmax_row_sums(const float (&s)[MAtoms][KeyBlocks][4], float (&row_sum)[MAtoms][2],
                                                 const float (&correction)[MAtoms][2]) {
#pragma unroll
  for (int a = 0; a < MAtoms; ++a)
#pragma unroll
    for (int hr = 0; hr < 2; ++hr) row_sum[a][hr] = fmaf(row_sum[a][hr], correction[a][hr], row_tree<false>(s, a, hr));
}

// Whether some row of this warp owes O a correction other than exactly 1
// (warp-uniform); with Slack -1 every tile's does.
template <int Slack, int MAtoms>
__device__ __forceinline__ bool rescale_owed(const float (&correction)[MAtoms][2]) {
  if constexpr (Slack < 0) return true;
  bool owed = false;
#pragma unroll
  for (int a = 0; a < MAtoms; ++a) owed = owed || correction[a][0] != 1.f || correction[a][1] != 1.f;
  return __any_sync(0xffffffffu, owed);
}

// O's rows times the correction of the step that moved their max.
template <int MAtoms, int ValueBlocks>
__device__ __forceinline__ void rescale_rows(float (&o)[MAtoms][ValueBlocks][4], const float (&correction)[MAtoms][2]) {
#pragma unroll
  for (int a = 0; a < MAtoms; ++a)
#pragma unroll
    for (int hr = 0; hr < 2; ++hr)
#pragma unroll
      for (int db = 0; db < ValueBlocks; ++db) {
        o[a][db][2 * hr] *= correction[a][hr];
        o[a][db][2 * hr + 1] *= correction[a][hr];
      }
}

// The end of a row after its last key tile: its sum over the four threads
// that hold it, its lse written by the first of them (lse: its address, null
// for none), and 1 / sum to scale O by (0 for a row that saw no key).
__device__ __forceinline__ float finish_row(float row_max, float row_sum, float mul, float *lse) {
  float sum = row_sum;
  sum += __shfl_xor_sync(0xffffffffu, sum, 1);
  sum += __shfl_xor_sync(0xffffffffu, sum, 2);
  if (lse != nullptr && threadIdx.x % 4 == 0)
    *lse = sum > 0.f ? (row_max * mul + log2f(sum)) * 0.6931471805599453f : -INFINITY;
  return sum > 0.f ? 1.f / sum : 0.f;
}

}  // namespace baracuda::kernels::sdpa_tc
