// Causal conv1d kernels, one instantiation per element type (the .cu files).
//
// Layouts whose rows allow 16-byte copies (stride 1 along L, or along C for
// 2- and 4-byte types) take the staged kernels of conv1d_staged.cuh. Every
// other layout (misaligned pointers, extents that are not a multiple of the
// vector, general strides) takes the element-wise kernels here:
//   tvec: a thread takes one timestep of a (b, c) row, a warp a stretch of
//         the row, the W-1 inputs before a lane from the lanes before it:
//         where the stride along L is the smaller one.
//   walk: a thread takes one channel of one b and walks a chunk of
//         timesteps, keeping the last W-1 inputs in registers: otherwise.
// Also here: the reduction of the backward's dw/db partial sums (per channel,
// in slot order: no atomics), FINAL_STATES / DINITIAL_STATES, the update,
// and the launches.
#pragma once

#include "causal_conv1d/conv1d_math.cuh"
#include "causal_conv1d/conv1d_staged.cuh"

namespace baracuda::kernels::conv1d {

// upstream with the activation chosen at run time, for the kernels below that
// serve the layouts without a staged path.
template <class T, int W>
__device__ __forceinline__ Acc<T> upstream_of(const Conv1dProblem &p, const Taps<T, W> &taps, const Acc<T> *xs,
                                              Acc<T> dy) {
  return p.silu ? upstream<T, W, true>(taps, xs, dy) : dy;
}

// ---- Forward ------------------------------------------------------------------

// A warp takes kSegmentSteps * 32 consecutive units (V timesteps each) of a
// row, 32 at a time, lane i the i-th; the W-1 inputs before a lane's run
// come from the lanes before it by shuffle, and for the first lanes from the
// previous step's last lanes (carry): every input is loaded once.
#ifndef BARACUDA_CONV1D_SEGMENT_STEPS
#define BARACUDA_CONV1D_SEGMENT_STEPS 8
#endif
constexpr int kSegmentSteps = BARACUDA_CONV1D_SEGMENT_STEPS;
// Steps of a segment whose loads are in flight together, forward and backward.
#ifndef BARACUDA_CONV1D_PREFETCH
#define BARACUDA_CONV1D_PREFETCH 4
#endif
constexpr int kPrefetch = BARACUDA_CONV1D_PREFETCH;

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

template <class T, int W>
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
    const Taps<T, W> taps(p, c);
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
          A out[V];
#pragma unroll
          for (int e = 0; e < V; ++e) {
            A z = taps.bias;
#pragma unroll
            for (int j = 0; j < W; ++j) z += taps.w[j] * xs[e + j];
            out[e] = p.silu ? activate<T, true>(z) : z;
          }
          store_run<T, V>(yr + u * V * sy, out);
        }
      }
    }
  }
}

template <class T, int W>
__global__ void __launch_bounds__(kThreads) forward_walk_kernel(Conv1dProblem p) {
  using A = Acc<T>;
  constexpr int V = 1;       // element-wise: the layouts without a staged path
  constexpr int kSteps = 8;  // timesteps whose loads are in flight together
  const int64_t group = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (group * V >= p.channels) return;
  const int64_t c0 = group * V;
  const ChannelTaps<T, W, V> taps(p, c0);
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
        A out[V];
#pragma unroll
        for (int v = 0; v < V; ++v) {
          const A z = taps.pre_activation(v, hist);
          out[v] = p.silu ? activate<T, true>(z) : z;
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
template <class T, int W>
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
    const Taps<T, W> taps(p, c);
    auto g_at = [&](int64_t t) {  // g at timestep t < L, from memory
      A xw[W];
#pragma unroll
      for (int j = 0; j < W; ++j) xw[j] = x_pad<T, W>(p, b, c, t - (W - 1) + j);
      return upstream_of<T, W>(p, taps, xw, Accum<T>::load(dyr[t * sdy]));
    };
    A parts[W + 1] = {};
    A gcarry[W - 1];  // g at the W-1 timesteps after the step's last live unit
#pragma unroll
    for (int m = 0; m < W - 1; ++m) gcarry[m] = steps && seg_end * V + m < p.length ? g_at(seg_end * V + m) : A(0);
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
        if (p.silu) {
#pragma unroll
          for (int e = 0; e < V; ++e) g[e] = upstream<T, W, true>(taps, xs + e, g[e]);
        }
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
            for (int k = 0; k < W; ++k) sum += taps.w[k] * gs[e + W - 1 - k];
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

template <class T, int W>
__global__ void __launch_bounds__(kThreads) backward_walk_kernel(Conv1dProblem p, Acc<T> *partials) {
  using A = Acc<T>;
  constexpr int V = 1;       // element-wise: the layouts without a staged path
  constexpr int kSteps = 4;  // timesteps whose loads are in flight together
  const int64_t group = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (group * V >= p.channels) return;
  const int64_t c0 = group * V;
  const ChannelTaps<T, W, V> taps(p, c0);
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
        A dx[V];
#pragma unroll
        for (int v = 0; v < V; ++v) {
#pragma unroll
          for (int j = 0; j + 1 < W; ++j) {
            xw[j][v] = xw[j + 1][v];
            gw[j][v] = gw[j + 1][v];
          }
          xw[W - 1][v] = in ? xs[v] : A(0);
          A g = in ? dys[v] : A(0);
          if (p.silu && in) g *= activation_slope<T, true>(taps.pre_activation(v, xw));
          gw[W - 1][v] = g;
          if (s < t1) add_partials<T, W, V>(parts, v, g, xw);
          dx[v] = taps.transposed(v, gw);
        }
        if (s - (W - 1) >= t0) store_run<T, V>(dxb + (s - (W - 1)) * sdx, dx);
      }
    }
    A *slot = partials + (pair * p.channels + c0) * (W + 1);
#pragma unroll
    for (int v = 0; v < V; ++v)
#pragma unroll
      for (int k = 0; k <= W; ++k) slot[v * (W + 1) + k] = parts[k][v];
  });
}

// dw[c, k] and db[c]: the slots' partial sums, in slot order.
template <class T, int W>
__global__ void __launch_bounds__(kThreads)
    reduce_partials_kernel(Conv1dProblem p, const Acc<T> *partials, int64_t slots) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= p.channels * (W + 1)) return;
  const int64_t c = i / (W + 1);
  const int k = static_cast<int>(i - c * (W + 1));
  Acc<T> sum = Acc<T>(0);
  for (int64_t s = 0; s < slots; ++s) sum += partials[s * p.channels * (W + 1) + i];
  if (k < W && p.dweight.data) *at<T>(p.dweight, c, k, 0) = Accum<T>::store(sum);
  if (k == W && p.dbias.data) *at<T>(p.dbias, c, 0, 0) = Accum<T>::store(sum);
}

// ---- Row ends: the forward's FINAL_STATES, the backward's DINITIAL_STATES ----

template <class T, int W>
__global__ void __launch_bounds__(kThreads) row_ends_kernel(Conv1dProblem p) {
  using A = Acc<T>;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (row >= p.batch * p.channels) return;
  int64_t b, c;
  split_row(row, p.channels, b, c);
  if (p.final_states.data)
#pragma unroll
    for (int j = 0; j < W - 1; ++j)
      *at<T>(p.final_states, b, c, j) = Accum<T>::store(x_pad<T, W>(p, b, c, p.length - (W - 1) + j));
  if (!p.dinitial.data) return;
  // dinitial[j] = sum_{k <= j} w[k] g[j - k], over the first W-1 timesteps.
  const Taps<T, W> taps(p, c);
  A g[W - 1];
#pragma unroll
  for (int s = 0; s < W - 1; ++s) {
    if (s >= p.length) {
      g[s] = A(0);
      continue;
    }
    A xs[W];
#pragma unroll
    for (int j = 0; j < W; ++j) xs[j] = x_pad<T, W>(p, b, c, s - (W - 1) + j);
    g[s] = upstream_of<T, W>(p, taps, xs, get<T>(p.dy, b, c, s));
  }
#pragma unroll
  for (int j = 0; j < W - 1; ++j) {
    A sum = A(0);
#pragma unroll
    for (int k = 0; k <= j; ++k) sum += taps.w[k] * g[j - k];
    *at<T>(p.dinitial, b, c, j) = Accum<T>::store(sum);
  }
}

// ---- Update -------------------------------------------------------------------

template <class T, int W>
__global__ void __launch_bounds__(kThreads) update_kernel(Conv1dProblem p) {
  using A = Acc<T>;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (row >= p.batch * p.channels) return;
  int64_t b, c;
  split_row(row, p.channels, b, c);
  const Taps<T, W> taps(p, c);
  const int64_t n = p.length, S = p.state_len;
  const bool circular = p.cache_seqlens.data != nullptr;
  int64_t pos = 0;
  if (circular) {
    pos = static_cast<const int32_t *>(p.cache_seqlens.data)[b * p.cache_seqlens.stride[0]] % S;
    if (pos < 0) pos += S;
  }
  auto slot = [&](int64_t j) {  // state index of the input j steps before token 0 (j < 0) or token j
    if (!circular) return S + j;
    const int64_t q = (pos + j) % S;
    return q < 0 ? q + S : q;
  };
  A win[W];  // x[i - (W-1) + j], the state before token 0
#pragma unroll
  for (int j = 0; j < W - 1; ++j) win[j + 1] = get<T>(p.state, b, c, slot(j - (W - 1)));
  for (int64_t i = 0; i < n; ++i) {
#pragma unroll
    for (int j = 0; j + 1 < W; ++j) win[j] = win[j + 1];
    win[W - 1] = get<T>(p.x, b, c, i);
    A z = taps.bias;
#pragma unroll
    for (int j = 0; j < W; ++j) z += taps.w[j] * win[j];
    *at<T>(p.y, b, c, i) = Accum<T>::store(p.silu ? activate<T, true>(z) : z);
  }
  if (circular) {
    for (int64_t i = 0; i < n; ++i) *at<T>(p.state, b, c, slot(i)) = *at<T>(p.x, b, c, i);
  } else {  // shift left by n, ascending, so every entry is read before it is overwritten
    for (int64_t s = 0; s < S; ++s)
      *at<T>(p.state, b, c, s) = s + n < S ? *at<T>(p.state, b, c, s + n) : *at<T>(p.x, b, c, s + n - S);
  }
}

// ---- Launches (host) ----------------------------------------------------------

inline int launch_error() { return -static_cast<int>(cudaGetLastError()); }

inline bool aligned(const Conv1dView &v, int bytes) {
  return (reinterpret_cast<uintptr_t>(v.data) % static_cast<uintptr_t>(bytes)) == 0;
}

// Every view in views has stride 1 on axis `fast`, the others a multiple of
// V, and V-element alignment; extent along `fast` a multiple of V.
template <class T, int V>
bool vector_layout(std::initializer_list<const Conv1dView *> views, int fast, int64_t extent) {
  if (extent % V != 0) return false;
  for (const Conv1dView *v : views) {
    if (v->stride[fast] != 1 || !aligned(*v, static_cast<int>(sizeof(T)) * V)) return false;
    for (int a = 0; a < 3; ++a)
      if (a != fast && v->stride[a] % V != 0) return false;
  }
  return true;
}

enum class Walk { TimeTiles, ChannelTiles, Time, Channel };

// Time tiles where rows are contiguous and 16-byte aligned; channel tiles
// where channels are (2- and 4-byte types: an f64 box would not fit the
// ring); else the register-fed kernels along the smaller stride.
template <class T>
Walk choose_walk(const Conv1dProblem &p, std::initializer_list<const Conv1dView *> views) {
  if (vector_layout<T, kTimeVec<T>>(views, 2, p.length)) return Walk::TimeTiles;
  if (sizeof(T) <= 4 && vector_layout<T, kTimeVec<T>>(views, 1, p.channels)) return Walk::ChannelTiles;
  const int64_t st = p.x.stride[2] < 0 ? -p.x.stride[2] : p.x.stride[2];
  const int64_t sc = p.x.stride[1] < 0 ? -p.x.stride[1] : p.x.stride[1];
  return st <= sc ? Walk::Time : Walk::Channel;
}

inline dim3 rows_grid(int64_t x, int64_t rows) {
  return dim3(static_cast<unsigned>(x), static_cast<unsigned>(rows < kMaxGridY ? rows : kMaxGridY));
}
constexpr int64_t kUnitsPerBlock = kThreads * kSegmentSteps;  // each warp a segment of 32 * kSegmentSteps
inline dim3 tvec_grid(const Conv1dProblem &p) {
  return rows_grid((p.length + kUnitsPerBlock - 1) / kUnitsPerBlock, p.batch * p.channels);
}
template <int Steps>
dim3 time_tiles_grid(const Conv1dProblem &p, int v) {
  constexpr int64_t vecs = TimeTiles<Steps>::kVecs;
  const int64_t tiles = (p.length / v + vecs - 1) / vecs;
  return rows_grid((tiles + kTilesPerBlock - 1) / kTilesPerBlock, p.batch * p.channels);
}
// Blocks of kThreads * v channels by (b, chunk) pairs: the walk and the channel tiles.
inline dim3 walk_grid(const Conv1dProblem &p, int v) {
  const int64_t groups = (p.channels + v - 1) / v;
  return rows_grid((groups + kThreads - 1) / kThreads, p.batch * ((p.length + kChunk - 1) / kChunk));
}
// Every launch's x extent within 2^31 - 1 blocks: the tvec grid (the widest
// along L), the walk grids, and the one-thread-per-row (B*C) and per-tap
// (C*(W+1)) kernels.
inline bool grid_fits(const Conv1dProblem &p) {
  return (p.length + kUnitsPerBlock - 1) / kUnitsPerBlock <= INT_MAX && p.channels / kThreads < INT_MAX &&
         p.batch * p.channels / kThreads < INT_MAX && p.channels * (p.width + 1) / kThreads < INT_MAX;
}

// fn(std::true_type) where silu, else fn(std::false_type): the staged
// kernels take the activation as a template argument.
template <class Fn>
void with_silu(bool silu, Fn &&fn) {
  if (silu) {
    fn(std::true_type{});
  } else {
    fn(std::false_type{});
  }
}

inline unsigned blocks_for(int64_t threads) { return static_cast<unsigned>((threads + kThreads - 1) / kThreads); }

template <class T, int W>
int forward_width(const Conv1dProblem &p, cudaStream_t stream) {
  if (p.batch * p.channels * p.length > 0) {
    switch (choose_walk<T>(p, {&p.x, &p.y})) {
      case Walk::TimeTiles:
        with_silu(p.silu, [&](auto silu) {
          forward_time_tiles_kernel<T, W, silu>
              <<<time_tiles_grid<kForwardTileSteps>(p, kTimeVec<T>), kThreads, 0, stream>>>(p);
        });
        break;
      case Walk::ChannelTiles:
        if constexpr (sizeof(T) <= 4)
          with_silu(p.silu, [&](auto silu) {
            forward_channel_tiles_kernel<T, W, silu><<<walk_grid(p, kForwardChannelVec<T>), kThreads, 0, stream>>>(p);
          });
        break;
      case Walk::Time:
        forward_tvec_kernel<T, W><<<tvec_grid(p), kThreads, 0, stream>>>(p);
        break;
      case Walk::Channel:
        forward_walk_kernel<T, W><<<walk_grid(p, 1), kThreads, 0, stream>>>(p);
        break;
    }
    if (const int rc = launch_error()) return rc;
  }
  if (p.final_states.data && p.batch * p.channels > 0) {
    row_ends_kernel<T, W><<<blocks_for(p.batch * p.channels), kThreads, 0, stream>>>(p);
    return launch_error();
  }
  return 0;
}

template <class T, int W>
int backward_width(const Conv1dProblem &p, Acc<T> *partials, cudaStream_t stream) {
  int64_t slots = 0;
  if (p.batch * p.channels * p.length > 0) {
    const int64_t chunk_slots = p.batch * ((p.length + kChunk - 1) / kChunk);
    switch (choose_walk<T>(p, {&p.x, &p.dy, &p.dx})) {
      case Walk::TimeTiles: {
        const dim3 grid = time_tiles_grid<kBackwardTileSteps>(p, kTimeVec<T>);
        slots = p.batch * grid.x;
        with_silu(p.silu, [&](auto silu) {
          backward_time_tiles_kernel<T, W, silu><<<grid, kThreads, 0, stream>>>(p, partials);
        });
        break;
      }
      case Walk::ChannelTiles:
        slots = chunk_slots;
        if constexpr (sizeof(T) <= 4)
          with_silu(p.silu, [&](auto silu) {
            backward_channel_tiles_kernel<T, W, silu>
                <<<walk_grid(p, kBackwardChannelVec<T>), kThreads, 0, stream>>>(p, partials);
          });
        break;
      case Walk::Time: {
        const dim3 grid = tvec_grid(p);
        slots = p.batch * grid.x;
        backward_tvec_kernel<T, W><<<grid, kThreads, 0, stream>>>(p, partials);
        break;
      }
      case Walk::Channel:
        slots = chunk_slots;
        backward_walk_kernel<T, W><<<walk_grid(p, 1), kThreads, 0, stream>>>(p, partials);
        break;
    }
    if (const int rc = launch_error()) return rc;
  }
  if ((p.dweight.data || p.dbias.data) && p.channels > 0) {
    reduce_partials_kernel<T, W><<<blocks_for(p.channels * (W + 1)), kThreads, 0, stream>>>(p, partials, slots);
    if (const int rc = launch_error()) return rc;
  }
  if (p.dinitial.data && p.batch * p.channels > 0) {
    row_ends_kernel<T, W><<<blocks_for(p.batch * p.channels), kThreads, 0, stream>>>(p);
    return launch_error();
  }
  return 0;
}

template <class T, int W>
int update_width(const Conv1dProblem &p, cudaStream_t stream) {
  if (p.batch * p.channels == 0) return 0;
  update_kernel<T, W><<<blocks_for(p.batch * p.channels), kThreads, 0, stream>>>(p);
  return launch_error();
}

// fn(std::integral_constant<int, W>) for the widths served, 2, 3 and 4 (the
// plan rejects others first).
template <class Fn>
int with_width(int width, Fn &&fn) {
  switch (width) {
    case 2:
      return fn(std::integral_constant<int, 2>{});
    case 3:
      return fn(std::integral_constant<int, 3>{});
    case 4:
      return fn(std::integral_constant<int, 4>{});
    default:
      return 3;
  }
}

template <class T>
int forward(const Conv1dProblem &p, cudaStream_t stream) {
  if (!grid_fits(p)) return 3;
  return with_width(p.width, [&](auto w) { return forward_width<T, decltype(w)::value>(p, stream); });
}

template <class T>
int backward(const Conv1dProblem &p, void *workspace, size_t workspace_bytes, cudaStream_t stream) {
  if (!grid_fits(p)) return 3;
  if (workspace_bytes < causal_conv1d_backward_workspace(p.batch, p.channels, p.length, p.width, sizeof(T) == 8))
    return 4;
  auto *partials = static_cast<Acc<T> *>(workspace);
  return with_width(p.width, [&](auto w) { return backward_width<T, decltype(w)::value>(p, partials, stream); });
}

template <class T>
int update(const Conv1dProblem &p, cudaStream_t stream) {
  if (!grid_fits(p)) return 3;
  return with_width(p.width, [&](auto w) { return update_width<T, decltype(w)::value>(p, stream); });
}

}  // namespace baracuda::kernels::conv1d

#define BARACUDA_CAUSAL_CONV1D_ENTRIES(NAME, TYPE)                                                             \
  const baracuda::kernels::Conv1dEntries baracuda::kernels::NAME = {baracuda::kernels::conv1d::forward<TYPE>,  \
                                                                    baracuda::kernels::conv1d::backward<TYPE>, \
                                                                    baracuda::kernels::conv1d::update<TYPE>}
