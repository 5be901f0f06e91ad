// The score pipeline of include/baracuda/sdpa.h on a thread's register tile
// of dot products, shared by the forward and both backward kernels:
//   s = scale * dot; s = cap * tanh(s / cap); s += slope * bias(i, j); mask.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "baracuda/alibi.h"
#include "sdpa/sdpa_problem.h"
#include "sdpa/sdpa_simt_mask.h"

namespace baracuda::kernels::sdpa_simt {

// What turns the dot products of one (b, h) into scores, in the attention's
// precision.
template <class T>
struct ScoreParams {
  T scale, softcap, inv_softcap, slope;
  int32_t alibi;  // 0, BARACUDA_ALIBI_SIGNED or BARACUDA_ALIBI_SYMMETRIC
  SdpaSimtMask mask;
};

template <class T>
__device__ __forceinline__ ScoreParams<T> score_params(const SdpaProblem &p, int64_t b, int64_t h) {
  ScoreParams<T> sp;
  sp.scale = static_cast<T>(p.scale);
  sp.softcap = static_cast<T>(p.softcap);
  sp.inv_softcap = p.softcap > 0 ? T(1) / sp.softcap : T(0);
  sp.alibi = p.alibi;
  sp.slope = p.alibi ? static_cast<const T *>(p.slopes)[b * p.slope_stride[0] + h * p.slope_stride[1]] : T(0);
  sp.mask = {p.queries, p.keys, p.bottom_right ? p.keys - p.queries : 0, p.window_left, p.window_right, p.causal};
  return sp;
}

// Turns s[r][c], the dot products of a tile at (query q0, key k0) origin,
// into scores in place. Rows are queries and columns keys, or the reverse
// when KeyRows (the dk/dv kernel). With Softcap, dsoft[r][c] receives
// d(score)/d(scale * dot) = 1 - tanh^2 for the backward. Masked scores
// become -inf; a tile that all_seen skips the element mask.
template <bool KeyRows, bool Softcap, class T, int TM, int TN>
__device__ __forceinline__ void finish_scores(T (&s)[TM][TN], T (&dsoft)[TM][TN], const ScoreParams<T> &sp,
                                              int64_t q0, int64_t k0, bool all_seen) {
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  // bias = j - i' = (k0 - q0 - shift) + (key offset) - (query offset), each
  // part exact in T up to 2^24 (f32) or 2^53 (f64).
  const int64_t d_origin = k0 - q0 - sp.mask.shift;
  const T d0 = static_cast<T>(d_origin);
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int c = 0; c < TN; ++c) {
      const int row = ty + 16 * r, col = tx + 16 * c;
      const int q_off = KeyRows ? col : row, k_off = KeyRows ? row : col;
      T v = s[r][c] * sp.scale;
      if constexpr (Softcap) {
        const T t = tanh(v * sp.inv_softcap);
        v = sp.softcap * t;
        dsoft[r][c] = T(1) - t * t;
      }
      if (sp.alibi) {
        const T d = (d0 + static_cast<T>(k_off)) - static_cast<T>(q_off);
        v += sp.slope * (sp.alibi == BARACUDA_ALIBI_SYMMETRIC ? T(0) - fabs(d) : d);
      }
      if (!all_seen) {
        const bool inside = q0 + q_off < sp.mask.queries && k0 + k_off < sp.mask.keys;
        if (!inside || !sdpa_simt_sees(sp.mask, d_origin + k_off - q_off)) v = -INFINITY;
      }
      s[r][c] = v;
    }
}

}  // namespace baracuda::kernels::sdpa_simt
