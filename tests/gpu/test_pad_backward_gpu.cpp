// pad backward on the GPU against the float64 scatter-add reference.
#include <vector>

#include "pad/pad_backward_traits.h"
#include "pad/pad_tiles_traits.h"
#include "gpu_helpers.hpp"
#include "random_pad_cases.hpp"

using namespace baracuda::check;

namespace {
const int32_t kModes[] = {BARACUDA_PAD_CONSTANT, BARACUDA_PAD_REFLECT, BARACUDA_PAD_REPLICATE, BARACUDA_PAD_CIRCULAR};
const baracuda_dtype_t kDtypes[] = {BARACUDA_DTYPE_F32, BARACUDA_DTYPE_F16, BARACUDA_DTYPE_BF16, BARACUDA_DTYPE_F64};
struct Shape {
  std::vector<int64_t> in, low, high;
};
const Shape kShapes[] = {
    {{1}, {0}, {0}},
    {{41}, {7}, {40}},
    {{3, 65}, {2, 64}, {1, 5}},
    {{5, 3, 9}, {4, 2, 8}, {4, 1, 3}},
    {{2, 2, 3, 17}, {1, 1, 2, 16}, {1, 0, 2, 1}},
    {{2, 1, 2, 2, 3, 2, 3, 9}, {1, 0, 1, 0, 2, 1, 1, 8}, {1, 0, 0, 1, 1, 1, 2, 2}},
};

// s with a leading unpadded batch axis: a problem `batch` times as large
// that takes the same passes.
Shape batched(const Shape &s, int64_t batch) {
  Shape b = s;
  b.in.insert(b.in.begin(), batch);
  b.low.insert(b.low.begin(), 0);
  b.high.insert(b.high.begin(), 0);
  return b;
}

}  // namespace

TEST_CASE("pad backward sums every source for every mode, dtype and rank", "[gpu][pad_backward]") {
  uint64_t seed = 300;
  for (baracuda_dtype_t dtype : kDtypes)
    for (int32_t mode : kModes)
      for (const Shape &s : kShapes)
        CHECK_CASE((PadCase{pad_desc(BARACUDA_OP_PAD_BACKWARD, dtype, mode, s.in, s.low, s.high), Layout::Contiguous,
                            Layout::Contiguous, seed++}),
                   run_pad);
}

TEST_CASE("pad backward replicate with wide pads sums long edge runs", "[gpu][pad_backward]") {
  for (baracuda_dtype_t dtype : kDtypes)
    CHECK_CASE((PadCase{pad_desc(BARACUDA_OP_PAD_BACKWARD, dtype, BARACUDA_PAD_REPLICATE, {3, 4, 10}, {20, 0, 50},
                                 {7, 9, 33})}),
               run_pad);
}

TEST_CASE("pad backward reads strided dy and writes strided dx", "[gpu][pad_backward]") {
  uint64_t seed = 400;
  const Layout layouts[] = {Layout::Gapped, Layout::InnerStride2, Layout::ColumnMajor, Layout::Offset};
  // Batched by 16, over PadBackwardTraits::kOneLaunchBytes for every dtype: the three passes.
  const Shape single{{3, 6, 70}, {1, 2, 5}, {2, 5, 69}};
  for (const Shape &s : {single, batched(single, 16)})
    for (baracuda_dtype_t dtype : kDtypes)
      for (int32_t mode : kModes)
        for (Layout l : layouts) {
          CHECK_CASE((PadCase{pad_desc(BARACUDA_OP_PAD_BACKWARD, dtype, mode, s.in, s.low, s.high), l,
                              Layout::Contiguous, seed++}),
                     run_pad);
          CHECK_CASE((PadCase{pad_desc(BARACUDA_OP_PAD_BACKWARD, dtype, mode, s.in, s.low, s.high),
                              Layout::Contiguous, l, seed++}),
                     run_pad);
        }
}

TEST_CASE("pad backward of constant mode with cropping gives zero where dy had no cell", "[gpu][pad_backward]") {
  for (baracuda_dtype_t dtype : kDtypes)
    CHECK_CASE((PadCase{pad_desc(BARACUDA_OP_PAD_BACKWARD, dtype, BARACUDA_PAD_CONSTANT, {6, 77}, {-2, 4}, {1, -9})}),
               run_pad);
}

TEST_CASE("pad backward sums long rows fed by two, four and eight outer rows", "[gpu][pad_backward]") {
  // Rows long enough for the vector sums; one, two and three padded outer
  // axes. Each alone is summed in one launch for some dtypes; batched by 8 it
  // is over PadBackwardTraits::kOneLaunchBytes for every dtype, so the vector
  // sums run.
  const Shape shapes[] = {
      {{5, 2, 1200}, {1, 0, 3}, {2, 0, 5}},
      {{3, 4, 1201}, {2, 3, 1}, {1, 2, 0}},
      {{3, 3, 2, 600}, {1, 1, 1, 2}, {2, 1, 1, 4}},
  };
  uint64_t seed = 600;
  for (const Shape &alone : shapes)
    for (const Shape &s : {alone, batched(alone, 8)})
      for (baracuda_dtype_t dtype : kDtypes)
        for (int32_t mode : {BARACUDA_PAD_REFLECT, BARACUDA_PAD_REPLICATE, BARACUDA_PAD_CIRCULAR})
          CHECK_CASE((PadCase{pad_desc(BARACUDA_OP_PAD_BACKWARD, dtype, mode, s.in, s.low, s.high),
                              Layout::Contiguous, Layout::Contiguous, seed++}),
                     run_pad);
}

TEST_CASE("pad backward on either side of the one-launch threshold", "[gpu][pad_backward]") {
  // dx [2, 4, w], dy [2, 6, w + 8]: 20 w + 96 elements together. The widest w
  // at most PadBackwardTraits::kOneLaunchBytes runs as one launch, w + 1 as
  // the three passes (with the vector sums: rows of over 2048 bytes).
  using baracuda::kernels::PadBackwardTraits;
  uint64_t seed = 700;
  for (baracuda_dtype_t dtype : kDtypes) {
    const int64_t cap = PadBackwardTraits::kOneLaunchBytes / (baracuda_dtype_bits(dtype) / 8);
    const int64_t w = (cap - 96) / 20;
    for (int32_t mode : {BARACUDA_PAD_REFLECT, BARACUDA_PAD_REPLICATE, BARACUDA_PAD_CIRCULAR})
      for (int64_t width : {w, w + 1})
        CHECK_CASE((PadCase{pad_desc(BARACUDA_OP_PAD_BACKWARD, dtype, mode, {2, 4, width}, {0, 1, 3}, {0, 1, 5}),
                            Layout::Contiguous, Layout::Contiguous, seed++}),
                   run_pad);
  }
}

TEST_CASE("pad backward sums short rows and wide inner pads of strided and offset tensors", "[gpu][pad_backward]") {
  // The shape grid's slow classes, small: each over
  // PadBackwardTraits::kOneLaunchBytes for every dtype. Rows of 61 to 300
  // elements, inner pads of 1 to 150, up to three padded outer axes; a
  // rank-1 problem, one long row.
  const Shape shapes[] = {
      {{64, 5, 7, 61}, {0, 1, 2, 3}, {0, 2, 1, 4}},
      {{64, 3, 4, 130}, {0, 1, 2, 17}, {0, 2, 1, 20}},
      {{64, 3, 300}, {0, 1, 100}, {0, 0, 150}},
      {{100000}, {5}, {7}},
  };
  const Layout dys[] = {Layout::Contiguous, Layout::Gapped, Layout::Offset};
  uint64_t seed = 900;
  for (const Shape &s : shapes)
    for (baracuda_dtype_t dtype : kDtypes)
      for (int32_t mode : {BARACUDA_PAD_REFLECT, BARACUDA_PAD_REPLICATE, BARACUDA_PAD_CIRCULAR})
        for (Layout dy : dys)
          for (Layout dx : {Layout::Contiguous, Layout::Offset})
            CHECK_CASE((PadCase{pad_desc(BARACUDA_OP_PAD_BACKWARD, dtype, mode, s.in, s.low, s.high), dy, dx, seed++}),
                       run_pad);
  // Replicate's outer rows fed by up to 8 dy rows, its edge columns by runs of 31 and 46.
  for (baracuda_dtype_t dtype : kDtypes)
    CHECK_CASE((PadCase{pad_desc(BARACUDA_OP_PAD_BACKWARD, dtype, BARACUDA_PAD_REPLICATE, {64, 2, 3, 40}, {0, 5, 0, 30},
                                 {0, 7, 2, 45}),
                        Layout::Contiguous, Layout::Offset, seed++}),
               run_pad);
}

TEST_CASE("pad backward of constant mode slices short rows of whole vectors", "[gpu][pad_backward]") {
  // Rows of 64 elements cut from rows of 72: every vector a copy of a
  // staged row (kernels/pad/pad_forward_tiles.cuh); dy offset by an element
  // shifts every one.
  uint64_t seed = 1000;
  for (baracuda_dtype_t dtype : kDtypes)
    for (Layout dy : {Layout::Contiguous, Layout::Offset})
      CHECK_CASE((PadCase{pad_desc(BARACUDA_OP_PAD_BACKWARD, dtype, BARACUDA_PAD_CONSTANT, {8, 20, 64}, {0, 2, 4},
                                   {0, 1, 4}),
                          dy, Layout::Contiguous, seed++}),
                 run_pad);
}

TEST_CASE("pad backward of random problems at the passes' and row kernels' boundaries",
          "[gpu][pad_backward][random]") {
  // random_pad_case says which boundaries the draws aim at; every dtype, mode
  // and layout.
  Draws d(0x7061640002);
  for (int i = 0; i < 400; ++i) CHECK_CASE(random_pad_case(d, BARACUDA_OP_PAD_BACKWARD, d.pick(kDtypes)), run_pad);
}

TEST_CASE("pad backward of short rows in row tiles: rounds of outer sources, rows at the 4 KiB bound",
          "[gpu][pad_backward]") {
  // kernels/pad/pad_tiles_heuristics.h: dx rows fed by up to 25 and 42 dy
  // rows (tiles whose sources take several rounds of their slots), short dx
  // rows of long dy rows (tiles cut to fit the shared memory), dy rows of
  // exactly PadTilesTraits::kMaxSumRowBytes and one element more (the
  // passes), rows with a wide band of columns of two inner sources up to
  // kMaxBandSumRowBytes and one element more (reflect and circular), and dx
  // rows narrower than a 16-byte vector of 16-bit elements, fed by up to 3
  // dy rows (edge vectors across several rows, and across rounds).
  uint64_t seed = 1200;
  for (baracuda_dtype_t dtype : kDtypes) {
    const int64_t bytes = baracuda_dtype_bits(dtype) / 8;
    const int64_t row = baracuda::kernels::PadTilesTraits::kMaxSumRowBytes / bytes;
    const int64_t band_row = baracuda::kernels::PadTilesTraits::kMaxBandSumRowBytes / bytes;
    for (int32_t mode : {BARACUDA_PAD_REFLECT, BARACUDA_PAD_REPLICATE, BARACUDA_PAD_CIRCULAR}) {
      const int64_t wide = mode == BARACUDA_PAD_REPLICATE ? row - 19 : 9;
      const Shape shapes[] = {
          {{3, band_row - 411}, {1, 150}, {0, 261}},
          {{3, band_row - 410}, {0, 150}, {0, 261}},
          {{40, 6, 5, 33}, {0, 3, 4, 5}, {0, 4, 3, 6}},
          {{3, 7, 9, 7}, {0, 4, 2, 1}, {0, 5, 6, 1}},
          {{64, 10}, {0, 9}, {0, wide}},
          {{9, row - 3}, {1, 1}, {0, 2}},
          {{9, row - 2}, {1, 1}, {0, 2}},
          {{200, 4, 5}, {0, 3, 2}, {0, 2, 4}},
      };
      for (const Shape &s : shapes)
        for (Layout dy : {Layout::Contiguous, Layout::Gapped, Layout::Offset})
          for (Layout dx : {Layout::Contiguous, Layout::Offset})
            CHECK_CASE((PadCase{pad_desc(BARACUDA_OP_PAD_BACKWARD, dtype, mode, s.in, s.low, s.high), dy, dx, seed++}),
                       run_pad);
    }
  }
}
