// Entry points of the write_slice family's kernels, for the plan layer. Each
// returns 0 or a status (negated CUDA error on a failed launch).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/rows_problem.h"
#include "write_slice/write_slice_vector_rows.h"

namespace baracuda::kernels {

// Strided copy of p.in (the source) into p.out (the window of dest), map Copy.
int write_slice_b1_run(const RowsProblem &p, cudaStream_t stream);
int write_slice_b2_run(const RowsProblem &p, cudaStream_t stream);
int write_slice_b4_run(const RowsProblem &p, cudaStream_t stream);
int write_slice_b8_run(const RowsProblem &p, cudaStream_t stream);
int write_slice_b16_run(const RowsProblem &p, cudaStream_t stream);

// The same copy where as_vector_rows holds, whole 16-byte vectors (any dtype).
int write_slice_vector_rows_run(const VectorRowsCopy &v, cudaStream_t stream);

// Two elements per byte, element 2k in the low nibble. Offsets and strides in
// nibbles; any strides under which dest does not overlap itself.
struct NibbleSliceProblem {
  int32_t rank = 0;
  int64_t extent[kMaxRank] = {};  // the source shape
  int64_t dest_stride[kMaxRank] = {};
  int64_t source_stride[kMaxRank] = {};
  int64_t dest_offset = 0;  // nibble index of the window's first element
  uint8_t *dest = nullptr;
  const uint8_t *source = nullptr;
};

int write_slice_nibble_run(const NibbleSliceProblem &p, cudaStream_t stream);

}  // namespace baracuda::kernels
