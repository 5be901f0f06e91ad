// write_slice on the GPU against the byte-exact reference, including
// nibble dtypes with odd windows and a problem over 2^31 elements.
#include <cuda_runtime_api.h>

#include <vector>

#include "gpu_helpers.hpp"
#include "random_draws.hpp"

using namespace baracuda::check;

namespace {
std::vector<baracuda_dtype_t> slice_dtypes() {
  std::vector<baracuda_dtype_t> out;
  for (baracuda_dtype_t d = 1; d < BARACUDA_DTYPE_COUNT; ++d)
    if (baracuda_op_dtype_mask(BARACUDA_OP_WRITE_SLICE) >> d & 1) out.push_back(d);
  return out;
}
struct Window {
  std::vector<int64_t> dest, start, end;
};
const Window kWindows[] = {
    {{1}, {0}, {1}},                                      // one element, whole dest (memcpy)
    {{37}, {3}, {30}},                                    // rank 1, odd ends (memcpy, or nibble kernel)
    {{5, 40}, {1, 0}, {4, 40}},                           // full rows: one chunk (memcpy)
    {{5, 41}, {1, 3}, {5, 38}},                           // the KV-cache-like general case
    {{3, 4, 5, 33}, {1, 0, 2, 5}, {3, 3, 5, 32}},         // rank 4, odd start and end
    {{2, 2, 2, 2, 2, 2, 3, 9}, {0, 1, 0, 1, 0, 1, 1, 1}, {2, 2, 1, 2, 2, 2, 3, 8}},  // rank 8
    {{7, 11}, {2, 4}, {7, 5}},                            // one column
};
}  // namespace

TEST_CASE("write_slice matches the reference for every dtype and window", "[gpu][write_slice]") {
  uint64_t seed = 500;
  for (baracuda_dtype_t dtype : slice_dtypes())
    for (const Window &w : kWindows)
      CHECK_CASE((SliceCase{slice_desc(dtype, w.dest, w.start, w.end), Layout::Contiguous, Layout::Contiguous, seed++}),
                 run_write_slice);
}

TEST_CASE("write_slice handles strided, column-major and offset views", "[gpu][write_slice]") {
  uint64_t seed = 600;
  const Layout dest_layouts[] = {Layout::Gapped, Layout::InnerStride2, Layout::ColumnMajor, Layout::Offset};
  const Layout source_layouts[] = {Layout::Gapped, Layout::InnerStride2, Layout::ColumnMajor, Layout::Broadcast,
                                   Layout::Offset};
  for (baracuda_dtype_t dtype : {BARACUDA_DTYPE_U8, BARACUDA_DTYPE_BF16, BARACUDA_DTYPE_F32, BARACUDA_DTYPE_I64,
                                 BARACUDA_DTYPE_COMPLEX64}) {
    for (Layout d : dest_layouts)
      CHECK_CASE((SliceCase{slice_desc(dtype, {4, 6, 70}, {1, 2, 3}, {4, 5, 69}), d, Layout::Contiguous, seed++}),
                 run_write_slice);
    for (Layout s : source_layouts)
      CHECK_CASE((SliceCase{slice_desc(dtype, {4, 6, 70}, {1, 2, 3}, {4, 5, 69}), Layout::Contiguous, s, seed++}),
                 run_write_slice);
  }
}

TEST_CASE("write_slice KV-cache appends of whole 16-byte rows take the vector copy", "[gpu][write_slice]") {
  // [B, H, S, D] caches, tokens appended at aligned and unaligned positions;
  // a broadcast source keeps B and H apart (two outer axes).
  const Window appends[] = {
      {{2, 3, 40, 8}, {0, 0, 8, 0}, {2, 3, 9, 8}},       // one token
      {{2, 3, 40, 8}, {0, 0, 5, 0}, {2, 3, 9, 8}},       // four, at an odd position
      {{3, 2, 64, 16}, {0, 0, 2, 0}, {3, 2, 34, 16}},    // 32
      {{2, 8, 1100, 128}, {0, 0, 3, 0}, {2, 8, 1028, 128}},  // over 2^15 vectors: several a thread
  };
  uint64_t seed = 650;
  for (baracuda_dtype_t dtype : {BARACUDA_DTYPE_U8, BARACUDA_DTYPE_BF16, BARACUDA_DTYPE_F32, BARACUDA_DTYPE_I64,
                                 BARACUDA_DTYPE_COMPLEX64})
    for (const Window &w : appends)
      for (Layout source : {Layout::Contiguous, Layout::Broadcast})
        CHECK_CASE((SliceCase{slice_desc(dtype, w.dest, w.start, w.end), Layout::Contiguous, source, seed++}),
                   run_write_slice);
}

TEST_CASE("write_slice of nibbles keeps the neighbours of odd windows", "[gpu][write_slice]") {
  uint64_t seed = 700;
  const Layout layouts[] = {Layout::Contiguous, Layout::Gapped, Layout::Offset, Layout::InnerStride2, Layout::ColumnMajor};
  for (baracuda_dtype_t dtype : {BARACUDA_DTYPE_S4, BARACUDA_DTYPE_U4})
    for (Layout d : layouts) {
      // Odd dest rows: neighbouring rows share bytes.
      CHECK_CASE((SliceCase{slice_desc(dtype, {6, 7}, {1, 1}, {6, 6}), d, Layout::Contiguous, seed++}), run_write_slice);
      CHECK_CASE((SliceCase{slice_desc(dtype, {6, 7}, {0, 0}, {6, 7}), d, Layout::Contiguous, seed++}), run_write_slice);
      CHECK_CASE((SliceCase{slice_desc(dtype, {5, 9, 13}, {1, 2, 3}, {4, 9, 12}), d, Layout::ColumnMajor, seed++}),
                 run_write_slice);
      CHECK_CASE((SliceCase{slice_desc(dtype, {301}, {101}, {300}), d, Layout::InnerStride2, seed++}), run_write_slice);
    }
}

TEST_CASE("write_slice of more than 2^31 elements", "[gpu][write_slice][large]") {
  // u8 dest [2, 1100000001]; the window skips column 0, so each row is a
  // separate run and the kernel (not memcpy) does the work.
  const int64_t cols = 1100000001, rows = 2;
  baracuda_write_slice_desc_t d = slice_desc(BARACUDA_DTYPE_U8, {rows, cols}, {0, 1}, {rows, cols});
  const int64_t n_src = rows * (cols - 1);
  REQUIRE(n_src > (int64_t{1} << 31));
  std::vector<uint8_t> src(static_cast<size_t>(n_src));
  for (int64_t i = 0; i < n_src; ++i) src[static_cast<size_t>(i)] = static_cast<uint8_t>((i * 2654435761u) >> 13);
  void *d_src = nullptr, *d_dest = nullptr;
  REQUIRE(cudaMalloc(&d_src, static_cast<size_t>(n_src)) == cudaSuccess);
  REQUIRE(cudaMalloc(&d_dest, static_cast<size_t>(rows * cols)) == cudaSuccess);
  REQUIRE(cudaMemcpy(d_src, src.data(), src.size(), cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemset(d_dest, 0x5A, static_cast<size_t>(rows * cols)) == cudaSuccess);
  const int64_t dest_shape[2] = {rows, cols}, src_shape[2] = {rows, cols - 1};
  const baracuda_arg_t args[2] = {{BARACUDA_ARG_DEST, baracuda_tensor_contiguous(d_dest, BARACUDA_DTYPE_U8, 2, dest_shape)},
                                  {BARACUDA_ARG_SOURCE, baracuda_tensor_contiguous(d_src, BARACUDA_DTYPE_U8, 2, src_shape)}};
  baracuda_plan_t plan = nullptr;
  REQUIRE(baracuda_plan_select(&d.header, nullptr, &plan) == BARACUDA_STATUS_SUCCESS);
  CHECK(baracuda_plan_run(plan, args, 2, nullptr, 0, nullptr) == BARACUDA_STATUS_SUCCESS);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  baracuda_plan_destroy(plan);
  std::vector<uint8_t> dest(static_cast<size_t>(rows * cols));
  REQUIRE(cudaMemcpy(dest.data(), d_dest, dest.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
  int64_t wrong = 0;
  for (int64_t r = 0; r < rows; ++r) {
    wrong += dest[static_cast<size_t>(r * cols)] != 0x5A;
    for (int64_t c = 1; c < cols; ++c)
      wrong += dest[static_cast<size_t>(r * cols + c)] != src[static_cast<size_t>(r * (cols - 1) + c - 1)];
  }
  CHECK(wrong == 0);
  cudaFree(d_src);
  cudaFree(d_dest);
}

namespace {

// A window of dest: an axis whole (the memcpy and full-row paths) or from a
// random start to a random end, never empty.
void random_window(Draws &d, int64_t extent, int64_t &start, int64_t &end) {
  if (d.percent(30)) {
    start = 0, end = extent;
    return;
  }
  start = d.between(0, extent - 1);
  end = d.between(start + 1, extent);
}

// A write_slice case of dtype, V elements to a 16-byte vector (32 for
// nibbles). Half are KV-cache appends into [B, H, S, D] of 1 to 128 tokens
// (now and then over 2^15 vectors in all: several vectors a thread), D at
// and around whole vectors; the rest rank 1 to 5 (now and then 8), the
// inner axis tiny, about a vector, 126 to 128 vectors (a row a block from
// there) or 1024 vectors (rows cut in chunks). Dest at most 3 * 2^18
// elements; every layout the harness has, each tensor its own.
SliceCase random_slice_case(Draws &d, baracuda_dtype_t dtype) {
  const int64_t v = 128 / baracuda_dtype_bits(dtype);
  constexpr int64_t kMaxElements = int64_t{3} << 18;
  std::vector<int64_t> dest, start, end;
  for (bool fits = false; !fits;) {
    if (d.percent(50)) {
      const int64_t tokens = d.size({1, 2, 4, 16, 64, 128}, 1, 128), cache = tokens + d.between(0, 40);
      dest = {d.between(1, 4), d.between(1, 8), cache, d.size({v, 2 * v, 4 * v, 8 * v, 16 * v}, 1, 16 * v)};
      start = {0, 0, d.between(0, cache - tokens), 0};
      end = {dest[0], dest[1], start[2] + tokens, dest[3]};
      if (d.percent(20)) {  // a window inside the head too: neither whole rows nor whole batches
        random_window(d, dest[1], start[1], end[1]);
        random_window(d, dest[3], start[3], end[3]);
      }
    } else {
      const size_t rank = d.percent(5) ? 8 : static_cast<size_t>(d.between(1, 5));
      dest.assign(rank, 1);
      start.assign(rank, 0);
      end.assign(rank, 1);
      for (size_t a = 0; a < rank; ++a) {
        dest[a] = a + 1 == rank ? d.size({1, 2, 3, v, 2 * v, 126 * v, 127 * v, 128 * v, 1024 * v}, 1, 1100 * v)
                                : d.between(1, 9);
        random_window(d, dest[a], start[a], end[a]);
      }
    }
    int64_t elements = 1;
    for (int64_t e : dest) elements *= e;
    fits = elements <= kMaxElements;
  }
  const Layout dest_layout = d.pick({Layout::Contiguous, Layout::Contiguous, Layout::Contiguous, Layout::Gapped,
                                     Layout::InnerStride2, Layout::ColumnMajor, Layout::Offset});
  const Layout source_layout = d.pick({Layout::Contiguous, Layout::Contiguous, Layout::Contiguous, Layout::Gapped,
                                       Layout::InnerStride2, Layout::ColumnMajor, Layout::Broadcast, Layout::Offset});
  return SliceCase{slice_desc(dtype, dest, start, end), dest_layout, source_layout, d.seed()};
}

}  // namespace

TEST_CASE("write_slice of 400 random windows and KV-cache appends at the copy kernels' boundaries",
          "[gpu][write_slice][random]") {
  // random_slice_case says which boundaries the draws aim at; every dtype, nibbles included.
  const std::vector<baracuda_dtype_t> dtypes = slice_dtypes();
  Draws d(0x736c696365);
  for (int i = 0; i < 400; ++i) CHECK_CASE(random_slice_case(d, d.pick(dtypes)), run_write_slice);
}
