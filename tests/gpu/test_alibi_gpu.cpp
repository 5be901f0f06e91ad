// ALiBi forward and backward on the GPU against the float64 reference.
#include <algorithm>
#include <vector>

#include "alibi/alibi_heuristics.h"
#include "gpu_helpers.hpp"
#include "random_draws.hpp"
#include "reference/alibi_harness.hpp"

using namespace baracuda::check;

namespace {

const baracuda_dtype_t kDtypes[] = {BARACUDA_DTYPE_F32, BARACUDA_DTYPE_F16, BARACUDA_DTYPE_BF16, BARACUDA_DTYPE_F64};
const int32_t kConventions[] = {BARACUDA_ALIBI_SIGNED, BARACUDA_ALIBI_SYMMETRIC};
const int32_t kAlignments[] = {BARACUDA_ALIBI_TOP_LEFT, BARACUDA_ALIBI_BOTTOM_RIGHT};
const ScoresLayout kLayouts[] = {ScoresLayout::Contiguous, ScoresLayout::Offset, ScoresLayout::Padded,
                                 ScoresLayout::HeadsInner};

struct Size {
  int64_t batch, heads, queries, keys;
};
// Q = K = 1; a decoding step (Q = 1) and a single key (K = 1); Q < K and
// Q > K (bottom-right then faces keys before the first), odd; Q = K odd;
// vector-friendly rows; rows over one block with a partial last vector;
// one-row tiles of whole vectors narrower than a tile (a decoding step
// shorter than a tile, rows over half a tile).
const Size kSizes[] = {{1, 1, 1, 1},    {2, 3, 1, 67},     {2, 3, 37, 1},     {2, 3, 5, 133},
                       {2, 2, 133, 5},  {1, 3, 67, 67},    {2, 4, 128, 256},  {1, 2, 17, 2051},
                       {1, 1, 3, 9001}, {2, 3, 1, 1000},   {1, 4, 1, 4096},   {1, 2, 3, 5000}};

AlibiCase make_case(int32_t op, baracuda_dtype_t dtype, const Size &s, int32_t convention, int32_t alignment,
                    uint64_t seed) {
  AlibiCase c;
  c.op = op;
  c.dtype = dtype;
  c.batch = s.batch, c.heads = s.heads, c.queries = s.queries, c.keys = s.keys;
  c.convention = convention;
  c.alignment = alignment;
  c.seed = seed;
  return c;
}

// op over every dtype x convention x alignment x scores layout x size; [H]
// or [B, H] slopes with the seed.
void check_every_shape(int32_t op, uint64_t seed) {
  for (baracuda_dtype_t dtype : kDtypes)
    for (int32_t convention : kConventions)
      for (int32_t alignment : kAlignments)
        for (ScoresLayout layout : kLayouts)
          for (const Size &s : kSizes) {
            AlibiCase c = make_case(op, dtype, s, convention, alignment, seed++);
            c.layout = layout;
            c.per_batch_slopes = seed % 2 == 0;
            CHECK_CASE(c, run_alibi);
          }
}

// The slopes dtypes a problem of this dtype takes: the default (0), f32 and
// the scores' own, each once.
std::vector<baracuda_dtype_t> slopes_dtypes(baracuda_dtype_t dtype) {
  std::vector<baracuda_dtype_t> out{0};
  if (dtype != BARACUDA_DTYPE_F64) out.push_back(BARACUDA_DTYPE_F32);
  if (dtype != BARACUDA_DTYPE_F32) out.push_back(dtype);
  return out;
}

// op over every dtype x slopes dtype x slopes shape x slopes layout, on a
// size small enough that an f16 DSLOPES holds its sums.
void check_every_slopes_form(int32_t op, const std::vector<SlopesLayout> &layouts, uint64_t seed) {
  for (baracuda_dtype_t dtype : kDtypes)
    for (baracuda_dtype_t slopes_dtype : slopes_dtypes(dtype))
      for (bool per_batch : {false, true})
        for (SlopesLayout slopes_layout : layouts) {
          AlibiCase c = make_case(op, dtype, {3, 5, 7, 45}, kConventions[seed % 2], kAlignments[seed / 2 % 2], seed);
          ++seed;
          c.slopes_dtype = slopes_dtype;
          c.per_batch_slopes = per_batch;
          c.slopes_layout = slopes_layout;
          CHECK_CASE(c, run_alibi);
        }
}

// In place over every dtype and scores layout.
void check_in_place(int32_t op, uint64_t seed) {
  for (baracuda_dtype_t dtype : kDtypes)
    for (ScoresLayout layout : kLayouts)
      for (const Size &s : {Size{2, 3, 5, 133}, Size{1, 2, 17, 2051}}) {
        AlibiCase c = make_case(op, dtype, s, kConventions[seed % 2], kAlignments[seed / 2 % 2], seed);
        ++seed;
        c.layout = layout;
        c.in_place = true;
        CHECK_CASE(c, run_alibi);
      }
}

// A random forward or backward, every dtype, slopes dtype, convention,
// alignment and layout, in place or not, one backward output alone now and
// then. With T a tile's elements (kernels/alibi/alibi_heuristics.h: 1024
// vectors of V) K is tiny, about V, about T / 2 (rows over half a tile),
// about T (whole-row chunks from T on), two or three tiles (rows in
// chunks), each one less and one more; Q is 1 (decoding), 2, about the rows
// a tile holds or twice that, or up to 300; B and H 1 to 4; at most 2^20
// elements. Backwards of up to 8 tiles a slope take the one launch of
// clusters on sm 90; some repeat on the two-launch candidate.
AlibiCase random_alibi_case(Draws &d) {
  AlibiCase c;
  c.op = d.percent(50) ? BARACUDA_OP_ALIBI : BARACUDA_OP_ALIBI_BACKWARD;
  c.dtype = d.pick(kDtypes);
  const bool backward = c.op == BARACUDA_OP_ALIBI_BACKWARD;
  const int elem_bytes = baracuda_dtype_bits(c.dtype) / 8;
  const int64_t v = 16 / elem_bytes, tile = baracuda::kernels::alibi_tile_elems(elem_bytes);
  for (bool fits = false; !fits;) {
    c.keys = d.size({1, v, 2 * v, tile / 2 - v, tile / 2, tile / 2 + v, tile - v, tile, 2 * tile, 3 * tile}, 1,
                    3 * tile + v);
    const int64_t rows_per_tile = std::max<int64_t>(tile / c.keys, 1);
    c.queries = d.percent(15) ? 1 : d.size({2, rows_per_tile, 2 * rows_per_tile}, 1, 300);
    c.batch = d.between(1, 4);
    c.heads = d.between(1, 4);
    fits = c.batch * c.heads * c.queries * c.keys <= (int64_t{1} << 20);
  }
  c.convention = d.pick(kConventions);
  c.alignment = d.pick(kAlignments);
  c.per_batch_slopes = d.percent(50);
  c.layout = d.pick(kLayouts);
  c.slopes_layout = backward ? d.pick({SlopesLayout::Dense, SlopesLayout::Strided})
                             : d.pick({SlopesLayout::Dense, SlopesLayout::Strided, SlopesLayout::Broadcast});
  // An f16 DSLOPES holds sums up to 65504: f16 slopes only where every term together stays below.
  const int64_t terms = c.queries * c.keys * (c.per_batch_slopes ? 1 : c.batch);
  std::vector<baracuda_dtype_t> slopes = slopes_dtypes(c.dtype);
  if (backward && c.dtype == BARACUDA_DTYPE_F16 && terms * (c.queries + c.keys) >= 30000) slopes.pop_back();
  c.slopes_dtype = d.pick(slopes);
  c.in_place = d.percent(25);
  if (backward) {
    const int outputs = static_cast<int>(d.between(0, 5));  // both, 4 in 6
    c.dscores = outputs != 0;
    c.dslopes = outputs != 1;
    if (d.percent(30)) c.repeat_candidate = "alibi_bwd";
  }
  c.seed = d.seed();
  return c;
}

}  // namespace

TEST_CASE("alibi forward matches the reference for every dtype, convention, alignment, layout and size",
          "[gpu][alibi]") {
  check_every_shape(BARACUDA_OP_ALIBI, 1);
}

TEST_CASE("alibi forward takes [H] and [B, H] slopes, dense, strided or of stride 0, in f32 or the scores' dtype",
          "[gpu][alibi]") {
  check_every_slopes_form(BARACUDA_OP_ALIBI, {SlopesLayout::Dense, SlopesLayout::Strided, SlopesLayout::Broadcast},
                          2000);
}

TEST_CASE("alibi forward in place (Y is SCORES)", "[gpu][alibi]") { check_in_place(BARACUDA_OP_ALIBI, 3000); }

TEST_CASE("alibi backward matches the reference for every dtype, convention, alignment, layout and size",
          "[gpu][alibi]") {
  check_every_shape(BARACUDA_OP_ALIBI_BACKWARD, 4000);
}

TEST_CASE("alibi backward writes [H] and [B, H] DSLOPES, dense or strided, in f32 or the scores' dtype",
          "[gpu][alibi]") {
  check_every_slopes_form(BARACUDA_OP_ALIBI_BACKWARD, {SlopesLayout::Dense, SlopesLayout::Strided}, 5000);
}

TEST_CASE("alibi backward in place (DSCORES is DY)", "[gpu][alibi]") {
  check_in_place(BARACUDA_OP_ALIBI_BACKWARD, 6000);
}

TEST_CASE("alibi backward computes one output alone when the other is left out", "[gpu][alibi]") {
  uint64_t seed = 7000;
  for (baracuda_dtype_t dtype : kDtypes)
    for (bool dscores_only : {false, true})
      for (const Size &s : {Size{2, 3, 1, 67}, Size{2, 4, 128, 256}}) {
        AlibiCase c = make_case(BARACUDA_OP_ALIBI_BACKWARD, dtype, s, kConventions[seed % 2],
                                kAlignments[seed / 2 % 2], seed);
        ++seed;
        c.dscores = dscores_only;
        c.dslopes = !dscores_only;
        c.layout = ScoresLayout::Padded;
        CHECK_CASE(c, run_alibi);
      }
}

TEST_CASE("alibi backward is bitwise repeatable over many blocks per slope", "[gpu][alibi]") {
  // The harness runs every case twice and compares the bytes; here each
  // slope's sum spans many blocks' partial sums.
  uint64_t seed = 8000;
  for (baracuda_dtype_t dtype : {BARACUDA_DTYPE_F32, BARACUDA_DTYPE_BF16})
    for (bool per_batch : {false, true}) {
      AlibiCase c = make_case(BARACUDA_OP_ALIBI_BACKWARD, dtype, {2, 8, 512, 1024}, BARACUDA_ALIBI_SIGNED,
                              BARACUDA_ALIBI_BOTTOM_RIGHT, seed++);
      c.per_batch_slopes = per_batch;
      CHECK_CASE(c, run_alibi);
    }
}

TEST_CASE("alibi backward in one launch gives the bits of the two-launch path", "[gpu][alibi]") {
  // These sizes (at most 8 tiles per slope) run as one launch; the repeat
  // forces the two-launch candidate: the pass and the reduction kernel.
  uint64_t seed = 8500;
  for (baracuda_dtype_t dtype : kDtypes)
    for (const Size &s : {Size{1, 32, 1, 32768}, Size{3, 2, 5, 700}, Size{2, 3, 37, 1}, Size{1, 2, 1, 20000},
                          Size{2, 2, 1, 13001}})
      for (bool per_batch : {false, true}) {
        AlibiCase c = make_case(BARACUDA_OP_ALIBI_BACKWARD, dtype, s, kConventions[seed % 2],
                                kAlignments[seed / 2 % 2], seed);
        ++seed;
        c.per_batch_slopes = per_batch;
        c.repeat_candidate = "alibi_bwd";
        CHECK_CASE(c, run_alibi);
      }
}

TEST_CASE("alibi backward DSLOPES stays within the header's bound at K = 32768", "[gpu][alibi]") {
  // |dslopes - exact| <= (log2 N + 2) * eps * sum |dy * bias|, N = 65536
  // products per slope, checked by the harness for every DSLOPES element.
  uint64_t seed = 9000;
  for (baracuda_dtype_t dtype : {BARACUDA_DTYPE_F32, BARACUDA_DTYPE_F64})
    for (int32_t convention : kConventions)
      for (int32_t alignment : kAlignments) {
        CHECK_CASE(make_case(BARACUDA_OP_ALIBI_BACKWARD, dtype, {1, 2, 2, 32768}, convention, alignment, seed++),
                   run_alibi);
        // [H] slopes shared by two batch entries of one query each: N = 2 * 32768.
        CHECK_CASE(make_case(BARACUDA_OP_ALIBI_BACKWARD, dtype, {2, 2, 1, 32768}, convention, alignment, seed++),
                   run_alibi);
      }
}

TEST_CASE("alibi with Q + K past 2^24 runs the 64-bit index kernels", "[gpu][alibi][large]") {
  // Below 2^24 positions the kernels step the bias in f32 with 32-bit
  // indices; this size takes the 64-bit variants, forward and backward.
  uint64_t seed = 9500;
  for (int32_t op : {BARACUDA_OP_ALIBI, BARACUDA_OP_ALIBI_BACKWARD})
    for (baracuda_dtype_t dtype : {BARACUDA_DTYPE_F32, BARACUDA_DTYPE_BF16}) {
      const int32_t convention = kConventions[seed % 2];
      CHECK_CASE(make_case(op, dtype, {1, 1, 2, (int64_t{1} << 24) + 5}, convention, BARACUDA_ALIBI_BOTTOM_RIGHT,
                           seed++),
                 run_alibi);
    }
}

TEST_CASE("alibi forward and backward of 160 random problems at the tiles' boundaries", "[gpu][alibi][random]") {
  // random_alibi_case says which boundaries the draws aim at.
  Draws d(0x616c696269);
  for (int i = 0; i < 160; ++i) CHECK_CASE(random_alibi_case(d), run_alibi);
}
