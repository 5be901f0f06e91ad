// One tree's write_slice vector-rows copy behind a C entry named PROBE_ENTRY
// (the tree's namespace renamed on the command line, so that several trees
// link into one binary): a KV-cache append of `tokens` rows of `dim` elements
// into a [rows, cache, dim] cache at token `at`, as the plan hands it over
// (batch and heads merged into rows).
#include <cstdint>

#include "write_slice/write_slice_vector_rows.cu"

extern "C" int PROBE_ENTRY(int bytes, int64_t rows, int64_t cache, int64_t dim, int64_t at, int64_t tokens,
                           const void *source, void *dest, void *stream) {
  using namespace baracuda::kernels;
  RowsProblem p;
  p.rank = 2;
  p.map = IndexMap::Copy;
  p.out_extent[0] = p.in_extent[0] = rows;
  p.out_extent[1] = p.in_extent[1] = tokens * dim;
  p.out_stride[0] = cache * dim, p.out_stride[1] = 1;
  p.in_stride[0] = tokens * dim, p.in_stride[1] = 1;
  p.out = static_cast<unsigned char *>(dest) + at * dim * bytes;
  p.in = source;
  VectorRowsCopy v;
  if (!as_vector_rows(p, bytes, v)) return 2;
  return write_slice_vector_rows_run(v, static_cast<cudaStream_t>(stream));
}
