// What every causal conv1d kernel shares: element access through strided
// views, vector packs, the activation and its slope in the accumulator type,
// a channel's taps, and the block reduction of dw/db partial sums.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstring>
#include <type_traits>

#include "causal_conv1d/causal_conv1d_kernels.h"
#include "common/accumulate.cuh"
#include "common/element_words.cuh"
#include "common/fast_divisor.h"

namespace baracuda::kernels::conv1d {

constexpr int kThreads = Conv1dTraits::kThreads;
constexpr int kChunk = Conv1dTraits::kChunk;
constexpr int kMinWidth = Conv1dTraits::kMinWidth;
constexpr int kMaxWidth = Conv1dTraits::kMaxWidth;

template <class T>
constexpr int kTimeVec = 16 / sizeof(T);
// V elements, loaded and stored through `raw` as one vector access (a copy
// of the element array compiles to one access per element: measured 59% of
// sectors wasted).
template <class T, int V>
union Vec {
  typename Word<sizeof(T) * V>::type raw;
  typename Word<sizeof(T)>::type v[V];
};

template <class T>
using Acc = typename Accum<T>::type;

template <class T>
__device__ __forceinline__ T *at(const Conv1dView &v, int64_t i0, int64_t i1, int64_t i2) {
  return static_cast<T *>(v.data) + i0 * v.stride[0] + i1 * v.stride[1] + i2 * v.stride[2];
}
template <class T>
__device__ __forceinline__ Acc<T> get(const Conv1dView &v, int64_t i0, int64_t i1, int64_t i2) {
  return Accum<T>::load(*at<T>(v, i0, i1, i2));
}

// sigmoid in T's accumulator. f32 math takes the hardware exp2 and
// reciprocal: within a few ulp, far cheaper than the IEEE paths, which made
// the kernels instruction-bound; their flush-to-zero forms, since without it
// each takes a denormal fix-up of several instructions (a sigmoid under 2^-126
// is 0 here, where z * sigmoid(z) is under 2^-119). bf16 (whose output
// rounding is 2^-9) takes one tanh.approx (error 2^-11) instead: measured 25%
// faster channels-last.
template <class T>
constexpr bool kTanhSilu = Conv1dTraits::kTanhSigmoid && std::is_same_v<T, __nv_bfloat16>;
template <class T>
__device__ __forceinline__ Acc<T> sigmoid(Acc<T> z) {
  if constexpr (sizeof(T) == 8) {
    return 1.0 / (1.0 + exp(-z));
  } else if constexpr (kTanhSilu<T>) {
    float t;
    asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(0.5f * z));
    return fmaf(0.5f, t, 0.5f);
  } else {
    float e, s;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(-1.4426950408889634f * z));
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(s) : "f"(1.0f + e));
    return s;
  }
}

// bf16's SiLU at z = 2h: z sigmoid(z) = h (1 + tanh(h)), one FMA after the
// tanh (z times the sigmoid above took a multiply more and one before).
__device__ __forceinline__ float silu_at_half(float h) {
  float t;
  asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(h));
  return fmaf(h, t, h);
}
// The activation is a compile-time choice in the staged kernels' loops: a
// runtime one compiled to a branch per element, each element in
// its own basic block, and cost the instruction-level parallelism between them.
template <class T, bool Silu>
__device__ __forceinline__ Acc<T> activate(Acc<T> z) {
  if constexpr (Silu && kTanhSilu<T>) {
    return silu_at_half(0.5f * z);
  } else if constexpr (Silu) {
    return z * sigmoid<T>(z);
  } else {
    return z;
  }
}
// d act / d z at z.
template <class T, bool Silu>
__device__ __forceinline__ Acc<T> activation_slope(Acc<T> z) {
  using A = Acc<T>;
  if constexpr (Silu) {
    const A s = sigmoid<T>(z);
    return s * (A(1) + z * (A(1) - s));
  } else {
    return A(1);
  }
}
// The bf16 SiLU backward through t = tanh(h), h = z/2 (the sigmoid above):
// 2 g = dy (1 + t + h (1 - t^2)), four instructions once h is summed. A kernel
// taking it keeps its taps halved (exact), so that their sum is h and
// sum_k (w_k / 2) (2 g) is the dx it would have summed, and halves the 2 g
// where it accumulates them (exact as well).
template <class T, bool Silu>
constexpr bool kHalvedSilu = Silu && kTanhSilu<T>;
__device__ __forceinline__ float doubled_upstream_at_half(float h, float dy) {
  float t;
  asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(h));
  return fmaf(dy, fmaf(h, fmaf(-t, t, 1.0f), t), dy);
}

// f16's forward SiLU from u = c z, c = -log2(e): z sigmoid(z) = u / (c (1 +
// 2^u)), the sigmoid's ex2 and rcp with one FMA and one multiply between
// them (z rcp(1 + ex2(c z)) takes a multiply more). f16 keeps the two MUFU:
// tanh's 2^-11 error, amplified where 1 + tanh cancels, cost it up to 15 ulps
// at z = -4 (session 21).
template <class T, bool Silu>
constexpr bool kExponentSilu = Silu && std::is_same_v<T, __half>;
constexpr float kNegLog2e = -1.4426950408889634f;
__device__ __forceinline__ float silu_from_exponent(float u) {
  float e, r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(u));
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(fmaf(kNegLog2e, e, kNegLog2e)));
  return u * r;
}

// The forward's taps are scaled by kForwardTapScale: 1/2 where the SiLU
// takes half its input (bf16, as the backward's kHalvedSilu), -log2(e) where
// it takes the exponent (f16): their sum is then the value activate_scaled
// takes, without the multiply (the staged forward ran ~10 instructions an
// element).
template <class T, bool Silu>
constexpr float kForwardTapScale = kHalvedSilu<T, Silu> ? 0.5f : kExponentSilu<T, Silu> ? kNegLog2e : 1.0f;
template <class T, bool Silu>
__device__ __forceinline__ Acc<T> activate_scaled(Acc<T> sum) {
  if constexpr (kHalvedSilu<T, Silu>) {
    return silu_at_half(sum);
  } else if constexpr (kExponentSilu<T, Silu>) {
    return silu_from_exponent(sum);
  } else {
    return activate<T, Silu>(sum);
  }
}

// Channel c's taps and bias, in the accumulator type, read as Wt: the
// weights' element type, T or f32 beside 16-bit x (every kernel takes Wt as
// its last template argument, T by default).
template <class T, int W, class Wt = T>
struct Taps {
  Acc<T> w[W];
  Acc<T> bias;
  Taps() = default;
  __device__ Taps(const Conv1dProblem &p, int64_t c) {
#pragma unroll
    for (int k = 0; k < W; ++k) w[k] = get<Wt>(p.weight, c, k, 0);
    bias = p.bias.data ? get<Wt>(p.bias, c, 0, 0) : Acc<T>(0);
  }
};
// Channel c's taps for the forward: times kForwardTapScale (activate_scaled).
template <class T, int W, bool Silu, class Wt>
__device__ __forceinline__ Taps<T, W, Wt> forward_taps(const Conv1dProblem &p, int64_t c) {
  Taps<T, W, Wt> taps(p, c);
  if constexpr (kForwardTapScale<T, Silu> != 1.0f) {
#pragma unroll
    for (int k = 0; k < W; ++k) taps.w[k] *= kForwardTapScale<T, Silu>;
    taps.bias *= kForwardTapScale<T, Silu>;
  }
  return taps;
}

// A thread's taps and biases of channels c .. c + Vc - 1, times scale (channel
// 0's where c is past the last channel: such threads still run the sums).
template <class T, int W, int Vc, class Wt = T>
struct ChannelTaps {
  Acc<T> w[Vc][W], bias[Vc];
  __device__ ChannelTaps(const Conv1dProblem &p, int64_t c, Acc<T> scale = Acc<T>(1)) {
#pragma unroll
    for (int v = 0; v < Vc; ++v) {
      const Taps<T, W, Wt> taps(p, c < p.channels ? c + v : 0);
#pragma unroll
      for (int k = 0; k < W; ++k) w[v][k] = scale * taps.w[k];
      bias[v] = scale * taps.bias;
    }
  }
  // Channel v's pre-activation over the window x (x[j] = x_pad[t - (W-1) + j]).
  __device__ Acc<T> pre_activation(int v, const Acc<T> (&x)[W][Vc]) const {
    Acc<T> z = bias[v];
#pragma unroll
    for (int j = 0; j < W; ++j) z += w[v][j] * x[j][v];
    return z;
  }
  // pre_activation's sum with each term an explicit FMA, as the channel
  // tiles' code rounds it: the one-box blocks' (left to the compiler, the
  // code of one of their shapes fused the taps' scale into the first add
  // instead: other bits than the channel tiles').
  __device__ Acc<T> fused_pre_activation(int v, const Acc<T> (&x)[W][Vc]) const {
    Acc<T> z = bias[v];
#pragma unroll
    for (int j = 0; j < W; ++j) z = fma(w[v][j], x[j][v], z);
    return z;
  }
  // Channel v's dx at t - (W-1) from the upstream window g (g[j] = g[t - (W-1) + j]).
  __device__ Acc<T> transposed(int v, const Acc<T> (&g)[W][Vc]) const {
    Acc<T> sum = Acc<T>(0);
#pragma unroll
    for (int k = 0; k < W; ++k) sum += w[v][k] * g[W - 1 - k][v];
    return sum;
  }
};

// Channel v's dw and db partial sums (parts[k] for tap k, parts[W] for the
// bias) take the step's upstream g over its input window x.
template <class T, int W, int Vc>
__device__ __forceinline__ void add_partials(Acc<T> (&parts)[W + 1][Vc], int v, Acc<T> g, const Acc<T> (&x)[W][Vc]) {
#pragma unroll
  for (int k = 0; k < W; ++k) parts[k][v] += g * x[k][v];
  parts[W][v] += g;
}

// x padded on the left: x, INITIAL_STATES or 0 at t >= -(W-1).
template <class T, int W>
__device__ __forceinline__ Acc<T> x_pad(const Conv1dProblem &p, int64_t b, int64_t c, int64_t t) {
  if (t >= 0) return get<T>(p.x, b, c, t);
  return p.initial.data ? get<T>(p.initial, b, c, t + W - 1) : Acc<T>(0);
}

// ---- Packed sequences (SEQ_IDX) ----------------------------------------------
// An input reaches an output only within one sequence id; the W-1 padded
// inputs (t < 0) carry timestep 0's id, so INITIAL_STATES feed the row's
// first sequence alone. A negative id marks padding, whose outputs are 0 (and
// whose upstream gradient is therefore 0). Masks are bit sets over a window,
// every bit set without SEQ_IDX.

__device__ __forceinline__ int32_t seq_id(const Conv1dProblem &p, int64_t b, int64_t t) {
  const auto *ids = static_cast<const int32_t *>(p.seq_idx.data);
  return ids[b * p.seq_idx.stride[0] + (t > 0 ? t : 0) * p.seq_idx.stride[1]];
}
// Bit j < W-1: input x_pad[t - (W-1) + j] is in timestep t's sequence (t <
// L); bit W-1: t is not padding (its output is 0 where the bit is clear).
template <int W>
__device__ __forceinline__ unsigned window_mask(const Conv1dProblem &p, int64_t b, int64_t t) {
  if (!p.seq_idx.data) return ~0u;
  const int32_t id = seq_id(p, b, t);
  unsigned mask = static_cast<unsigned>(id >= 0) << (W - 1);
#pragma unroll
  for (int j = 0; j < W - 1; ++j) mask |= static_cast<unsigned>(seq_id(p, b, t - (W - 1) + j) == id) << j;
  return mask;
}
// Bit i: timestep t + i is inside the row and in timestep t's sequence (the
// outputs that input t reaches, i < W).
template <int W>
__device__ __forceinline__ unsigned ahead_mask(const Conv1dProblem &p, int64_t b, int64_t t) {
  if (!p.seq_idx.data) return ~0u;
  const int32_t id = seq_id(p, b, t);
  unsigned mask = 1u;
#pragma unroll
  for (int i = 1; i < W; ++i) mask |= static_cast<unsigned>(t + i < p.length && seq_id(p, b, t + i) == id) << i;
  return mask;
}
template <class A>
__device__ __forceinline__ A kept(unsigned mask, int bit, A v) {
  return (mask >> bit) & 1u ? v : A(0);
}

// The sequence ids of a walking kernel's window, in registers: after
// push(id(s)), id[j] is timestep s - (W-1) + j's. Without Seq it holds
// nothing and its masks are every bit (constants: the masking folds away).
template <int W, bool Seq>
struct SeqWindow {
  int32_t id[W];
  // Loads the ids of the W-1 timesteps before t.
  __device__ __forceinline__ void enter(const Conv1dProblem &p, int64_t b, int64_t t) {
    if constexpr (Seq)
#pragma unroll
      for (int j = 0; j < W - 1; ++j) id[j + 1] = seq_id(p, b, t - (W - 1) + j);
  }
  // Steps to timestep s (< L).
  __device__ __forceinline__ void push(const Conv1dProblem &p, int64_t b, int64_t s) {
    if constexpr (Seq) {
#pragma unroll
      for (int j = 0; j + 1 < W; ++j) id[j] = id[j + 1];
      id[W - 1] = seq_id(p, b, s);
    }
  }
  // As window_mask at s: bit j < W-1, input s - (W-1) + j is in s's
  // sequence; bit W-1, s is not padding.
  __device__ __forceinline__ unsigned inputs() const {
    if constexpr (!Seq) {
      return ~0u;
    } else {
      return matching(W - 1) & ~(static_cast<unsigned>(id[W - 1] < 0) << (W - 1));
    }
  }
  // Bit j: output s - (W-1) + j is in the sequence of input s - (W-1).
  __device__ __forceinline__ unsigned outputs() const { return matching(0); }

 private:
  __device__ __forceinline__ unsigned matching(int at) const {
    if constexpr (!Seq) {
      return ~0u;
    } else {
      unsigned mask = 0;
#pragma unroll
      for (int j = 0; j < W; ++j) mask |= static_cast<unsigned>(id[j] == id[at]) << j;
      return mask;
    }
  }
};

// V consecutive elements from ptr: one vector load when V > 1 (V is 1
// wherever the run's axis is not unit-stride). Kernels load a batch of these
// raw before unpacking any, so that the loads are in flight together (the
// compiler may not move a load above a store to a possibly aliasing output).
template <class T, int V>
__device__ __forceinline__ Vec<T, V> load_vec(const T *ptr) {
  Vec<T, V> v;
  v.raw = *reinterpret_cast<const decltype(v.raw) *>(ptr);
  return v;
}
template <class T, int V>
__device__ __forceinline__ void unpack(const Vec<T, V> &v, Acc<T> *out) {
  if constexpr (std::is_same_v<T, __nv_bfloat16> && V % 2 == 0) {
    // A bf16 is an f32's high half: a word's two elements are one shift and
    // one mask (the conversion per element compiled to a PRMT and a shift
    // for every high half).
    uint32_t w[V / 2];
    memcpy(w, &v.raw, sizeof(w));
#pragma unroll
    for (int i = 0; i < V / 2; ++i) {
      out[2 * i] = __uint_as_float(w[i] << 16);
      out[2 * i + 1] = __uint_as_float(w[i] & 0xffff0000u);
    }
  } else {
#pragma unroll
    for (int e = 0; e < V; ++e) {
      T x;
      memcpy(&x, &v.v[e], sizeof(T));
      out[e] = Accum<T>::load(x);
    }
  }
}
// V elements rounded to T and stored as one access of sizeof(T) * V bytes
// (global memory), packed into 32-bit words. Written as PTX because in the
// staged kernels the compiler split a plain 16-byte store into four 4-byte
// ones (measured: 3.7x the L2 write sectors, L2 at 96% of its throughput).
template <class T>
__device__ __forceinline__ uint64_t bits_of(Acc<T> v) {
  const T x = Accum<T>::store(v);
  typename Word<sizeof(T)>::type w;
  memcpy(&w, &x, sizeof(T));
  return w;
}
template <class T, int V>
__device__ __forceinline__ void store_run(T *ptr, const Acc<T> *in) {
  constexpr int kBytes = static_cast<int>(sizeof(T)) * V;
  if constexpr (kBytes < 4) {
    *ptr = Accum<T>::store(in[0]);
  } else {
    constexpr int kWords = kBytes / 4;
    uint32_t w[kWords];
#pragma unroll
    for (int i = 0; i < kWords; ++i) {
      if constexpr (sizeof(T) == 2) {
        w[i] = static_cast<uint32_t>(bits_of<T>(in[2 * i]) | bits_of<T>(in[2 * i + 1]) << 16);
      } else if constexpr (sizeof(T) == 4) {
        w[i] = static_cast<uint32_t>(bits_of<T>(in[i]));
      } else {
        w[i] = static_cast<uint32_t>(bits_of<T>(in[i / 2]) >> (32 * (i % 2)));
      }
    }
    if constexpr (kWords == 1) {
      *reinterpret_cast<uint32_t *>(ptr) = w[0];
    } else if constexpr (kWords == 2) {
      asm volatile("{\n.reg .u64 g;\ncvta.to.global.u64 g, %0;\nst.global.v2.u32 [g], {%1, %2};\n}" ::"l"(ptr),
                   "r"(w[0]), "r"(w[1]));
    } else {
      asm volatile("{\n.reg .u64 g;\ncvta.to.global.u64 g, %0;\nst.global.v4.u32 [g], {%1, %2, %3, %4};\n}" ::"l"(ptr),
                   "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3]));
    }
  }
}

// (b, c) of row r of B*C, in 32 bits where it fits.
__device__ __forceinline__ void split_row(int64_t r, int64_t channels, int64_t &b, int64_t &c) {
  if (r <= INT32_MAX && channels <= INT32_MAX) {
    b = static_cast<uint32_t>(r) / static_cast<uint32_t>(channels);
    c = static_cast<uint32_t>(r) - static_cast<uint32_t>(b) * static_cast<uint32_t>(channels);
  } else {
    b = r / channels;
    c = r - b * channels;
  }
}
// The same split by the channels' FastDivisor from the host (the zero one,
// where B*C passes 2^31 - 1: the division above). The forward's blocks split
// their first row before their first load, and the division's sequence was
// most of what a short block's loads waited on.
__device__ __forceinline__ void split_row(int64_t r, int64_t channels, FastDivisor channels_div, int64_t &b,
                                          int64_t &c) {
  if (channels_div.multiplier) {
    b = fast_divide_high(static_cast<uint32_t>(r), channels_div);
    c = r - b * channels;
  } else {
    split_row(r, channels, b, c);
  }
}

// The (batch, chunk) pairs of a channel walk's grid: block row y takes pairs
// y, y + gridDim.y, ...; visit(pair, b, t0, t1) for each, [t0, t1) its
// timesteps (pair = b * chunks + chunk also numbers its partial-sum slot).
template <class Visit>
__device__ __forceinline__ void for_each_walk_chunk(const Conv1dProblem &p, Visit &&visit) {
  const int64_t chunks = (p.length + kChunk - 1) / kChunk;
  for (int64_t pair = blockIdx.y; pair < p.batch * chunks; pair += gridDim.y) {
    int64_t b, chunk;
    split_row(pair, chunks, b, chunk);
    const int64_t t0 = chunk * kChunk;
    visit(pair, b, t0, t0 + kChunk < p.length ? t0 + kChunk : p.length);
  }
}

// g = dy * act'(z) at a timestep, from its W inputs xs[0 .. W) = x_pad[t - (W-1) .. t].
// The backward takes the slope as the weights' type Wt asks: f32 weights,
// whose gradients come back in f32, get f32's sigmoid, not bf16's tanh.approx.
template <class T, int W, bool Silu, class Wt>
__device__ __forceinline__ Acc<T> upstream(const Taps<T, W, Wt> &taps, const Acc<T> *xs, Acc<T> dy) {
  if constexpr (Silu) {
    Acc<T> z = taps.bias;
#pragma unroll
    for (int j = 0; j < W; ++j) z += taps.w[j] * xs[j];
    return dy * activation_slope<Wt, true>(z);
  } else {
    return dy;
  }
}

// A channel's taps for a backward that takes g and dx from one set: where
// the slope takes f32's sigmoid, taps scaled by c = -log2(e), so that their
// sum is the exponent ex2 takes, and g scaled by 1/c (dx = sum_k (c w_k)
// (g / c) is the same sum): one multiply less per element than scaling z
// (the time tiles' backward is issue-bound; a second set of taps spilled).
// Sums of g (dw, db) are scaled by grad_scale() = c once, at the end.
// Elsewhere, and with Scaled false, the plain taps and upstream (the row
// groups' backward: there the scaled form took as many instructions, 610 a
// tile and thread of f32 W 4, and the plain one keeps the bits they gave).
// SiluFlag: std::true_type or std::false_type, the activation as a template
// argument of the kernels that use these taps (session 20, H200: as a
// run-time flag it cost those issue-bound kernels 5-40%, the register tiles
// spilling up to 176 bytes at 64 registers; it would have halved their
// instantiations).
template <class T, int W, class Wt, bool Scaled, class SiluFlag>
struct GradTaps {
  static constexpr bool kSilu = SiluFlag::value;
  static constexpr bool kExponentForm = Scaled && kSilu && sizeof(T) < 8 && !kTanhSilu<Wt>;
  static constexpr float kC = -1.4426950408889634f, kLn2 = 0.6931471805599453f;
  Taps<T, W, Wt> taps;
  __device__ GradTaps(const Conv1dProblem &p, int64_t c) : taps(p, c) {
    if constexpr (kExponentForm) {
#pragma unroll
      for (int k = 0; k < W; ++k) taps.w[k] *= kC;
      taps.bias *= kC;
    }
  }
  // What the sums of g / grad_scale() are multiplied by once summed.
  __device__ static constexpr Acc<T> grad_scale() { return kExponentForm ? Acc<T>(kC) : Acc<T>(1); }
  // Tap k of channel c as these taps hold it (k == W: the bias), and the taps
  // from W + 1 such values: for taps staged ahead through shared memory.
  __device__ static Acc<T> tap(const Conv1dProblem &p, int64_t c, int k) {
    const Acc<T> v = k < W ? get<Wt>(p.weight, c, k, 0) : p.bias.data ? get<Wt>(p.bias, c, 0, 0) : Acc<T>(0);
    return kExponentForm ? v * kC : v;
  }
  __device__ explicit GradTaps(const Acc<T> *held) {
#pragma unroll
    for (int k = 0; k < W; ++k) taps.w[k] = held[k];
    taps.bias = held[W];
  }
  // g / grad_scale() at a timestep from its W inputs xs[0 .. W) = x_pad[t - (W-1) .. t].
  __device__ Acc<T> upstream(const Acc<T> *xs, Acc<T> dy) const {
    if constexpr (kSilu) {
      return silu_upstream(xs, dy);
    } else {
      return dy;
    }
  }
  // The same over a vector's elements e (xs of element e at win + e).
  template <int V>
  __device__ __forceinline__ void upstream_vector(const Acc<T> *win, const Acc<T> (&dy)[V], Acc<T> (&g)[V]) const {
#pragma unroll
    for (int e = 0; e < V; ++e) g[e] = upstream(win + e, dy[e]);
  }

 private:
  // With sum = c z, s = 1 / (1 + 2^sum), g / c = dy s (1 + z (1 - s)) / c
  // = dy s (-ln2 + sum ln2^2 (1 - s)).
  __device__ __forceinline__ Acc<T> silu_upstream(const Acc<T> *xs, Acc<T> dy) const {
    if constexpr (kExponentForm) {
      float sum = taps.bias;
#pragma unroll
      for (int j = 0; j < W; ++j) sum += taps.w[j] * xs[j];
      float e, s;
      asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(sum));
      asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(s) : "f"(1.0f + e));
      return dy * s * fmaf(sum, fmaf(s, -kLn2 * kLn2, kLn2 * kLn2), -kLn2);
    } else {
      return conv1d::upstream<T, W, true>(taps, xs, dy);
    }
  }
};

// Sums each of the block's threads' parts[W+1] (xor-shuffle tree in a warp,
// then the warps in order: fixed, so bit-stable) and hands sum k to
// write(k, sum) in thread k <= W (k unsigned, as threadIdx.x). Every thread of the block calls it.
template <class A, int W, class Write>
__device__ __forceinline__ void block_sum(A (&parts)[W + 1], Write &&write) {
  constexpr int kWarps = kThreads / 32;
  __shared__ A red[kWarps][W + 1];
#pragma unroll
  for (int k = 0; k <= W; ++k) {
    A v = parts[k];
#pragma unroll
    for (int off = 16; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off);
    if (threadIdx.x % 32 == 0) red[threadIdx.x / 32][k] = v;
  }
  __syncthreads();
  if (threadIdx.x <= W) {
    A sum = red[0][threadIdx.x];
#pragma unroll
    for (int w = 1; w < kWarps; ++w) sum += red[w][threadIdx.x];
    write(threadIdx.x, sum);
  }
  __syncthreads();
}

// block_sum into partials[(slot * C + c) * (W+1) + k].
template <class A, int W>
__device__ __forceinline__ void block_partials(A (&parts)[W + 1], A *partials, int64_t slot, int64_t channels,
                                               int64_t c) {
  block_sum<A, W>(parts, [&](unsigned k, A sum) { partials[(slot * channels + c) * (W + 1) + k] = sum; });
}

// A channel's dw[c, k] (k < W) or db[c] (k == W) of the weights' type Wt,
// written where the pass sums a channel whole (no reduction after it); sum
// as the reduction of its slots would leave it (0 + the first slot + ...).
template <class Wt, int W, class A>
__device__ __forceinline__ void store_channel_sum(const Conv1dProblem &p, int64_t c, int k, A sum) {
  if (k < W ? !p.dweight.data : !p.dbias.data) return;
  *at<Wt>(k < W ? p.dweight : p.dbias, c, k < W ? k : 0, 0) = Accum<Wt>::store(sum);
}

// upstream with the activation chosen at run time, for the kernels below that
// serve the layouts without a staged path.
template <class T, int W, class Wt>
__device__ __forceinline__ Acc<T> upstream_of(const Conv1dProblem &p, const Taps<T, W, Wt> &taps, const Acc<T> *xs,
                                              Acc<T> dy) {
  return p.silu ? upstream<T, W, true>(taps, xs, dy) : dy;
}

// g at timestep t (< L) from memory: its window of x_pad masked to t's
// sequence, 0 where t is padding.
template <class T, int W, class Wt>
__device__ __forceinline__ Acc<T> upstream_at(const Conv1dProblem &p, const Taps<T, W, Wt> &taps, int64_t b, int64_t c,
                                              int64_t t) {
  const unsigned mask = window_mask<W>(p, b, t);
  Acc<T> xs[W];
#pragma unroll
  for (int j = 0; j < W; ++j) xs[j] = kept(mask, j, x_pad<T, W>(p, b, c, t - (W - 1) + j));
  return kept(mask, W - 1, upstream_of<T, W>(p, taps, xs, get<T>(p.dy, b, c, t)));
}

}  // namespace baracuda::kernels::conv1d
