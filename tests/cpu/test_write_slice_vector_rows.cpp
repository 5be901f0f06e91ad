// write_slice's vector-rows copy (kernels/write_slice/write_slice_vector_rows.h):
// which windows it takes, and the vectors it sees. No GPU.
#include <catch2/catch.hpp>
#include <cstdint>

#include "write_slice/write_slice_vector_rows.h"

using namespace baracuda::kernels;

namespace {

alignas(16) unsigned char g_cache[4096], g_tokens[4096];

// A KV-cache append after the plan merged its axes: rows of `row` elements
// (B*H of them), dest rows `dest_stride` apart, source rows packed.
RowsProblem append(int64_t rows, int64_t row, int64_t dest_stride, int64_t offset_bytes = 0) {
  RowsProblem p;
  p.rank = 2;
  p.out_extent[0] = p.in_extent[0] = rows;
  p.out_extent[1] = p.in_extent[1] = row;
  p.out_stride[0] = dest_stride;
  p.in_stride[0] = row;
  p.out_stride[1] = p.in_stride[1] = 1;
  p.out = g_cache + offset_bytes;
  p.in = g_tokens;
  return p;
}

}  // namespace

TEST_CASE("write_slice vector rows take aligned appends of whole vectors", "[write_slice][vector_rows]") {
  VectorRowsCopy v;
  REQUIRE(as_vector_rows(append(512, 128, 4096 * 128), 2, v));  // bf16, D 128, one token
  CHECK(v.outer == 1);
  CHECK(v.row_vectors == 16);
  CHECK(v.out_stride[0] == 4096 * 16);
  CHECK(v.in_stride[0] == 16);
  CHECK(v.vectors == 512 * 16);
  CHECK(v.out == g_cache);
  CHECK(vector_rows_per_thread(v.vectors) == 1);
  // The kernel finds a vector's row with a multiply and a shift.
  for (uint32_t i : {0u, 15u, 16u, 17u, 4095u, 8191u}) CHECK(fast_divide(i, v.row_div) == i / 16);
  REQUIRE(as_vector_rows(append(512, 16 * 128, 4096 * 128), 2, v));  // bf16, 16 tokens
  CHECK(v.row_vectors == 256);
  for (uint32_t i = 0; i < v.vectors; i += 97) CHECK(fast_divide(i, v.row_div) == i / 256);
  REQUIRE(as_vector_rows(append(512, 128 * 4096, 4096 * 128), 4, v));  // f32, 4096 tokens
  CHECK(v.vectors == int64_t{512} * 4096 * 32);
  CHECK(vector_rows_per_thread(v.vectors) == VectorRowsTraits::kVectorsPerThread);
}

TEST_CASE("write_slice vector rows refuse what is not whole aligned vectors", "[write_slice][vector_rows]") {
  VectorRowsCopy v;
  CHECK_FALSE(as_vector_rows(append(4, 12, 64), 2, v));      // a row of 24 bytes
  CHECK_FALSE(as_vector_rows(append(4, 8, 68), 2, v));       // dest rows 136 bytes apart
  CHECK_FALSE(as_vector_rows(append(4, 8, 64, 8), 2, v));    // the window 8 bytes past a boundary
  RowsProblem strided = append(4, 8, 64);
  strided.in_stride[1] = 2;
  CHECK_FALSE(as_vector_rows(strided, 2, v));
  RowsProblem flat = append(1, 64, 64);
  flat.rank = 1;
  flat.out_extent[0] = flat.in_extent[0] = 64;
  flat.out_stride[0] = flat.in_stride[0] = 1;
  CHECK_FALSE(as_vector_rows(flat, 2, v));  // one row: the plan copies it with cudaMemcpyAsync
}

TEST_CASE("write_slice vector rows keep every outer axis", "[write_slice][vector_rows]") {
  RowsProblem p = append(3, 16, 64);  // [3, 5, 16] f32, the source's middle axis strided
  p.rank = 3;
  p.out_extent[1] = p.in_extent[1] = 5;
  p.out_extent[2] = p.in_extent[2] = 16;
  p.out_stride[0] = 640, p.out_stride[1] = 128, p.out_stride[2] = 1;
  p.in_stride[0] = 16, p.in_stride[1] = 48, p.in_stride[2] = 1;
  VectorRowsCopy v;
  REQUIRE(as_vector_rows(p, 4, v));
  CHECK(v.outer == 2);
  CHECK(v.extent[0] == 3);
  CHECK(v.extent[1] == 5);
  CHECK(v.out_stride[0] == 160);
  CHECK(v.out_stride[1] == 32);
  CHECK(v.in_stride[0] == 4);
  CHECK(v.in_stride[1] == 12);
  CHECK(v.row_vectors == 4);
  CHECK(v.vectors == 60);
}
