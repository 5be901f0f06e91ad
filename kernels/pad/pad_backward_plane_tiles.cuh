// Pad backward tiles whose dy rows are one flat range, staged in one go
// without listing any row's sources (pad_backward_tiles.cuh's slots list
// each): tiles of whole planes (the dx rows of the last outer axis), and
// tiles of rows of a plane axis without a pad (dx row h of a plane reads dy
// row h), whose planes each have one dy source plane along the axes above,
// the dy planes one after another. A row's sources along the plane's axis
// follow from its place in the plane (copy_run), so a row of one source is
// a shifted copy of its own dy row, and the few rows of several (a padded
// plane's pad rows) are summed by warps of their own instead of holding a
// warp of one-source rows on the sums' path. Every cell adds its sources
// in the slots' order (ascending dy rows, each one's inner copies
// ascending, from -0.0): bits equal to the slot tiles'. The host
// (pad_tiles_heuristics.h's pad_backward_plane_rows) allows whole planes
// where dx rows are whole 16-byte vectors from a 16-byte boundary, rows of
// an unpadded plane axis where they are at least a vector wide, and a range
// that fits the slots' shared memory; a tile whose planes do not qualify
// (a plane on an outer pad) takes the slots.
#pragma once

#include <cuda_runtime.h>

#include "common/accumulate.cuh"
#include "common/async_copy.cuh"
#include "common/element_words.cuh"
#include "common/row_tiles.cuh"
#include "common/shared_address.cuh"
#include "pad/pad_backward_copies.cuh"
#include "pad/pad_backward_staged.cuh"

namespace baracuda::kernels {

// A flat tile: its rows from row `skip` of its first plane on (0 but on
// an unpadded plane axis), over `planes` planes, and the dy element its
// range starts at.
struct FlatTile {
  int32_t skip, planes;
  uint32_t first_low, first_high;  // words of 4-byte alignment: the slot tiles' scratch words hold it
  __device__ int64_t first() const { return static_cast<int64_t>((uint64_t{first_high} << 32) | first_low); }
};

// Whether the block's nrows dx rows from row0 read one flat range of dy
// rows (into *tile where they do): each of their planes (at most 32) one
// source along the outer axes above its own, each dy plane right after the
// one before, the range's 16-byte copies inside dy. Warp 0 looks, lane i at
// plane i; the block learns it at a barrier.
template <IndexMap M, int Bytes>
__device__ __forceinline__ bool flat_tile(const RowsProblem &p, const RowTiles &t, int64_t row0, int32_t nrows,
                                          int32_t plane_rows, FastDivisor plane_div, FlatTile *tile) {
  const int axis = p.rank - 2;
  const int32_t p0 = static_cast<int32_t>(fast_divide(static_cast<uint32_t>(row0), plane_div));
  const int32_t skip = static_cast<int32_t>(row0) - p0 * plane_rows;
  const int32_t planes = static_cast<int32_t>(fast_divide(static_cast<uint32_t>(skip + nrows - 1), plane_div)) + 1;
  bool flat = planes <= 32;
  if (threadIdx.x < 32 && flat) {
    const int32_t i = static_cast<int32_t>(threadIdx.x);
    TileRowCoords rc(row0 - skip + static_cast<int64_t>(i < planes ? i : 0) * plane_rows);
    int32_t count = 1;
    int64_t own = 0;
#pragma unroll
    for (int d = kMaxRank - 2; d >= 0; --d) {
      if (d >= p.rank - 1) continue;
      const int32_t c = static_cast<int32_t>(rc.next(t, p.out_extent, d));
      if (d == axis) continue;  // the plane's own rows
      const int32_t lo = static_cast<int32_t>(p.pad_low[d]);
      const CopyRunOf<int32_t> run =
          copy_run<M>(c, lo, static_cast<int32_t>(p.out_extent[d]), static_cast<int32_t>(p.in_extent[d]));
      count *= (run.before >= 0) + (run.end - run.begin) + (run.after >= 0);
      own += static_cast<int64_t>(c + lo) * p.in_stride[d];
    }
    const int64_t row = p.in_stride[axis], plane = p.in_extent[axis] * row;
    const int64_t own0 = __shfl_sync(0xffffffffu, own, 0);
    flat = i >= planes || (count == 1 && own == own0 + i * plane);
    if (i == 0) {
      // whole planes (skip 0, rows a multiple of the plane's) or rows of an unpadded plane axis
      const bool whole = skip == 0 && nrows % plane_rows == 0;
      flat = flat && (whole || (p.pad_low[axis] == 0 && p.in_extent[axis] == plane_rows));
      const int64_t rows = whole ? planes * p.in_extent[axis] : nrows;
      const uintptr_t in = reinterpret_cast<uintptr_t>(p.in), in_end = in + static_cast<uintptr_t>(t.source_span) * Bytes;
      const uintptr_t begin = in + static_cast<uintptr_t>(own0 + skip * row) * Bytes;
      const uintptr_t end = begin + static_cast<uintptr_t>(rows * row) * Bytes;
      flat = flat && (begin & ~uintptr_t{15}) >= in && ((end + 15) & ~uintptr_t{15}) <= in_end;
      const uint64_t first = static_cast<uint64_t>(own0 + skip * row);
      *tile = FlatTile{skip, planes, static_cast<uint32_t>(first), static_cast<uint32_t>(first >> 32)};
    }
  }
  return __syncthreads_and(flat) != 0;
}

// The flat tile of nrows dx rows from row0 (planes of plane_rows):
// staged into `slot`, the columns outside [a, b) summed into each row's
// first source (as the slot tiles do), then the rows of one source copied
// and the rows of several summed. s_at: a word a row, s_multi: a word a row
// and a count after them.
template <class T, IndexMap M, int Threads>
__device__ __forceinline__ void sum_flat_tile(const RowsProblem &p, const RowTiles &t, int64_t row0, int32_t nrows,
                                              const FlatTile ft, int32_t plane_rows, FastDivisor plane_div, int32_t a,
                                               int32_t b, FastDivisor band_div, uint4 *slot, int32_t *s_at,
                                               int32_t *s_multi, int32_t *s_multi_count) {
  using A = typename Accum<T>::type;
  using P = Pack16<T>;
  constexpr int V = P::kCount;
  constexpr int Bytes = sizeof(T);
  const int axis = p.rank - 2, inner = p.rank - 1;
  const int32_t row_len = static_cast<int32_t>(p.in_stride[axis]), dy_rows = static_cast<int32_t>(p.in_extent[axis]);
  const int32_t lo_a = static_cast<int32_t>(p.pad_low[axis]);
  const int32_t lo = static_cast<int32_t>(p.pad_low[inner]), n = static_cast<int32_t>(p.out_extent[inner]),
                m = static_cast<int32_t>(p.in_extent[inner]);
  const int32_t skip = ft.skip, w = t.width;
  const int32_t range_rows = skip == 0 && nrows % plane_rows == 0 ? ft.planes * dy_rows : nrows;
  T *const elems = reinterpret_cast<T *>(slot);

  // The range from its 16-byte boundary, a vector late where that keeps a
  // copy inside one 32-byte sector of shared memory; `lead`: the elements
  // before the range's first.
  const uintptr_t from = reinterpret_cast<uintptr_t>(p.in) + static_cast<uintptr_t>(ft.first()) * Bytes;
  const uintptr_t begin16 = from & ~uintptr_t{15};
  const uint32_t late = ((static_cast<uint32_t>(from) ^ shared_address(slot)) >> 4) & 1u;
  const int32_t lead = static_cast<int32_t>((from & 15u) / Bytes + late * V);
  const int32_t vectors =
      static_cast<int32_t>((from - begin16 + static_cast<uintptr_t>(range_rows) * row_len * Bytes + 15) / 16);
  const uint4 *src = reinterpret_cast<const uint4 *>(begin16);
  for (int32_t f = threadIdx.x; f < vectors; f += Threads) async_copy16(slot + late + f, src + f);
  async_copy_commit();

  // dy row j of the tile's plane i starts at element row_start(i, j) of the slots.
  auto row_start = [&](int32_t i, int32_t j) { return lead + (i * dy_rows + j - skip) * row_len; };
  // Row q's plane (from the tile's first), and its sources along the plane's axis.
  auto row_sources = [&](int32_t q, int32_t &i) {
    i = static_cast<int32_t>(fast_divide(static_cast<uint32_t>(skip + q), plane_div));
    return copy_run<M>(skip + q - i * plane_rows, lo_a, plane_rows, dy_rows);
  };
  auto first_source = [](const CopyRunOf<int32_t> &r) { return r.before >= 0 ? r.before : r.begin; };
  auto is_single = [](const CopyRunOf<int32_t> &r) { return r.before < 0 && r.after < 0 && r.end - r.begin == 1; };
  for (int32_t q = threadIdx.x; q < nrows; q += Threads) {
    int32_t i;
    const CopyRunOf<int32_t> r = row_sources(q, i);
    const bool single = is_single(r);
    s_at[q] = single ? row_start(i, r.begin) + lo : -1;
    if (!single) s_multi[atomicAdd(s_multi_count, 1)] = q;
  }
  async_copy_wait<0>();
  __syncthreads();

  // The columns outside [a, b), each summed into its row's first source at
  // the column's own copy (no other cell reads that element). 4-byte
  // elements: a thread keeps one column, its copies found once, for rows
  // `per` apart where the band fits the block (a row of one source then adds
  // its own row's copies alone); else (and 16-bit: session 24, H200, the odd
  // rows' replicate 1-3 points behind with the columns kept) cells in turn.
  const int32_t band = a + w - b;
  if constexpr (Bytes >= 4) {
    auto band_cell = [&](int32_t q, int32_t c, const CopyRunOf<int32_t> &copies) {
      A sum(-0.0);
      const int32_t at = s_at[q];
      if (at >= 0) {
        add_run<T, M>(sum, elems + at - lo, copies);
        elems[at + c] = Accum<T>::store(sum);
        return;
      }
      int32_t i;
      const CopyRunOf<int32_t> r = row_sources(q, i);
      if (r.before >= 0) add_run<T, M>(sum, elems + row_start(i, r.before), copies);
      for (int32_t k = r.begin; k < r.end; ++k) add_run<T, M>(sum, elems + row_start(i, k), copies);
      if (r.after >= 0) add_run<T, M>(sum, elems + row_start(i, r.after), copies);
      elems[row_start(i, first_source(r)) + lo + c] = Accum<T>::store(sum);
    };
    if (band > 0 && band <= Threads) {
      const int32_t q0 = static_cast<int32_t>(fast_divide(threadIdx.x, band_div)), j = threadIdx.x - q0 * band;
      const int32_t per = static_cast<int32_t>(fast_divide(Threads, band_div)), c = j < a ? j : b + (j - a);
      const CopyRunOf<int32_t> copies = copy_run<M>(c, lo, n, m);
      for (int32_t q = q0 < per ? q0 : nrows; q < nrows; q += per) band_cell(q, c, copies);
    } else {
      for (int32_t e = threadIdx.x; e < nrows * band; e += Threads) {
        const int32_t q = static_cast<int32_t>(fast_divide(static_cast<uint32_t>(e), band_div));
        const int32_t j = e - q * band, c = j < a ? j : b + (j - a);
        band_cell(q, c, copy_run<M>(c, lo, n, m));
      }
    }
  } else {
    for (int32_t e = threadIdx.x; e < nrows * band; e += Threads) {
      const int32_t q = static_cast<int32_t>(fast_divide(static_cast<uint32_t>(e), band_div));
      const int32_t j = e - q * band, c = j < a ? j : b + (j - a);
      int32_t i;
      const CopyRunOf<int32_t> r = row_sources(q, i);
      A sum(-0.0);
      if (r.before >= 0) add_copies<T, M>(sum, elems + row_start(i, r.before), c, lo, n, m);
      for (int32_t k = r.begin; k < r.end; ++k) add_copies<T, M>(sum, elems + row_start(i, k), c, lo, n, m);
      if (r.after >= 0) add_copies<T, M>(sum, elems + row_start(i, r.after), c, lo, n, m);
      elems[row_start(i, first_source(r)) + lo + c] = Accum<T>::store(sum);
    }
  }
  __syncthreads();

  T *const out = static_cast<T *>(p.out) + row0 * w;
  const TileVectors tv = tile_vectors<Bytes>(out, nrows * w);
  constexpr int32_t kStep = Threads * V;
  const int32_t drow = kStep / w, dc = kStep - drow * w;
  if (tv.first != 0 || w % V != 0) {
    // Session 24 (H200): one loop for 4-byte elements (the odd f32 rows 2-3
    // points ahead), the vectors across row ends in a loop of their own for
    // 16-bit ones (3-4 points ahead: a warp holds two of them, not one).
    if constexpr (Bytes >= 4) {
      // Rows not whole vectors (a plane axis without a pad: every row one
      // source): a vector is its row's folded dy row, shifted, and one across
      // a row's end blends the two rows' (each read passes its row's end or
      // starts before its start, inside the range); a thread steps Threads
      // vectors at a time with its row and column carried along (vector l0
      // from tv.first <= 0: row -1 for the first). The tile's partial vectors
      // at its two ends go cell by cell (the tiles beside it write the rest).
      int32_t l0 = tv.first + static_cast<int32_t>(threadIdx.x) * V;
      int32_t q = static_cast<int32_t>(fast_divide(static_cast<uint32_t>(l0 + w), t.width_div)) - 1, c = l0 - q * w;
      for (; l0 < tv.span; l0 += kStep) {
        if (l0 >= 0 && l0 + V <= tv.span) {
          uint4 x = staged_vector<Bytes>(slot, s_at[q] + c);
          if (c + V > w) x = blend16(x, staged_vector<Bytes>(slot, s_at[q + 1] + c - w), (w - c) * Bytes);
          *reinterpret_cast<uint4 *>(out + l0) = x;
        } else {
          for (int32_t e = l0 < 0 ? 0 : l0; e < l0 + V && e < tv.span; ++e) {
            const int32_t qe = static_cast<int32_t>(fast_divide(static_cast<uint32_t>(e), t.width_div));
            out[e] = elems[s_at[qe] + e - qe * w];
          }
        }
        c += dc;
        q += drow;
        if (c >= w) c -= w, ++q;
      }
    } else {
      // Rows not whole vectors (a plane axis without a pad: every row one
      // source). The vectors inside a row: its folded dy row, shifted; a
      // thread steps Threads vectors at a time with its row and column
      // carried along (vector l0 from tv.first <= 0: row -1 for the first).
      int32_t l0 = tv.first + static_cast<int32_t>(threadIdx.x) * V;
      int32_t q = static_cast<int32_t>(fast_divide(static_cast<uint32_t>(l0 + w), t.width_div)) - 1, c = l0 - q * w;
      for (; l0 < tv.span; l0 += kStep) {
        if (l0 >= 0 && c + V <= w) *reinterpret_cast<uint4 *>(out + l0) = staged_vector<Bytes>(slot, s_at[q] + c);
        c += dc;
        q += drow;
        if (c >= w) c -= w, ++q;
      }
      // The vector across each row's end (the two rows' folded dy rows,
      // shifted and blended: each read passes its row's end or starts before
      // its start, inside the range), and the tile's partial vectors at its
      // two ends, cell by cell (the tiles beside it write their other cells).
      for (int32_t r = static_cast<int32_t>(threadIdx.x) - 1; r < nrows; r += Threads) {
        int32_t v0, v1;  // the cells [v0, v1) of a partial vector
        if (r < 0) {
          v0 = 0, v1 = tv.first < 0 ? tv.first + V : 0;
        } else {
          const int32_t end = (r + 1) * w, l = end - 1 - ((end - 1 - tv.first) & (V - 1));
          if (l + V == end) continue;  // inside row r: the loop above's
          if (l + V <= tv.span) {
            const int32_t cl = l - r * w;
            *reinterpret_cast<uint4 *>(out + l) = blend16(staged_vector<Bytes>(slot, s_at[r] + cl),
                                                          staged_vector<Bytes>(slot, s_at[r + 1] + cl - w),
                                                          (w - cl) * Bytes);
            continue;
          }
          v0 = l, v1 = tv.span;
        }
        for (int32_t e = v0; e < v1; ++e) {
          const int32_t qe = static_cast<int32_t>(fast_divide(static_cast<uint32_t>(e), t.width_div));
          out[e] = elems[s_at[qe] + e - qe * w];
        }
      }
    }
    return;
  }
  // Rows of one source: their folded dy rows, shifted; a thread steps
  // Threads vectors at a time with its row and column carried along.
  {
    const int32_t l = static_cast<int32_t>(threadIdx.x) * V;
    int32_t vr = static_cast<int32_t>(fast_divide(static_cast<uint32_t>(l), t.width_div)), c = l - vr * w;
    for (T *o = out + l; vr < nrows; o += kStep) {
      const int32_t at = s_at[vr];
      if (at >= 0) *reinterpret_cast<uint4 *>(o) = staged_vector<Bytes>(slot, at + c);
      c += dc;
      vr += drow;
      if (c >= w) c -= w, ++vr;
    }
  }
  // Rows of several: their sources' vectors summed in order, the columns
  // outside [a, b) taken from the first source.
  const int32_t multi = *s_multi_count;
  for (int32_t l = static_cast<int32_t>(threadIdx.x) * V; l < multi * w; l += kStep) {
    const int32_t mr = static_cast<int32_t>(fast_divide(static_cast<uint32_t>(l), t.width_div)), c = l - mr * w;
    const int32_t q = s_multi[mr];
    int32_t i;
    const CopyRunOf<int32_t> r = row_sources(q, i);
    A acc[V];
#pragma unroll
    for (int e = 0; e < V; ++e) acc[e] = A(-0.0);
    auto add_row = [&](int32_t j) {
      P x;
      x.vector = staged_vector<Bytes>(slot, row_start(i, j) + lo + c);
#pragma unroll
      for (int e = 0; e < V; ++e) acc[e] += Accum<T>::load(x.elem[e]);
    };
    if (r.before >= 0) add_row(r.before);
    for (int32_t k = r.begin; k < r.end; ++k) add_row(k);
    if (r.after >= 0) add_row(r.after);
    P y;
#pragma unroll
    for (int e = 0; e < V; ++e) y.elem[e] = Accum<T>::store(acc[e]);
    if (c < a || c + V > b) {
      P x;
      x.vector = staged_vector<Bytes>(slot, row_start(i, first_source(r)) + lo + c);
#pragma unroll
      for (int e = 0; e < V; ++e)
        if (c + e < a || c + e >= b) y.elem[e] = x.elem[e];
    }
    *reinterpret_cast<uint4 *>(out + q * w + c) = y.vector;
  }
}

}  // namespace baracuda::kernels
