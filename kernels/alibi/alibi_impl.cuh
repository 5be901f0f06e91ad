// The ALiBi kernels and their launches, instantiated per dtype by
// alibi_<dtype>.cu. Tiles (alibi_heuristics.h) are blocks of rows of one
// (b, h) by a chunk of columns; each thread takes its share of the tile's
// 16-byte vectors (alibi_tiles.cuh), loading all of them before using any.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "alibi/alibi_kernels.h"
#include "alibi/alibi_tiles.cuh"
#include "alibi/alibi_vector_math.cuh"
#include "common/accumulate.cuh"
#include "common/cluster_handoff.cuh"
#include "common/element_words.cuh"
#include "common/overlap_launch.cuh"

namespace baracuda::kernels::alibi {

constexpr int kReduceThreads = AlibiTraits::kReduceThreads;
constexpr int kForwardThreads = AlibiTraits::kThreads;
template <class T>
constexpr int kBackwardThreads = alibi_backward_threads(sizeof(T));

// bias(i, j) of element e of a vector whose first column has d0 = j - i', in
// the arithmetic's type. 32-bit indices come with |d| < 2^24 (the heuristics'
// rule), so d0 + e is exact in f32 and the vector needs one conversion, not
// one per element; 64-bit ones convert each d. The symmetric form is 0 - |d|,
// never -0.
template <class A, bool Symmetric, class Index>
__device__ __forceinline__ A bias_of(Index d0, int e) {
  A d;
  if constexpr (std::is_same_v<Index, int32_t>) d = static_cast<A>(d0) + static_cast<A>(e);
  else d = static_cast<A>(d0 + e);
  return Symmetric ? A(0) - abs(d) : d;
}

// j - i' at column 0 of row i is -(i + shift).
template <class Index>
__device__ __forceinline__ Index query_shift(const AlibiProblem &p) {
  return p.bottom_right ? static_cast<Index>(p.keys - p.queries) : Index(0);
}

// The sum of v[0 .. N) as a balanced tree, N a power of two.
template <int N, class A>
__device__ __forceinline__ A tree_sum(A (&v)[N]) {
#pragma unroll
  for (int width = N / 2; width > 0; width /= 2)
#pragma unroll
    for (int k = 0; k < width; ++k) v[k] += v[k + width];
  return v[0];
}

// The block's sum of every thread's v, in thread 0: xor-shuffle trees in each
// warp, then thread 0's tree_sum over the warps' sums, the same adds in the
// same order as lane 0 of a shuffle tree over them (lane l < off adds
// v[l] + v[l + off]) without three shuffles' latency. Fixed order, so
// bit-stable. Every thread of the block calls it; red is free again on return.
template <int Threads, class A>
__device__ __forceinline__ A block_sum(A v, A (&red)[Threads / 32]) {
  constexpr int kWarps = Threads / 32;
  static_assert((kWarps & (kWarps - 1)) == 0, "a power-of-two number of warps");
#pragma unroll
  for (int off = 16; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off);
  if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    A warp_sums[kWarps];
#pragma unroll
    for (int w = 0; w < kWarps; ++w) warp_sums[w] = red[w];
    v = tree_sum(warp_sums);
  }
  __syncthreads();
  return v;
}

// The compile-time choices of a pass kernel, picked at launch: 16-byte
// vectors (every row aligned), the index width, the bias convention. Runtime
// flags here would become per-element branches.
template <bool VecRows, class IndexType, bool SymmetricBias>
struct Variant {
  static constexpr bool kVec = VecRows;
  using Index = IndexType;
  static constexpr bool kSymmetric = SymmetricBias;
};

// The register cap of a pass kernel: 64-bit indices (problems past 2^31
// tiles or columns) would spill 16-bit dtypes' vectors under the 32-bit cap.
template <class V>
constexpr int min_blocks_per_sm() {
  return std::is_same_v<typename V::Index, int32_t> ? AlibiTraits::kMinBlocksPerSm : AlibiTraits::kMinBlocksPerSmWide;
}

// Tile number tile, a whole chunk of one row (vectors aligned), loaded:
// body(spot, cells, vectors) with whole vectors only, a constant count the
// loads, stores and sums fold away, and no division.
template <class T, class V, int Threads, class Body>
__device__ __forceinline__ void with_loaded_row_chunk(const AlibiProblem &p, const AlibiTiling &t,
                                                      typename V::Index tile, Body &&body) {
  using Index = typename V::Index;
  constexpr int W = Pack16<T>::kCount;
  const TileSpot<Index> s = tile_spot<W>(p, t, tile);
  Cell<Index> c[kVectorsOf<Threads>];
  row_chunk_cells<W>(s, c);
  Pack16<T> v[kVectorsOf<Threads>];
  load_tile<T, true>(p, s, c, v);
  body(s, c, v);
}

// Tile number tile's cells worked out and its vectors loaded: body(spot, cells, vectors).
template <class T, class V, int Threads, class Body>
__device__ __forceinline__ void with_loaded_tile(const AlibiProblem &p, const AlibiTiling &t, typename V::Index tile,
                                                 Body &&body) {
  using Index = typename V::Index;
  constexpr int W = Pack16<T>::kCount;
  if (V::kVec && t.whole_row_chunks) return with_loaded_row_chunk<T, V, Threads>(p, t, tile, body);
  const TileSpot<Index> s = tile_spot<W>(p, t, tile);
  Cell<Index> c[kVectorsOf<Threads>];
  cells_of<W>(p, t, s, c);
  Pack16<T> v[kVectorsOf<Threads>];
  load_tile<T, V::kVec>(p, s, c, v);
  body(s, c, v);
}

// The block's tiles, grid-stride, each loaded: body(tile, spot, cells,
// vectors). Whole row chunks (a decoding step's tiles) walk a loop of their
// own, so that no other tile's set-up is hoisted in front of their loads.
template <class T, class V, int Threads, class Body>
__device__ __forceinline__ void for_each_loaded_tile(const AlibiProblem &p, const AlibiTiling &t, int64_t tiles,
                                                     Body &&body) {
  using Index = typename V::Index;
  constexpr int N = kVectorsOf<Threads>;
  auto each = [&](auto load) {
    for (Index tile = blockIdx.x; tile < static_cast<Index>(tiles); tile += gridDim.x)
      load(p, t, tile, [&](const TileSpot<Index> &s, const Cell<Index>(&c)[N], Pack16<T>(&v)[N]) {
        body(tile, s, c, v);
      });
  };
  if (V::kVec && t.whole_row_chunks) each([](auto &&...a) { with_loaded_row_chunk<T, V, Threads>(a...); });
  else each([](auto &&...a) { with_loaded_tile<T, V, Threads>(a...); });
}

// y = scores + slope * bias, a tile per block at a time.
template <class T, class S, class V>
__global__ void __launch_bounds__(kForwardThreads, min_blocks_per_sm<V>())
    alibi_forward_kernel(const AlibiProblem p, const AlibiTiling t, int64_t tiles) {
  using A = typename Accum<T>::type;
  using Index = typename V::Index;
  constexpr int N = kVectorsOf<kForwardThreads>;
  const Index shift = query_shift<Index>(p);
  for_each_loaded_tile<T, V, kForwardThreads>(p, t, tiles, [&](Index, const TileSpot<Index> &s,
                                                               const Cell<Index> (&c)[N], Pack16<T> (&v)[N]) {
    const A slope = Accum<S>::load(static_cast<const S *>(p.slopes)[s.b * p.slope_stride[0] + s.h * p.slope_stride[1]]);
#pragma unroll
    for (int k = 0; k < N; ++k) {
      const Index d0 = c[k].j0 - c[k].i - shift;
      transform_elems(v[k], [&](A x, int e) { return x + slope * bias_of<A, V::kSymmetric>(d0, e); });
    }
    store_tile<T, V::kVec>(p, s, c, v);
  });
}

// The sum of dy * bias over a loaded tile, in thread 0; every thread calls it.
template <class T, class V, int N>
__device__ __forceinline__ typename Accum<T>::type tile_sum(const AlibiProblem &p,
                                                            const Cell<typename V::Index> (&c)[N],
                                                            const Pack16<T> (&v)[N],
                                                            typename Accum<T>::type (&red)[kThreadsOf<N> / 32]) {
  using A = typename Accum<T>::type;
  using Index = typename V::Index;
  constexpr int W = Pack16<T>::kCount;
  const Index shift = query_shift<Index>(p);
  A vector_sums[N];
#pragma unroll
  for (int k = 0; k < N; ++k) {
    A products[W];
    const Index d0 = c[k].j0 - c[k].i - shift;
#pragma unroll
    for (int e = 0; e < W; ++e)
      products[e] = e < c[k].n ? Accum<T>::load(v[k].elem[e]) * bias_of<A, V::kSymmetric>(d0, e) : A(0);
    vector_sums[k] = tree_sum(products);
  }
  return block_sum<kThreadsOf<N>>(tree_sum(vector_sums), red);
}

// One pass over dy: dscores = dy (when p.out), and the tile's sum of
// dy * bias into partials[tile] (when partials).
template <class T, class V>
__global__ void __launch_bounds__(kBackwardThreads<T>, min_blocks_per_sm<V>())
    alibi_backward_kernel(const AlibiProblem p, const AlibiTiling t, int64_t tiles,
                          typename Accum<T>::type *partials) {
  using A = typename Accum<T>::type;
  using Index = typename V::Index;
  constexpr int N = kVectorsOf<kBackwardThreads<T>>;
  __shared__ A red[kBackwardThreads<T> / 32];
  let_next_pass_start();
  for_each_loaded_tile<T, V, kBackwardThreads<T>>(p, t, tiles, [&](Index tile, const TileSpot<Index> &s,
                                                                   const Cell<Index> (&c)[N], Pack16<T> (&v)[N]) {
    store_tile<T, V::kVec>(p, s, c, v);
    if (partials == nullptr) return;
    const A sum = tile_sum<T, V>(p, c, v, red);
    if (threadIdx.x == 0) partials[tile] = sum;
  });
}

// Where dslopes of slope number slope lies (b-major over (b, h) for [B, H] slopes).
template <class S>
__device__ __forceinline__ S *dslope_address(const AlibiProblem &p, int64_t slope) {
  const int64_t b = p.per_batch_slopes ? slope / p.heads : 0, h = p.per_batch_slopes ? slope % p.heads : slope;
  return static_cast<S *>(p.dslopes) + b * p.slope_stride[0] + h * p.slope_stride[1];
}

// dslopes from the partials: a block per slope adds its per_slope partials,
// each thread a contiguous run of `run` in order, then the block's tree.
template <class A, class S>
__global__ void __launch_bounds__(kReduceThreads)
    alibi_dslopes_kernel(const AlibiProblem p, const A *partials, int64_t slopes, int64_t per_slope, int64_t run) {
  __shared__ A red[kReduceThreads / 32];
  wait_for_previous_pass();
  for (int64_t slope = blockIdx.x; slope < slopes; slope += gridDim.x) {
    const int64_t begin = threadIdx.x * run, end = min(begin + run, per_slope);
    A sum = A(0);
    for (int64_t k = begin; k < end; ++k) sum += partials[slope * per_slope + k];
    sum = block_sum<kReduceThreads>(sum, red);
    if (threadIdx.x == 0) *dslope_address<S>(p, slope) = Accum<S>::store(sum);
  }
}

// The backward in one launch (sm_90, candidate alibi_bwd_clusters): a
// thread-block cluster per slope, a block per tile. Every block hands its
// tile sum to the first block (common/cluster_handoff.cuh: no block waits
// for its own stores of dscores), which adds them as the reduction kernel
// adds a slope's partials (a run of one per thread, in tile order, then the
// block's tree: with at most 32 sums the other warps add zeros, so warp 0's
// tree plus a zero gives the same bits as the two-launch path).
// A block arrives on the hand-off's barrier between its stores of dscores
// and its tile sum: ptxas branches around that arrive (for launches without
// clusters) and does not hoist the sum above the branch, so the stores are
// the first instructions after the loads to use them. With the arrive on
// entry it scheduled every product and the warps' shuffle trees ahead of the
// stores, as it still moves them across __syncthreads or __syncwarp
// (bench/NOTES.md, session 14).
template <class T, class S, class V>
__global__ void __launch_bounds__(kBackwardThreads<T>, min_blocks_per_sm<V>())
    alibi_backward_cluster_kernel(const AlibiProblem p, const AlibiTiling t, int per_slope) {
  static_assert(kReduceThreads >= 64 && AlibiTraits::kMaxClusterTiles <= 32 &&
                    (AlibiTraits::kMaxClusterTiles & (AlibiTraits::kMaxClusterTiles - 1)) == 0,
                "the first block adds the partials as the reduction kernel's block does (its other warps "
                "adding the zero after the tree)");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using A = typename Accum<T>::type;
  using Index = typename V::Index;
  constexpr int N = kVectorsOf<kBackwardThreads<T>>;
  __shared__ A red[kBackwardThreads<T> / 32];
  __shared__ A tile_sums[AlibiTraits::kMaxClusterTiles];  // the first block's: every block's tile sum
  __shared__ uint64_t tile_sums_landed;
  const unsigned rank = cooperative_groups::this_cluster().block_rank();
  if (rank == 0 && threadIdx.x == 0) handoff_open(&tile_sums_landed, (per_slope - 1) * sizeof(A));
  A sum = A(0);
  with_loaded_tile<T, V, kBackwardThreads<T>>(p, t, static_cast<Index>(blockIdx.x),
                                              [&](const TileSpot<Index> &s, const Cell<Index> (&c)[N], Pack16<T> (&v)[N]) {
                                                store_tile<T, V::kVec>(p, s, c, v);
                                                handoff_arrive();
                                                sum = tile_sum<T, V>(p, c, v, red);
                                              });
  if (rank != 0) return handoff_send(&tile_sums[rank], &tile_sums_landed, sum, 0, threadIdx.x == 0);
  if (threadIdx.x != 0) return;
  tile_sums[0] = sum;
  // Where the sum goes, worked out while the others' sums are on their way
  // (the empty asm keeps it ahead of the wait): its divisions were the
  // kernel's last instructions.
  S *const dslope = dslope_address<S>(p, blockIdx.x / per_slope);
  asm volatile("" ::"l"(dslope));
  handoff_wait(&tile_sums_landed);
  // Lane 0 of the reduction kernel's warp-0 shuffle tree, in one thread (see
  // block_sum): lane k < per_slope holds 0 + partial k, the others zeros, so
  // the shuffles by 32 / 2 .. kMaxClusterTiles add a zero to each of lanes
  // 0 .. kMaxClusterTiles - 1, and the rest is their tree_sum.
  A lanes[AlibiTraits::kMaxClusterTiles];
#pragma unroll
  for (int k = 0; k < AlibiTraits::kMaxClusterTiles; ++k) {
    lanes[k] = k < per_slope ? A(0) + tile_sums[k] : A(0);
#pragma unroll
    for (int off = 16; off >= AlibiTraits::kMaxClusterTiles; off /= 2) lanes[k] += A(0);
  }
  *dslope = Accum<S>::store(tree_sum(lanes) + A(0));
#endif
}

// Every row of the tensor starts 16 bytes aligned (strides of axes of extent
// 1 never move it).
template <class T>
bool rows_aligned(const AlibiProblem &p, const void *data, const int64_t (&stride)[3]) {
  const int64_t extent[3] = {p.batch, p.heads, p.queries};
  bool aligned = reinterpret_cast<uintptr_t>(data) % 16 == 0;
  for (int d = 0; d < 3; ++d) aligned &= extent[d] <= 1 || stride[d] * static_cast<int64_t>(sizeof(T)) % 16 == 0;
  return aligned;
}

inline int launch_error() { return -static_cast<int>(cudaGetLastError()); }

// kernel<<<grid, block>>>(args...) in clusters of cluster blocks.
template <class... Params, class... Args>
int launch_in_clusters(void (*kernel)(Params...), unsigned grid, unsigned block, unsigned cluster,
                       cudaStream_t stream, Args &&...args) {
  cudaLaunchAttribute clusters{};
  clusters.id = cudaLaunchAttributeClusterDimension;
  clusters.val.clusterDim.x = cluster;
  clusters.val.clusterDim.y = 1;
  clusters.val.clusterDim.z = 1;
  return launch_with_attribute(clusters, kernel, grid, block, stream, std::forward<Args>(args)...);
}

// launch(Variant<...>{}) with the problem's flags as compile-time constants.
template <class Launch>
int with_variant(bool vec, bool narrow, bool symmetric, Launch &&launch) {
  auto pick_symmetric = [&](auto vec_rows, auto index) {
    using Index = decltype(index);
    constexpr bool kVec = decltype(vec_rows)::value;
    return symmetric ? launch(Variant<kVec, Index, true>{}) : launch(Variant<kVec, Index, false>{});
  };
  auto pick_index = [&](auto vec_rows) {
    return narrow ? pick_symmetric(vec_rows, int32_t{}) : pick_symmetric(vec_rows, int64_t{});
  };
  return vec ? pick_index(std::true_type{}) : pick_index(std::false_type{});
}

template <class T, class S>
int run_forward(const AlibiProblem &p, cudaStream_t stream) {
  if (p.batch == 0 || p.heads == 0 || p.queries == 0 || p.keys == 0) return 0;
  const AlibiTiling t = alibi_problem_tiling(p, sizeof(T));
  const int64_t tiles = p.batch * p.heads * t.tiles_per_head;
  const unsigned grid = static_cast<unsigned>(alibi_grid_blocks(tiles));
  const bool vec = rows_aligned<T>(p, p.in, p.in_stride) && rows_aligned<T>(p, p.out, p.out_stride);
  return with_variant(vec, alibi_indices_fit_32_bits(p.queries, p.keys, tiles), p.symmetric, [&](auto variant) {
    alibi_forward_kernel<T, S, decltype(variant)><<<grid, kForwardThreads, 0, stream>>>(p, t, tiles);
    return launch_error();
  });
}

// The pass, then the reduction; or, for a plan of candidate
// alibi_bwd_clusters (p.clusters) with dslopes wanted, both in one launch of
// clusters. With Q * K = 0 and B * H > 0 the reduction alone runs: every
// dslope is a sum of nothing, written as 0.
template <class T, class S>
int run_backward(const AlibiProblem &p, void *workspace, cudaStream_t stream) {
  using A = typename Accum<T>::type;
  if (p.batch == 0 || p.heads == 0) return 0;
  A *partials = p.dslopes ? static_cast<A *>(workspace) : nullptr;
  PassSequence passes(stream);
  int64_t per_slope = 0;
  if (p.queries > 0 && p.keys > 0) {
    const AlibiTiling t = alibi_problem_tiling(p, sizeof(T));
    const int64_t tiles = p.batch * p.heads * t.tiles_per_head;
    const bool vec = rows_aligned<T>(p, p.in, p.in_stride) && (!p.out || rows_aligned<T>(p, p.out, p.out_stride));
    per_slope = alibi_tiles_per_slope(p.batch, p.per_batch_slopes, t);
    const bool in_clusters = p.clusters && p.dslopes;
    const unsigned grid = static_cast<unsigned>(in_clusters ? tiles : alibi_grid_blocks(tiles));
    const int rc = with_variant(vec, alibi_indices_fit_32_bits(p.queries, p.keys, tiles), p.symmetric, [&](auto variant) {
      using V = decltype(variant);
      if (in_clusters)
        return launch_in_clusters(alibi_backward_cluster_kernel<T, S, V>, grid, kBackwardThreads<T>,
                                  static_cast<unsigned>(per_slope), stream, p, t, static_cast<int>(per_slope));
      return passes.launch(alibi_backward_kernel<T, V>, grid, kBackwardThreads<T>, p, t, tiles, partials);
    });
    if (rc || in_clusters) return rc;
  }
  if (!p.dslopes) return 0;
  const int64_t slopes = p.per_batch_slopes ? p.batch * p.heads : p.heads;
  return passes.launch(alibi_dslopes_kernel<A, S>, static_cast<unsigned>(alibi_grid_blocks(slopes)), kReduceThreads,
                       p, static_cast<const A *>(partials), slopes, per_slope, alibi_reduce_run(per_slope));
}

// f16 and bf16 take f32 slopes or their own; f32 and f64 only their own.
template <class T>
int forward_entry(const AlibiProblem &p, cudaStream_t stream) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) return run_forward<T, T>(p, stream);
  else return p.f32_slopes ? run_forward<T, float>(p, stream) : run_forward<T, T>(p, stream);
}

template <class T>
int backward_entry(const AlibiProblem &p, void *workspace, size_t, cudaStream_t stream) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) return run_backward<T, T>(p, workspace, stream);
  else return p.f32_slopes ? run_backward<T, float>(p, workspace, stream) : run_backward<T, T>(p, workspace, stream);
}

}  // namespace baracuda::kernels::alibi

#define BARACUDA_ALIBI_ENTRIES(NAME, TYPE)                                                            \
  const baracuda::kernels::AlibiEntries baracuda::kernels::NAME = {                                   \
      baracuda::kernels::alibi::forward_entry<TYPE>, baracuda::kernels::alibi::backward_entry<TYPE>}
