// Pad backward of short rows in tiles (common/row_tiles.h): a block takes a
// run of whole dx rows (at most one a thread), lists the dy rows that hold
// copies of them (each dx row's in for_each_copy_row's ascending order, the
// rows one after another), stages that list into shared memory in one go
// (several rounds only where the rows on an outer pad have more sources than
// the tile has slots), sums each row's columns of several inner sources into
// its first slot, and then writes every dx vector of the round's rows from
// shared memory: a row of one source (most rows) as a shifted copy of its
// slot, a row of several as the sums of its slots. Every cell adds its outer
// sources in order, each one's inner sources in ascending order, from -0.0:
// the order the passes of pad_backward_impl.cuh sum it in, so the results
// are bit-identical to theirs. No sum outlives a round, so a thread keeps a
// vector's sums at a time and the block needs few registers: a block's loads
// are one round trip, with many blocks an SM to overlap them.
#pragma once

#include <cuda_runtime.h>

#include <climits>

#include "common/accumulate.cuh"
#include "common/element_words.cuh"
#include "common/row_tiles.cuh"
#include "common/rows_tiling.cuh"
#include "pad/pad_backward_copies.cuh"
#include "pad/pad_backward_heuristics.h"
#include "pad/pad_backward_plane_tiles.cuh"
#include "pad/pad_backward_staged.cuh"
#include "pad/pad_tiles_heuristics.h"
#include "pad/pad_tiles_traits.h"

namespace baracuda::kernels {

constexpr int kBackwardTileThreads = PadTilesTraits::kThreads;
// dx row g's dy source rows (out = dx, in = dy): how many, its own (the one
// a row with one source has), and for a row of two where the other lies,
// relative to its own (along the row's one axis of two copies). Its
// coordinates are found on the way, not kept, in 32-bit arithmetic (the
// host's pad_backward_takes_tiles keeps outer extents and pads under 2^29):
// a block's rows are listed with few registers and instructions.
template <IndexMap M>
__device__ __forceinline__ int32_t dx_row_sources(const RowsProblem &p, const RowTiles &t, int64_t g, int64_t &own,
                                                  int64_t &other) {
  TileRowCoords rc(g);
  int32_t count = 1;
  own = 0;
  other = 0;
#pragma unroll
  for (int d = kMaxRank - 2; d >= 0; --d) {
    if (d >= p.rank - 1) continue;
    const int32_t c = static_cast<int32_t>(rc.next(t, p.out_extent, d)), lo = static_cast<int32_t>(p.pad_low[d]);
    const CopyRunOf<int32_t> run =
        copy_run<M>(c, lo, static_cast<int32_t>(p.out_extent[d]), static_cast<int32_t>(p.in_extent[d]));
    const int32_t j = c + lo, copies = (run.before >= 0) + (run.end - run.begin) + (run.after >= 0);
    count *= copies;
    own += static_cast<int64_t>(j) * p.in_stride[d];
    if (copies == 2) {
      const int32_t to = run.before >= 0 ? run.before : run.after >= 0 ? run.after : run.begin == j ? j + 1 : run.begin;
      other = static_cast<int64_t>(to - j) * p.in_stride[d];
    }
  }
  return count;
}

// The k-th (from 0) of dx row g's dy source rows in ascending order, as
// nth_copy_row_at gives it (the last outer axis's copies varying fastest),
// in the 32-bit arithmetic of dx_row_sources.
template <IndexMap M>
__device__ __forceinline__ int64_t nth_dx_row_source(const RowsProblem &p, const RowTiles &t, int64_t g, int32_t k) {
  TileRowCoords rc(g);
  uint32_t rest = static_cast<uint32_t>(k);
  int64_t off = 0;
#pragma unroll
  for (int d = kMaxRank - 2; d >= 0; --d) {
    if (d >= p.rank - 1) continue;
    const int32_t c = static_cast<int32_t>(rc.next(t, p.out_extent, d));
    const CopyRunOf<int32_t> run = copy_run<M>(c, static_cast<int32_t>(p.pad_low[d]),
                                               static_cast<int32_t>(p.out_extent[d]),
                                               static_cast<int32_t>(p.in_extent[d]));
    const uint32_t size = (run.before >= 0) + (run.end - run.begin) + (run.after >= 0);
    uint32_t pick = 0;
    if (size > 1) pick = rest % size, rest /= size;
    const int32_t i = static_cast<int32_t>(pick) - (run.before >= 0);
    const int32_t j = i < 0 ? run.before : i < run.end - run.begin ? run.begin + i : run.after;
    off += static_cast<int64_t>(j) * p.in_stride[d];
  }
  return off;
}

// The exclusive prefix sum of v over the block's first n threads, their
// total, and whether any of them has flag set (scratch: a word a warp;
// sums under 2^30). The warps past them only meet the barrier (a tile's
// rows often fill a quarter of the block); each warp then scans the warps'
// totals a lane each.
template <int Threads>
__device__ __forceinline__ int32_t block_exclusive_sum(int32_t v, bool flag, int32_t *scratch, int32_t n,
                                                       int32_t &total, bool &any_flag) {
  constexpr int32_t kFlag = 1 << 30, kWarps = Threads / 32;
  static_assert(kWarps <= 32, "a lane a warp");
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int32_t inclusive = v;
  if (warp * 32 < n) {
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const int32_t from = __shfl_up_sync(0xffffffffu, inclusive, d);
      if (lane >= d) inclusive += from;
    }
    const bool flagged = __any_sync(0xffffffffu, flag);
    if (lane == 31) scratch[warp] = inclusive | (flagged ? kFlag : 0);
  }
  __syncthreads();
  const int32_t x = lane < kWarps && lane * 32 < n ? scratch[lane] : 0;
  any_flag = __any_sync(0xffffffffu, (x & kFlag) != 0);
  int32_t sums = x & (kFlag - 1);
#pragma unroll
  for (int d = 1; d < kWarps; d *= 2) {
    const int32_t from = __shfl_up_sync(0xffffffffu, sums, d);
    if (lane >= d) sums += from;
  }
  total = __shfl_sync(0xffffffffu, sums, kWarps - 1);
  const int32_t before = __shfl_sync(0xffffffffu, sums, (warp + 31) % 32);
  return (warp > 0 ? before : 0) + inclusive - v;
}

// The row of [r0, r1) whose slots hold slot f: the last whose first slot
// (first[q] - base) is at most f (first ascending, a row at least one slot).
__device__ __forceinline__ int32_t row_of_slot(const int32_t *first, int32_t r0, int32_t r1, int32_t base, int32_t f) {
  int32_t below = r0, above = r1 - 1;
  while (below < above) {
    const int32_t mid = (below + above + 1) / 2;
    if (first[mid] - base <= f)
      below = mid;
    else
      above = mid - 1;
  }
  return below;
}

// A slot's copies (slot_copies) and where its row starts in it (elements),
// side by side: a copy reads them in one 16-byte shared load.
struct SlotCopies {
  int64_t from;
  int32_t copies;
  int32_t phase;
};

// The staged dy rows as the sums read them: slot k's row starts
// table[k].phase elements into it.
struct StagedRows {
  const uint4 *slot;
  const SlotCopies *table;
  int32_t slot_vectors;
};

// Slot k's dy row, from its first element.
template <class T>
__device__ __forceinline__ const T *slot_row(const StagedRows &s, int32_t k) {
  return reinterpret_cast<const T *>(s.slot + static_cast<int64_t>(k) * s.slot_vectors) + s.table[k].phase;
}

// dx column c of a row whose dy sources are slots [k0, k1): their copies of
// it added in order from -0.0.
template <class T, IndexMap M>
__device__ __forceinline__ T cell_sum(const StagedRows &s, int32_t k0, int32_t k1, int32_t c,
                                      int32_t lo, int32_t n, int32_t m) {
  typename Accum<T>::type sum(-0.0);
  for (int32_t k = k0; k < k1; ++k) add_copies<T, M>(sum, slot_row<T>(s, k), c, lo, n, m);
  return Accum<T>::store(sum);
}

// Stages the first n slots as the table says, slot k from the whole
// vectors of its space that its phase skips on (a slot may start a vector
// late: the kernel's list()). Consecutive threads copy consecutive vectors
// of a slot; where a slot has no more vectors than the block has threads, a
// thread copies one vector position of a slot for slot after slot (no
// division a copy).
template <int Bytes>
__device__ __forceinline__ void stage_slots(const void *in, const RowTiles &t, int32_t n, uint4 *slot,
                                            const SlotCopies *table) {
  const int32_t sv = t.slot_vectors;
  auto to = [&](int32_t k, const SlotCopies &e, int32_t v) { return slot + k * sv + (e.phase * Bytes >> 4) + v; };
  auto copy = [&](int32_t k, int32_t v) {  // windows at dy's ends (copies -1) below
    const SlotCopies e = table[k];
    if (v < e.copies) async_copy16(to(k, e, v), reinterpret_cast<const void *>(e.from + 16 * v));
  };
  const int32_t t0 = static_cast<int32_t>(threadIdx.x), threads = static_cast<int32_t>(blockDim.x);
  if (sv > threads) {
    for (int32_t f = t0; f < n * sv; f += threads) {
      const int32_t k = static_cast<int32_t>(fast_divide(static_cast<uint32_t>(f), t.slot_div));
      copy(k, f - k * sv);
    }
  } else {
    const int32_t lanes = threads / sv * sv;  // threads in use
    const int32_t step = lanes / sv;          // slots a pass
    const int32_t k0 = static_cast<int32_t>(fast_divide(static_cast<uint32_t>(t0), t.slot_div)), v = t0 - k0 * sv;
    for (int32_t k = t0 < lanes ? k0 : n; k < n; k += step) copy(k, v);
  }
  // A window at dy's two ends (a block or two of the grid) by a thread each,
  // so that the copies above take no branch for it.
  for (int32_t k = t0; k < n; k += threads) {
    const SlotCopies e = table[k];
    if (e.copies < 0)
      for (int32_t v = 0; v < sv; ++v) stage_window_end_vector<Bytes>(in, t, e.from, v, to(k, e, v));
  }
  async_copy_commit();
  async_copy_wait<0>();
}

// [a, b): dx columns with one inner source each (column c reads dy column
// c + pad_low); slots: the dy rows a round stages; band_div: of the
// columns outside [a, b); registers cut for MinBlocks blocks an SM.
//
// Each row's columns outside [a, b) are summed first (all of the row's
// slots, in order) into its first slot, each at the column's own copy: no
// other column of the row reads that element. A row with one dy source
// (most rows) is then a shifted copy of its slot: its vectors take a fixed
// handful of instructions, its edges too. A row with several sums its
// slots vector by vector, its columns outside [a, b) taken from the first.
template <class T, IndexMap M, int MinBlocks, bool Flat>
__global__ void __launch_bounds__(kBackwardTileThreads, MinBlocks)
    pad_backward_tiles_kernel(const __grid_constant__ RowsProblem p, const __grid_constant__ RowTiles t,
                              int32_t slots, int32_t a, int32_t b, FastDivisor band_div, int32_t plane_rows,
                              FastDivisor plane_div) {
  using A = typename Accum<T>::type;
  using P = Pack16<T>;
  constexpr int V = P::kCount;
  constexpr int Bytes = sizeof(T);
  constexpr int kThreads = kBackwardTileThreads;
  extern __shared__ uint4 tile_smem[];
  // s_first[q]: the index of row q's first dy source among the tile's (its
  // sources end where row q + 1's begin); s_single[q]: where a one-source
  // row of this round finds dx column 0 in the slots (elements), else -1.
  __shared__ int32_t s_first[kThreads + 1];
  __shared__ int32_t s_single[kThreads];
  __shared__ int32_t s_scratch[kThreads / 32];
  // The slots, then a SlotCopies each (row_tile_smem_bytes's 16 bytes a row).
  uint4 *const slot = tile_smem;
  SlotCopies *const table = reinterpret_cast<SlotCopies *>(tile_smem + static_cast<int64_t>(slots) * t.slot_vectors);
  const StagedRows staged{slot, table, t.slot_vectors};
  T *const elems = reinterpret_cast<T *>(slot);
  const int64_t row0 = static_cast<int64_t>(blockIdx.x) * t.rows_per_block;
  const int32_t nrows = static_cast<int32_t>(t.rows - row0 < t.rows_per_block ? t.rows - row0 : t.rows_per_block);
  const int32_t r = threadIdx.x;  // the row this thread lists
  const int inner = p.rank - 1;

  if constexpr (Flat) {  // tiles whose dy rows are one flat range: a path of their own
    if (threadIdx.x == 0) s_first[kThreads] = 0;  // its count of rows of several sources
    FlatTile *const flat = reinterpret_cast<FlatTile *>(s_scratch);
    if (flat_tile<M, Bytes>(p, t, row0, nrows, plane_rows, plane_div, flat)) {
      sum_flat_tile<T, M, kThreads>(p, t, row0, nrows, *flat, plane_rows, plane_div, a, b, band_div, slot, s_single,
                                    s_first, s_first + kThreads);
      return;
    }
  }

  int32_t count = 0;
  int64_t own = 0, other = 0;
  // count: at most slots (the host's bound)
  if (r < nrows) count = dx_row_sources<M>(p, t, row0 + r, own, other);
  int32_t total;  // the tile's sources
  bool many;      // a row of three or more
  const int32_t first = block_exclusive_sum<kThreads>(count, count > 2, s_scratch, nrows, total, many);
  if (r < nrows) s_first[r] = first;
  if (r == nrows - 1) s_first[nrows] = first + count;

  const int64_t lo = p.pad_low[inner], n = p.out_extent[inner], m = p.in_extent[inner];
  T *out = static_cast<T *>(p.out) + row0 * t.width;
  const TileVectors tv = tile_vectors<Bytes>(out, nrows * t.width);
  const int32_t w = t.width, band = a + w - b;
  // Replicate's edge cells of a wide pad (a thread adds each one's copies
  // in turn): their sums run beside the writes of the vectors that do not
  // hold them, and those that do are written after (rows of whole vectors).
  constexpr int32_t kLateEdges = static_cast<int32_t>(PadTilesTraits::kSumLateEdgeCopies);
  const bool late_edges = M == IndexMap::Replicate && tv.first == 0 && w % V == 0 &&
                          (p.pad_low[inner] >= kLateEdges || m - n - p.pad_low[inner] >= kLateEdges);
  // The inner axis in 32-bit: dx and dy rows of tiles are short.
  const int32_t lo32 = static_cast<int32_t>(lo), n32 = static_cast<int32_t>(n), m32 = static_cast<int32_t>(m);
  // Where slot k's row has dx column 0 (its own copy of it), in elements.
  auto column0 = [&](int32_t k) { return k * t.slot_vectors * V + table[k].phase + lo32; };
  auto list = [&](int32_t k, int64_t source) {
    SlotCopies e;
    slot_copies<Bytes>(p.in, t, source, e.from, e.copies);
    // A 16-byte copy that lands across a 32-byte sector of shared memory
    // from within one of global memory costs two of each (ncu, session
    // 20): a slot starts a vector late where its row's first 16 bytes and
    // the slot's space differ in that phase (the slot has a vector to spare).
    const uintptr_t from = reinterpret_cast<uintptr_t>(p.in) + static_cast<uintptr_t>(source) * Bytes;
    const uint32_t late = ((static_cast<uint32_t>(from) ^ shared_address(slot + k * t.slot_vectors)) >> 4) & 1u;
    e.phase = slot_phase<Bytes>(p.in, source) + static_cast<int32_t>(late) * (16 / Bytes);
    table[k] = e;
  };
  for (int32_t r0 = 0; r0 < nrows;) {  // rounds: the rows [r0, r1) whose sources fit the slots
    if (r0 > 0) __syncthreads();        // the last round's slots read
    const int32_t base = r0 > 0 ? s_first[r0] : 0;
    const bool fits = r >= r0 && r < nrows && first + count - base <= slots;
    // One round where every source fits (most tiles), else the rows that
    // do; the slot-a-thread listing below reads s_first, so it comes after
    // a barrier too.
    const bool whole = r0 == 0 && total <= slots && !many;
    const int32_t r1 = whole ? nrows : r0 + __syncthreads_count(fits);
    if (fits && count == 1) list(first - base, own);
    if (fits && count == 2) {  // its own and the other, in ascending order
      list(first - base + (other < 0), own);
      list(first - base + (other > 0), own + other);
    }
    if (r < nrows) s_single[r] = fits && count == 1 ? column0(first - base) : -1;
    const int32_t listed = whole ? total : s_first[r1] - base;  // the round's slots
    // The sources of rows with three or more, a slot a thread: a row's own
    // thread listing them one after another held the whole block for its
    // longest row.
    for (int32_t f = threadIdx.x; many && f < listed; f += kThreads) {
      const int32_t q = row_of_slot(s_first, r0, r1, base, f), sources = s_first[q + 1] - s_first[q];
      if (sources <= 2) continue;
      list(f, nth_dx_row_source<M>(p, t, row0 + q, f - (s_first[q] - base)));
    }
    __syncthreads();
    stage_slots<Bytes>(p.in, t, listed, slot, table);
    __syncthreads();

    // The columns outside [a, b), summed into each row's first slot.
    for (int32_t i = threadIdx.x; i < (r1 - r0) * band; i += kThreads) {
      const int32_t q = static_cast<int32_t>(fast_divide(static_cast<uint32_t>(i), band_div)), cr = r0 + q;
      const int32_t j = i - q * band, c = j < a ? j : b + (j - a);
      const int32_t k0 = s_first[cr] - base;
      elems[column0(k0) + c] = cell_sum<T, M>(staged, k0, s_first[cr + 1] - base, c, lo32, n32, m32);
    }
    if (!late_edges) __syncthreads();

    // dx cell (row q of the round, column c), one by one.
    auto cell = [&](int32_t q, int32_t c) {
      const int32_t at = s_single[q];
      if (at >= 0) return elems[at + c];
      const int32_t k0 = s_first[q] - base;
      if (c < a || c >= b) return elems[column0(k0) + c];
      return cell_sum<T, M>(staged, k0, s_first[q + 1] - base, c, lo32, n32, m32);
    };
    // dx row vr's vector at column c (inside the row).
    auto row_vector = [&](int32_t vr, int32_t c) {
      const int32_t at = s_single[vr];
      if (at >= 0) return staged_vector<Bytes>(slot, at + c);  // one source: its folded slot, shifted
      // several: their sums in order, the columns outside [a, b) from the first slot
      const int32_t k0 = s_first[vr] - base, k1 = s_first[vr + 1] - base;
      A acc[V];
#pragma unroll
      for (int e = 0; e < V; ++e) acc[e] = A(-0.0);
      for (int32_t k = k0; k < k1; ++k) {
        P x;
        x.vector = staged_vector<Bytes>(slot + k * t.slot_vectors, table[k].phase + c + lo32);
#pragma unroll
        for (int e = 0; e < V; ++e) acc[e] += Accum<T>::load(x.elem[e]);
      }
      P y;
#pragma unroll
      for (int e = 0; e < V; ++e) y.elem[e] = Accum<T>::store(acc[e]);
      if (c < a || c + V > b) {
        P x;
        x.vector = staged_vector<Bytes>(slot, column0(k0) + c);
#pragma unroll
        for (int e = 0; e < V; ++e)
          if (c + e < a || c + e >= b) y.elem[e] = x.elem[e];
      }
      return y.vector;
    };
    if (tv.first == 0 && w % V == 0) {
      // Rows of whole vectors, each on a 16-byte boundary: a thread steps
      // kThreads vectors at a time with its row and column carried along
      // (drow rows and dc columns a step), no division a vector.
      constexpr int32_t kStep = kThreads * V;
      const int32_t drow = kStep / w, dc = kStep - drow * w;
      const int32_t l = static_cast<int32_t>(threadIdx.x) * V + r0 * w;
      int32_t vr = static_cast<int32_t>(fast_divide(static_cast<uint32_t>(l), t.width_div)), c = l - vr * w;
      for (T *o = out + l; vr < r1; o += kStep) {
        if (!late_edges || (c >= a && c + V <= b)) *reinterpret_cast<uint4 *>(o) = row_vector(vr, c);
        c += dc;
        vr += drow;
        if (c >= w) c -= w, ++vr;
      }
      if (late_edges) {  // the vectors of the edge cells, once their sums are in
        __syncthreads();
        const int32_t head = (a + V - 1) / V, tail = b / V, per_row = head + w / V - tail;
        for (int32_t i = threadIdx.x; i < (r1 - r0) * per_row; i += kThreads) {
          const int32_t q = i / per_row, e = i - q * per_row, c = (e < head ? e : tail + e - head) * V;
          *reinterpret_cast<uint4 *>(out + (r0 + q) * w + c) = row_vector(r0 + q, c);
        }
      }
      r0 = r1;
      continue;
    }
    // The vectors inside one row of the round (the others below).
    for (int32_t v = threadIdx.x; v < tv.count; v += kThreads) {
      const int32_t l0 = tv.first + v * V;
      if (w < V) {  // rows narrower than a vector: cell by cell
        for (int32_t l = l0 < 0 ? 0 : l0; l < l0 + V && l < tv.span; ++l) {
          const int32_t lr = static_cast<int32_t>(fast_divide(static_cast<uint32_t>(l), t.width_div));
          if (lr >= r0 && lr < r1) out[l] = cell(lr, l - lr * w);
        }
        continue;
      }
      if (l0 < 0 || l0 + V > tv.span) continue;
      int32_t vr, c;
      tile_row_column(t, l0, vr, c);
      if (c + V > w || vr < r0 || vr >= r1) continue;
      *reinterpret_cast<uint4 *>(out + l0) = row_vector(vr, c);
    }
    // The vectors across a row's end (rows at least a vector wide): the one
    // holding the last cell of row q, for q from the row before the round
    // (its vector may hold the round's first cells) to the round's last.
    // Every lane takes one, so none waits on another's path.
    for (int32_t q = r0 - 1 + static_cast<int32_t>(threadIdx.x); w >= V && q < r1; q += kThreads) {
      const int32_t end = (q + 1) * w;  // past row q's last cell
      if (end - 1 < tv.first) continue;  // no vector holds it
      const int32_t l0 = end - 1 - ((end - 1 - tv.first) & (V - 1));
      if (l0 >= 0 && l0 + V == end) continue;  // inside row q: the loop above's
      if (l0 >= 0 && l0 + V <= tv.span && q >= r0 && q + 1 < r1 && s_single[q] >= 0 && s_single[q + 1] >= 0) {
        // Both rows of one source: the two shifted slots, blended. Past row
        // q's end its slot reads into the next one's; the next row's read
        // starts up to V - 1 elements before its column 0, inside the slots
        // (that row's slot follows this one's). Neither part is kept.
        const int32_t c = l0 - q * w;
        *reinterpret_cast<uint4 *>(out + l0) = blend16(staged_vector<Bytes>(slot, s_single[q] + c),
                                                       staged_vector<Bytes>(slot, s_single[q + 1] + c - w),
                                                       (w - c) * Bytes);
        continue;
      }
      // Else cell by cell (a vector past the tile's end may be two rows'
      // last: both write its cells, alike).
      for (int32_t l = l0 < 0 ? 0 : l0; l < l0 + V && l < tv.span; ++l) {
        const int32_t lr = static_cast<int32_t>(fast_divide(static_cast<uint32_t>(l), t.width_div));
        if (lr >= r0 && lr < r1) out[l] = cell(lr, l - lr * w);
      }
    }
    r0 = r1;
  }
}

// 0, 3 (UNSUPPORTED: over 2^31 blocks), or the negated CUDA error of the launch.
template <class T, IndexMap M>
int launch_pad_backward_tiles(const RowsProblem &p, const SumTiles &s, int32_t a, int32_t b, cudaStream_t stream) {
  if (s.t.blocks > INT_MAX) return 3;
  const FastDivisor band_div = fast_divisor(a + s.t.width - b > 0 ? a + s.t.width - b : 1);
  const unsigned blocks = static_cast<unsigned>(s.t.blocks);
  // Tiles that may read flat ranges in a kernel of their own (the slot
  // tiles' kernel without that path: session 24, H200, the flat path in the
  // one kernel cost tiles that never take it 1-2.5 points of copy); not for
  // 8-byte elements (no shape of the grid, and the build's time).
  if constexpr (sizeof(T) <= 4) {
    const int32_t plane_rows = pad_backward_plane_rows(p, sizeof(T), s, M == IndexMap::Replicate);
    if (plane_rows > 0) {
      pad_backward_tiles_kernel<T, M, PadTilesTraits::kSumMinBlocks, true>
          <<<blocks, kBackwardTileThreads, s.t.smem_bytes, stream>>>(p, s.t, s.slots, a, b, band_div, plane_rows,
                                                                      fast_divisor(plane_rows));
      return -static_cast<int>(cudaGetLastError());
    }
  }
  pad_backward_tiles_kernel<T, M, PadTilesTraits::kSumMinBlocks, false>
      <<<blocks, kBackwardTileThreads, s.t.smem_bytes, stream>>>(p, s.t, s.slots, a, b, band_div, 0, fast_divisor(1));
  return -static_cast<int>(cudaGetLastError());
}

}  // namespace baracuda::kernels
