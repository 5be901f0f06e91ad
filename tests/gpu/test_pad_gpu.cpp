// pad forward on the GPU against the byte-exact reference.
#include <vector>

#include "gpu_helpers.hpp"
#include "pad/pad_tiles_traits.h"
#include "random_pad_cases.hpp"

using namespace baracuda::check;

namespace {

const int32_t kModes[] = {BARACUDA_PAD_CONSTANT, BARACUDA_PAD_REFLECT, BARACUDA_PAD_REPLICATE, BARACUDA_PAD_CIRCULAR};

struct Shape {
  std::vector<int64_t> in, low, high;
};

// Shapes every mode accepts (pad < extent): sizes 1, odd, and not multiples of any vector width.
const Shape kShapes[] = {
    {{1}, {0}, {0}},
    {{37}, {5}, {3}},
    {{2, 33}, {1, 0}, {1, 17}},
    {{3, 5, 129}, {2, 1, 7}, {0, 4, 9}},
    {{4, 1, 3, 19}, {0, 0, 2, 18}, {3, 0, 1, 1}},
    {{2, 3, 2, 3, 2, 7}, {1, 0, 1, 2, 0, 6}, {0, 2, 1, 0, 1, 3}},
    {{2, 2, 2, 2, 2, 2, 3, 5}, {1, 0, 1, 0, 1, 0, 2, 4}, {0, 1, 0, 1, 0, 1, 1, 1}},
};

std::vector<baracuda_dtype_t> pad_dtypes() {
  std::vector<baracuda_dtype_t> out;
  for (baracuda_dtype_t d = 1; d < BARACUDA_DTYPE_COUNT; ++d)
    if (baracuda_op_dtype_mask(BARACUDA_OP_PAD) >> d & 1) out.push_back(d);
  return out;
}

}  // namespace

TEST_CASE("pad forward matches the reference for every mode, dtype and rank 1 to 8", "[gpu][pad]") {
  uint64_t seed = 1;
  for (baracuda_dtype_t dtype : pad_dtypes())
    for (int32_t mode : kModes)
      for (const Shape &s : kShapes)
        CHECK_CASE((PadCase{pad_desc(BARACUDA_OP_PAD, dtype, mode, s.in, s.low, s.high, fill_for(dtype)),
                            Layout::Contiguous, Layout::Contiguous, seed++}),
                   run_pad);
}

TEST_CASE("pad forward reads strided, column-major, broadcast and offset inputs", "[gpu][pad]") {
  const Layout layouts[] = {Layout::Gapped, Layout::InnerStride2, Layout::ColumnMajor, Layout::Broadcast,
                            Layout::Offset};
  uint64_t seed = 100;
  for (baracuda_dtype_t dtype : {BARACUDA_DTYPE_U8, BARACUDA_DTYPE_BF16, BARACUDA_DTYPE_F32, BARACUDA_DTYPE_F64,
                                 BARACUDA_DTYPE_COMPLEX64})
    for (int32_t mode : kModes)
      for (Layout in : layouts)
        CHECK_CASE((PadCase{pad_desc(BARACUDA_OP_PAD, dtype, mode, {3, 5, 67}, {1, 2, 3}, {2, 1, 66}, fill_for(dtype)),
                            in, Layout::Contiguous, seed++}),
                   run_pad);
}

TEST_CASE("pad forward writes strided, column-major and offset outputs, leaving gaps alone", "[gpu][pad]") {
  const Layout layouts[] = {Layout::Gapped, Layout::InnerStride2, Layout::ColumnMajor, Layout::Offset};
  uint64_t seed = 200;
  for (baracuda_dtype_t dtype : {BARACUDA_DTYPE_S8, BARACUDA_DTYPE_F16, BARACUDA_DTYPE_I32, BARACUDA_DTYPE_I64,
                                 BARACUDA_DTYPE_COMPLEX64})
    for (int32_t mode : kModes)
      for (Layout out : layouts)
        CHECK_CASE((PadCase{pad_desc(BARACUDA_OP_PAD, dtype, mode, {4, 7, 45}, {0, 3, 2}, {3, 6, 44}, fill_for(dtype)),
                            Layout::Offset, out, seed++}),
                   run_pad);
}

TEST_CASE("pad forward crops with negative constant pads", "[gpu][pad]") {
  CHECK_CASE((PadCase{pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_F32, BARACUDA_PAD_CONSTANT, {5, 300}, {-2, 3}, {1, -17},
                               -2.5)}),
             run_pad);
  CHECK_CASE((PadCase{pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_BF16, BARACUDA_PAD_CONSTANT, {6, 99}, {-6, -50},
                               {2, 10}, 0.0)}),
             run_pad);
}

TEST_CASE("pad forward fills from an empty input and pads only outer axes", "[gpu][pad]") {
  CHECK_CASE((PadCase{pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_F32, BARACUDA_PAD_CONSTANT, {0, 9}, {2, 1}, {1, 0}, 3.0)}),
             run_pad);
  CHECK_CASE((PadCase{pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_F16, BARACUDA_PAD_REFLECT, {5, 4, 1000}, {4, 0, 0},
                               {3, 0, 0})}),
             run_pad);
  CHECK_CASE((PadCase{pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_F32, BARACUDA_PAD_CIRCULAR, {6, 3, 5}, {6, 0, 0},
                               {6, 0, 0})}),
             run_pad);
}

TEST_CASE("pad forward pads one, two and three outer axes of long rows", "[gpu][pad]") {
  // Rows long enough for the vector path, with a corner row copied up to 27
  // times; an odd row width puts the copies of a row at different 16-byte phases.
  const Shape shapes[] = {
      {{3, 4, 1500}, {2, 3, 5}, {1, 2, 7}},
      {{3, 3, 3, 300}, {1, 1, 1, 2}, {1, 1, 1, 3}},
      {{3, 4, 1501}, {2, 0, 1}, {1, 3, 0}},
  };
  uint64_t seed = 500;
  for (baracuda_dtype_t dtype : {BARACUDA_DTYPE_U8, BARACUDA_DTYPE_BF16, BARACUDA_DTYPE_F32, BARACUDA_DTYPE_COMPLEX64})
    for (int32_t mode : {BARACUDA_PAD_REFLECT, BARACUDA_PAD_REPLICATE, BARACUDA_PAD_CIRCULAR})
      for (const Shape &s : shapes)
        CHECK_CASE((PadCase{pad_desc(BARACUDA_OP_PAD, dtype, mode, s.in, s.low, s.high), Layout::Contiguous,
                            Layout::Contiguous, seed++}),
                   run_pad);
}

TEST_CASE("pad forward of short rows: wide pads at every row phase, and rows that are all copies",
          "[gpu][pad]") {
  // Rows of 154 elements (a 16-byte vector of most widths spans two rows)
  // with pads wider than a vector; and rows of 64 elements padded on outer
  // axes only, every vector a copy. Gapped and offset inputs, offset outputs.
  const Shape shapes[] = {
      {{4, 6, 9, 77}, {1, 0, 2, 40}, {0, 2, 1, 37}},
      {{5, 7, 64}, {1, 2, 0}, {2, 1, 0}},
  };
  const Layout ins[] = {Layout::Contiguous, Layout::Gapped, Layout::Offset};
  uint64_t seed = 800;
  for (const Shape &s : shapes)
    for (baracuda_dtype_t dtype : pad_dtypes())
      for (int32_t mode : kModes)
        for (Layout in : ins)
          for (Layout out : {Layout::Contiguous, Layout::Offset})
            CHECK_CASE((PadCase{pad_desc(BARACUDA_OP_PAD, dtype, mode, s.in, s.low, s.high, fill_for(dtype)), in, out,
                                seed++}),
                       run_pad);
}

TEST_CASE("pad forward of 400 random problems at the row kernels' and row tiles' boundaries", "[gpu][pad][random]") {
  // random_pad_case says which boundaries the draws aim at; every dtype, mode and layout.
  const std::vector<baracuda_dtype_t> dtypes = pad_dtypes();
  Draws d(0x7061640001);
  for (int i = 0; i < 400; ++i) CHECK_CASE(random_pad_case(d, BARACUDA_OP_PAD, d.pick(dtypes)), run_pad);
}

TEST_CASE("pad forward of short rows in row tiles: the rows-a-tile cap, rows at the 4 KiB bound, crops",
          "[gpu][pad]") {
  // kernels/pad/pad_tiles_heuristics.h: rows of 6 elements (a tile capped at
  // kMaxTileRows rows, the last one partial), rows of exactly
  // PadTilesTraits::kLongRowBytes and one element more (short and long
  // rows' tiles), of exactly kMaxRowBytes and one element more (the row
  // kernel), and constant pads that crop (a window inside each input row).
  using baracuda::kernels::PadTilesTraits;
  uint64_t seed = 1100;
  for (baracuda_dtype_t dtype : pad_dtypes()) {
    const int64_t bytes = baracuda_dtype_bits(dtype) / 8;
    const int64_t row = PadTilesTraits::kMaxRowBytes / bytes, long_row = PadTilesTraits::kLongRowBytes / bytes;
    const Shape shapes[] = {
        {{1500, 3}, {0, 1}, {0, 2}},
        {{9, long_row - 2}, {1, 1}, {0, 1}},
        {{9, long_row - 1}, {1, 1}, {0, 1}},
        {{9, row - 2}, {1, 1}, {0, 1}},
        {{9, row - 1}, {1, 1}, {0, 1}},
    };
    for (const Shape &s : shapes)
      for (int32_t mode : kModes)
        for (Layout in : {Layout::Contiguous, Layout::Gapped, Layout::Offset})
          for (Layout out : {Layout::Contiguous, Layout::Offset})
            CHECK_CASE((PadCase{pad_desc(BARACUDA_OP_PAD, dtype, mode, s.in, s.low, s.high, fill_for(dtype)), in, out,
                                seed++}),
                       run_pad);
    for (Layout in : {Layout::Contiguous, Layout::Offset})
      CHECK_CASE((PadCase{pad_desc(BARACUDA_OP_PAD, dtype, BARACUDA_PAD_CONSTANT, {7, 50, 90}, {0, -3, -20}, {0, 2, -15},
                                   fill_for(dtype)),
                          in, Layout::Offset, seed++}),
                 run_pad);
  }
}

TEST_CASE("pad forward of short rows in slot tiles: row ends off the 16-byte grid, outputs off it", "[gpu][pad]") {
  // kernels/pad/pad_forward_slot_tiles.cuh: 16-bit rows of 132 and 134 elements end off the 16-byte grid
  // (each slot holds the next row's first columns), padded on inner and outer axes; rows of 240 elements
  // end on it but for an output off the grid (Layout::Offset).
  const Shape shapes[] = {
      {{3, 64, 64, 128}, {0, 2, 2, 2}, {0, 2, 2, 2}},
      {{2, 64, 64, 127}, {1, 0, 0, 3}, {0, 0, 0, 4}},
      {{5, 7, 236}, {0, 1, 2}, {0, 2, 2}},
  };
  uint64_t seed = 1300;
  for (baracuda_dtype_t dtype : {BARACUDA_DTYPE_BF16, BARACUDA_DTYPE_F32})
    for (int32_t mode : kModes)
      for (const Shape &s : shapes)
        for (Layout out : {Layout::Contiguous, Layout::Offset})
          CHECK_CASE((PadCase{pad_desc(BARACUDA_OP_PAD, dtype, mode, s.in, s.low, s.high, fill_for(dtype)),
                              Layout::Contiguous, out, seed++}),
                     run_pad);
}
