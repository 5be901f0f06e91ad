// Forced variants of the branch's tree for the forward probe (variant.cu):
// a register-fed channels-last forward for the small-batch rows where the
// channel tiles trail Tri Dao's ([1,2048,128] 0.79x): a thread takes a
// 16-byte vector of channels at Steps consecutive timesteps, loading those
// and the W-1 before them straight into registers; a block takes Cols such
// vectors side by side (a warp's row of Cols * 16 bytes) by kThreads / Cols
// slots of Steps timesteps; the block's taps go through shared memory (a
// thread's V channels' taps from global memory were 40 loads: session 19).
#pragma once

#include <type_traits>

namespace baracuda::kernels::conv1d {

template <class T, int W, class Wt, int Cols, int Steps>
__global__ void __launch_bounds__(kThreads) probe_forward_channel_rows_kernel(Conv1dProblem p) {
  using A = Acc<T>;
  constexpr int V = kTimeVec<T>, Slots = kThreads / Cols;
  __shared__ A taps[W + 1][Cols * V];  // [k][channel of the block]: tap k (W: the bias)
  const int col = threadIdx.x % Cols, slot = threadIdx.x / Cols;
  const int64_t b = blockIdx.z, c0 = static_cast<int64_t>(blockIdx.x) * Cols * V, c = c0 + col * V;
  const int64_t t0 = (static_cast<int64_t>(blockIdx.y) * Slots + slot) * Steps;
  const bool live = c < p.channels;
  const int64_t st = p.x.stride[2];
  Vec<T, V> raw[Steps + W - 1];  // raw[i]: timestep t0 - (W-1) + i
#pragma unroll
  for (int i = 0; i < Steps + W - 1; ++i) {
    const int64_t t = t0 - (W - 1) + i;
    raw[i].raw = make_uint4(0, 0, 0, 0);
    if (live && t >= 0 && t < p.length) raw[i] = load_vec<T, V>(at<T>(p.x, b, c, 0) + t * st);
  }
  const A scale = forward_tap_scale<T>(p.silu);
  for (int i = threadIdx.x; i < Cols * V * (W + 1); i += kThreads) {
    const int k = i % (W + 1), cl = i / (W + 1);
    const int64_t ch = c0 + cl < p.channels ? c0 + cl : 0;
    const A v = k < W ? get<Wt>(p.weight, ch, k, 0) : p.bias.data ? get<Wt>(p.bias, ch, 0, 0) : A(0);
    taps[k][cl] = scale * v;
  }
  if (live) {
#pragma unroll
    for (int i = 0; i < W - 1; ++i)
      if (t0 - (W - 1) + i < 0) store_initial16<T, W>(p, b, c, t0 - (W - 1) + i, 1, &raw[i].raw);
  }
  __syncthreads();
  if (!live) return;
  A w[W + 1][V];
#pragma unroll
  for (int k = 0; k <= W; ++k)
#pragma unroll
    for (int e = 0; e < V; ++e) w[k][e] = taps[k][col * V + e];
  T *yc = at<T>(p.y, b, c, 0);
  const int64_t sy = p.y.stride[2];
#pragma unroll
  for (int s = 0; s < Steps; ++s) {
    if (t0 + s >= p.length) break;
    A x[W][V];
#pragma unroll
    for (int j = 0; j < W; ++j) unpack<T, V>(raw[s + j], x[j]);
    A out[V];
#pragma unroll
    for (int e = 0; e < V; ++e) {
      A z = w[W][e];
#pragma unroll
      for (int j = 0; j < W; ++j) z += w[j][e] * x[j][e];
      out[e] = z;
    }
    activate_run<T>(p.silu, out);
    store_run<T, V>(yc + (t0 + s) * sy, out);
  }
}

}  // namespace baracuda::kernels::conv1d

namespace {

// Variants 1-6 (bf16 x, W 4, channels-last): Cols 32 at Steps 1, 2, 4, then Cols 8 at Steps 1, 2, 4.
template <class T, class Wt, int W>
int probe_variant(const baracuda::kernels::Conv1dProblem &p, int variant, cudaStream_t s) {
  namespace cv = baracuda::kernels::conv1d;
  if constexpr (!std::is_same_v<T, __nv_bfloat16> || W != 4) {
    return 3;
  } else {
    constexpr int V = cv::kTimeVec<T>;
    const bool cl = p.x.stride[1] == 1 && p.y.stride[1] == 1 && p.channels % V == 0 && !p.seq_idx.data;
    if (!cl || variant < 1 || variant > 6) return 3;
    auto launch = [&](auto cols, auto steps) {
      constexpr int Cols = decltype(cols)::value, Steps = decltype(steps)::value;
      const int64_t vecs = p.channels / V, slots = cv::kThreads / Cols;
      const dim3 grid(static_cast<unsigned>((vecs + Cols - 1) / Cols),
                      static_cast<unsigned>((p.length + slots * Steps - 1) / (slots * Steps)),
                      static_cast<unsigned>(p.batch));
      cv::probe_forward_channel_rows_kernel<T, W, Wt, Cols, Steps><<<grid, cv::kThreads, 0, s>>>(p);
      return -static_cast<int>(cudaGetLastError());
    };
    using I1 = std::integral_constant<int, 1>;
    using I2 = std::integral_constant<int, 2>;
    using I4 = std::integral_constant<int, 4>;
    using I8 = std::integral_constant<int, 8>;
    using I32 = std::integral_constant<int, 32>;
    switch (variant) {
      case 1: return launch(I32{}, I1{});
      case 2: return launch(I32{}, I2{});
      case 3: return launch(I32{}, I4{});
      case 4: return launch(I8{}, I1{});
      case 5: return launch(I8{}, I2{});
      default: return launch(I8{}, I4{});
    }
  }
}

}  // namespace
