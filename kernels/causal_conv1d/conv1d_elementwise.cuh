// The element-wise causal conv1d kernels, forward and backward: the layouts
// without a staged path (misaligned pointers, extents that are not a multiple
// of the vector, general strides; conv1d_heuristics.h chooses).
//   tvec: a thread takes one timestep of a (b, c) row, a warp a stretch of
//         the row, the W-1 inputs before a lane from the lanes before it:
//         where the stride along L is the smaller one.
//   walk: a thread takes one channel of one b and walks a chunk of
//         timesteps, keeping the last W-1 inputs in registers: otherwise.
#pragma once

#include "causal_conv1d/conv1d_math.cuh"

namespace baracuda::kernels::conv1d {

// ---- Forward ------------------------------------------------------------------

// A warp takes kSegmentSteps * 32 consecutive units (V timesteps each) of a
// row, 32 at a time, lane i the i-th; the W-1 inputs before a lane's run
// come from the lanes before it by shuffle, and for the first lanes from the
// previous step's last lanes (carry): every input is loaded once.
constexpr int kSegmentSteps = Conv1dTraits::kSegmentSteps;
// Steps of a segment whose loads are in flight together, forward and backward.
constexpr int kPrefetch = Conv1dTraits::kPrefetch;

// The W-1 inputs before each lane's run: xs[0 .. W-1), given its own run in
// xs[W-1 .. W-1+V) and carry, the W-1 inputs before lane 0's run.
template <class A, int W, int V>
__device__ __forceinline__ void left_halo(A *xs, const A *carry, int lane) {
#pragma unroll
  for (int j = 0; j < W - 1; ++j) {
    const int back = W - 1 - j;        // timesteps before the run
    const int d = (back + V - 1) / V;  // lanes back
    const int e = d * V - back;        // element of that lane's run
    const A from_lane = __shfl_up_sync(0xffffffffu, xs[W - 1 + e], d);
    A from_carry = carry[0];
#pragma unroll
    for (int m = 1; m < W - 1; ++m)
      if (lane * V + j == m) from_carry = carry[m];
    xs[j] = lane < d ? from_carry : from_lane;
  }
}

// The W-1 inputs before the next step's lane 0: the last ones of this step.
template <class A, int W, int V>
__device__ __forceinline__ void next_carry(const A *xs, A *carry) {
#pragma unroll
  for (int m = 0; m < W - 1; ++m) {
    const int back = W - 1 - m;
    const int d = (back + V - 1) / V;
    const int e = d * V - back;
    carry[m] = __shfl_sync(0xffffffffu, xs[W - 1 + e], 32 - d);
  }
}

template <class T, int W, class Wt = T>
__global__ void __launch_bounds__(kThreads) forward_tvec_kernel(Conv1dProblem p) {
  using A = Acc<T>;
  constexpr int V = 1;  // element-wise: the layouts without a staged path
  const int lane = threadIdx.x % 32;
  const int64_t units = (p.length + V - 1) / V;
  const int64_t seg_begin =
      (static_cast<int64_t>(blockIdx.x) * (kThreads / 32) + threadIdx.x / 32) * 32 * kSegmentSteps;
  if (seg_begin >= units) return;  // the whole warp
  const int64_t rows = p.batch * p.channels;
  for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    int64_t b, c;
    split_row(row, p.channels, b, c);
    const T *xr = at<T>(p.x, b, c, 0);
    T *yr = at<T>(p.y, b, c, 0);
    const int64_t sx = p.x.stride[2], sy = p.y.stride[2];
    Vec<T, V> raw[kPrefetch];
    auto load_group = [&](int first) {
#pragma unroll
      for (int q = 0; q < kPrefetch; ++q) {
        const int64_t u = seg_begin + (first + q) * 32 + lane;
        if (u < units) raw[q] = load_vec<T, V>(xr + u * V * sx);
      }
    };
    load_group(0);  // ahead of the set-up's loads, so that they overlap
    const Taps<T, W, Wt> taps(p, c);
    A carry[W - 1];
#pragma unroll
    for (int m = 0; m < W - 1; ++m) carry[m] = x_pad<T, W>(p, b, c, seg_begin * V - (W - 1) + m);
    for (int first = 0; first < kSegmentSteps; first += kPrefetch) {
      if (seg_begin + first * 32 >= units) break;
      if (first > 0) load_group(first);
#pragma unroll
      for (int q = 0; q < kPrefetch; ++q) {
        const int64_t u = seg_begin + (first + q) * 32 + lane;
        A xs[W - 1 + V];
        if (u < units) {
          unpack<T, V>(raw[q], xs + W - 1);
        } else {
#pragma unroll
          for (int e = 0; e < V; ++e) xs[W - 1 + e] = A(0);
        }
        left_halo<A, W, V>(xs, carry, lane);
        next_carry<A, W, V>(xs, carry);
        if (u < units) {
          static_assert(V == 1, "one window mask per lane");
          const unsigned mask = window_mask<W>(p, b, u);
          A out[V];
#pragma unroll
          for (int e = 0; e < V; ++e) {
            A z = taps.bias;
#pragma unroll
            for (int j = 0; j < W; ++j) z += taps.w[j] * kept(mask, j, xs[e + j]);
            out[e] = kept(mask, W - 1, p.silu ? activate<T, true>(z) : z);
          }
          store_run<T, V>(yr + u * V * sy, out);
        }
      }
    }
  }
}

template <class T, int W, class Wt = T>
__global__ void __launch_bounds__(kThreads) forward_walk_kernel(Conv1dProblem p) {
  using A = Acc<T>;
  constexpr int V = 1;       // element-wise: the layouts without a staged path
  constexpr int kSteps = 8;  // timesteps whose loads are in flight together
  const int64_t group = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (group * V >= p.channels) return;
  const int64_t c0 = group * V;
  const ChannelTaps<T, W, V, Wt> taps(p, c0);
  for_each_walk_chunk(p, [&](int64_t, int64_t b, int64_t t0, int64_t t1) {
    const T *xb = at<T>(p.x, b, c0, 0);
    T *yb = at<T>(p.y, b, c0, 0);
    const int64_t sx = p.x.stride[2], sy = p.y.stride[2];
    A hist[W][V];  // hist[j] = x_pad[t - (W-1) + j]; hist[W-1] is the current step
#pragma unroll
    for (int j = 0; j < W - 1; ++j)
#pragma unroll
      for (int v = 0; v < V; ++v) hist[j][v] = x_pad<T, W>(p, b, c0 + v, t0 - (W - 1) + j);
    for (int64_t t = t0; t < t1; t += kSteps) {
      Vec<T, V> raw[kSteps];
#pragma unroll
      for (int s = 0; s < kSteps; ++s)
        if (t + s < t1) raw[s] = load_vec<T, V>(xb + (t + s) * sx);
#pragma unroll
      for (int s = 0; s < kSteps; ++s) {
        if (t + s >= t1) break;
        unpack<T, V>(raw[s], hist[W - 1]);
        const unsigned mask = window_mask<W>(p, b, t + s);
        A win[W][V];
#pragma unroll
        for (int j = 0; j < W; ++j)
#pragma unroll
          for (int v = 0; v < V; ++v) win[j][v] = kept(mask, j, hist[j][v]);
        A out[V];
#pragma unroll
        for (int v = 0; v < V; ++v) {
          const A z = taps.pre_activation(v, win);
          out[v] = kept(mask, W - 1, p.silu ? activate<T, true>(z) : z);
        }
        store_run<T, V>(yb + (t + s) * sy, out);
#pragma unroll
        for (int j = 0; j + 1 < W; ++j)
#pragma unroll
          for (int v = 0; v < V; ++v) hist[j][v] = hist[j + 1][v];
      }
    }
  });
}

// ---- Backward -----------------------------------------------------------------

// The backward in warp segments, walked right to left: a lane's g for the
// W-1 timesteps after its run (which dx needs) comes from the lanes after it
// by shuffle, or from the step to the right (gcarry); its W-1 inputs before
// the run from the lanes before it, or from memory for the first lanes.
template <class T, int W, class Wt = T>
__global__ void __launch_bounds__(kThreads) backward_tvec_kernel(Conv1dProblem p, Acc<T> *partials) {
  using A = Acc<T>;
  constexpr int V = 1;  // element-wise: the layouts without a staged path
  const int lane = threadIdx.x % 32;
  const int64_t units = (p.length + V - 1) / V;
  const int64_t seg_begin =
      (static_cast<int64_t>(blockIdx.x) * (kThreads / 32) + threadIdx.x / 32) * 32 * kSegmentSteps;
  const int64_t seg_end = seg_begin + 32 * kSegmentSteps < units ? seg_begin + 32 * kSegmentSteps : units;
  const int steps = seg_begin < units ? static_cast<int>((seg_end - seg_begin + 31) / 32) : 0;
  const int64_t rows = p.batch * p.channels;
  for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    int64_t b, c;
    split_row(row, p.channels, b, c);
    const T *xr = at<T>(p.x, b, c, 0), *dyr = at<T>(p.dy, b, c, 0);
    T *dxr = at<T>(p.dx, b, c, 0);
    const int64_t sx = p.x.stride[2], sdy = p.dy.stride[2], sdx = p.dx.stride[2];
    const Taps<T, W, Wt> taps(p, c);
    A parts[W + 1] = {};
    A gcarry[W - 1];  // g at the W-1 timesteps after the step's last live unit
#pragma unroll
    for (int m = 0; m < W - 1; ++m)
      gcarry[m] = steps && seg_end * V + m < p.length ? upstream_at(p, taps, b, c, seg_end * V + m) : A(0);
    for (int top = steps - 1; top >= 0; top -= kPrefetch) {
      Vec<T, V> rx[kPrefetch], rdy[kPrefetch];
#pragma unroll
      for (int q = 0; q < kPrefetch; ++q) {
        const int64_t u = seg_begin + (top - q) * 32 + lane;
        if (top - q >= 0 && u < seg_end) {
          rx[q] = load_vec<T, V>(xr + u * V * sx);
          rdy[q] = load_vec<T, V>(dyr + u * V * sdy);
        }
      }
#pragma unroll
      for (int q = 0; q < kPrefetch; ++q) {
        const int step = top - q;
        if (step < 0) break;
        const int64_t step_begin = seg_begin + step * 32;
        const int64_t live_end = step_begin + 32 < seg_end ? step_begin + 32 : seg_end;
        const int64_t u = step_begin + lane;
        const bool live = u < live_end;
        const int64_t t0 = u * V;
        A xs[W - 1 + V], g[V];
        if (live) {
          unpack<T, V>(rx[q], xs + W - 1);
          unpack<T, V>(rdy[q], g);
        } else {
#pragma unroll
          for (int e = 0; e < V; ++e) xs[W - 1 + e] = g[e] = A(0);
        }
        // The inputs before the run: from the lanes before; for the first
        // lanes, from the step to the left when this group loaded it, else
        // from memory (a load only those lanes make).
        const bool left_loaded = q + 1 < kPrefetch && step > 0;
#pragma unroll
        for (int j = 0; j < W - 1; ++j) {
          const int back = W - 1 - j, d = (back + V - 1) / V, e = d * V - back;
          const A from_lane = __shfl_up_sync(0xffffffffu, xs[W - 1 + e], d);
          A left = A(0);
          if (q + 1 < kPrefetch) {
            T word;
            memcpy(&word, &rx[q + 1 < kPrefetch ? q + 1 : q].v[e], sizeof(T));  // (q + 1 in range here)
            left = __shfl_sync(0xffffffffu, Accum<T>::load(word), (lane + 32 - d) % 32);
          }
          xs[j] = lane >= d ? from_lane : left;
          if (lane < d && !left_loaded) xs[j] = x_pad<T, W>(p, b, c, t0 - back);
        }
        static_assert(V == 1, "one window mask per lane");
        const unsigned in_mask = live ? window_mask<W>(p, b, t0) : 0u, out_mask = live ? ahead_mask<W>(p, b, t0) : 0u;
#pragma unroll
        for (int j = 0; j < W - 1; ++j) xs[j] = kept(in_mask, j, xs[j]);
        if (p.silu) {
#pragma unroll
          for (int e = 0; e < V; ++e) g[e] = upstream<T, W, true>(taps, xs + e, g[e]);
        }
#pragma unroll
        for (int e = 0; e < V; ++e) g[e] = kept(in_mask, W - 1, g[e]);
        A gs[V + W - 1];  // g over the run and the W-1 timesteps after it
#pragma unroll
        for (int e = 0; e < V; ++e) gs[e] = g[e];
#pragma unroll
        for (int m = 0; m < W - 1; ++m) {
          const int d = m / V + 1, e = m % V;
          const A from_lane = __shfl_down_sync(0xffffffffu, g[e], d);
          const int64_t pos = t0 + V + m - live_end * V;  // >= 0 past the step's live units
          A from_carry = gcarry[0];
#pragma unroll
          for (int k = 1; k < W - 1; ++k)
            if (pos == k) from_carry = gcarry[k];
          gs[V + m] = u + d < live_end ? from_lane : from_carry;
        }
#pragma unroll
        for (int m = 0; m < W - 1; ++m) gcarry[m] = __shfl_sync(0xffffffffu, g[m % V], m / V);
        if (live) {
          A dx[V];
#pragma unroll
          for (int e = 0; e < V; ++e) {
            A sum = A(0);
#pragma unroll
            for (int k = 0; k < W; ++k) sum += taps.w[k] * kept(out_mask, e + W - 1 - k, gs[e + W - 1 - k]);
            dx[e] = sum;
#pragma unroll
            for (int k = 0; k < W; ++k) parts[k] += g[e] * xs[e + k];
            parts[W] += g[e];
          }
          store_run<T, V>(dxr + t0 * sdx, dx);
        }
      }
    }
    block_partials<A, W>(parts, partials, b * gridDim.x + blockIdx.x, p.channels, c);
  }
}

template <class T, int W, class Wt = T>
__global__ void __launch_bounds__(kThreads) backward_walk_kernel(Conv1dProblem p, Acc<T> *partials) {
  using A = Acc<T>;
  constexpr int V = 1;       // element-wise: the layouts without a staged path
  constexpr int kSteps = 4;  // timesteps whose loads are in flight together
  const int64_t group = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (group * V >= p.channels) return;
  const int64_t c0 = group * V;
  const ChannelTaps<T, W, V, Wt> taps(p, c0);
  for_each_walk_chunk(p, [&](int64_t pair, int64_t b, int64_t t0, int64_t t1) {
    const T *xb = at<T>(p.x, b, c0, 0), *dyb = at<T>(p.dy, b, c0, 0);
    T *dxb = at<T>(p.dx, b, c0, 0);
    const int64_t sx = p.x.stride[2], sdy = p.dy.stride[2], sdx = p.dx.stride[2];
    // Step s computes g[s] from x_pad[s - (W-1) .. s] and, W-1 steps behind, dx[s - (W-1)].
    A xw[W][V], gw[W][V], parts[W + 1][V];
#pragma unroll
    for (int v = 0; v < V; ++v) {
#pragma unroll
      for (int j = 0; j < W; ++j) gw[j][v] = A(0);
#pragma unroll
      for (int k = 0; k <= W; ++k) parts[k][v] = A(0);
#pragma unroll
      for (int j = 0; j < W - 1; ++j) xw[j + 1][v] = x_pad<T, W>(p, b, c0 + v, t0 - (W - 1) + j);
    }
    for (int64_t s0 = t0; s0 < t1 + W - 1; s0 += kSteps) {
      Vec<T, V> rx[kSteps], rdy[kSteps];
#pragma unroll
      for (int q = 0; q < kSteps; ++q)
        if (s0 + q < p.length) {
          rx[q] = load_vec<T, V>(xb + (s0 + q) * sx);
          rdy[q] = load_vec<T, V>(dyb + (s0 + q) * sdy);
        }
#pragma unroll
      for (int q = 0; q < kSteps; ++q) {
        const int64_t s = s0 + q;
        if (s >= t1 + W - 1) break;
        const bool in = s < p.length;
        A xs[V], dys[V];
        if (in) {
          unpack<T, V>(rx[q], xs);
          unpack<T, V>(rdy[q], dys);
        }
        // The inputs in step s's sequence; the steps in the sequence of dx's step s - (W-1).
        const bool stores = s - (W - 1) >= t0;
        const unsigned in_mask = in ? window_mask<W>(p, b, s) : 0u;
        const unsigned out_mask = stores ? ahead_mask<W>(p, b, s - (W - 1)) : 0u;
        A dx[V], xm[W][V], gm[W][V];
#pragma unroll
        for (int v = 0; v < V; ++v) {
#pragma unroll
          for (int j = 0; j + 1 < W; ++j) {
            xw[j][v] = xw[j + 1][v];
            gw[j][v] = gw[j + 1][v];
          }
          xw[W - 1][v] = in ? xs[v] : A(0);
#pragma unroll
          for (int j = 0; j < W; ++j) xm[j][v] = kept(in_mask, j, xw[j][v]);
          A g = in ? dys[v] : A(0);
          if (p.silu && in) g *= activation_slope<Wt, true>(taps.pre_activation(v, xm));
          g = kept(in_mask, W - 1, g);
          gw[W - 1][v] = g;
          if (s < t1) add_partials<T, W, V>(parts, v, g, xm);
#pragma unroll
          for (int j = 0; j < W; ++j) gm[j][v] = kept(out_mask, j, gw[j][v]);
          dx[v] = taps.transposed(v, gm);
        }
        if (stores) store_run<T, V>(dxb + (s - (W - 1)) * sdx, dx);
      }
    }
    A *slot = partials + (pair * p.channels + c0) * (W + 1);
#pragma unroll
    for (int v = 0; v < V; ++v)
#pragma unroll
      for (int k = 0; k <= W; ++k) slot[v * (W + 1) + k] = parts[k][v];
  });
}

}  // namespace baracuda::kernels::conv1d
