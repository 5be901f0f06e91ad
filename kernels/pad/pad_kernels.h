// Entry points of the pad family's kernels, for the plan layer. Each returns
// 0 or a status (negated CUDA error on a failed launch). Hidden from the ABI.
#pragma once

#include <cuda_runtime_api.h>

#include "common/rows_problem.h"

namespace baracuda::kernels {

// Pad forward moves bytes, so it is dispatched on element width alone.
int pad_forward_b1_run(const RowsProblem &p, cudaStream_t stream);
int pad_forward_b2_run(const RowsProblem &p, cudaStream_t stream);
int pad_forward_b4_run(const RowsProblem &p, cudaStream_t stream);
int pad_forward_b8_run(const RowsProblem &p, cudaStream_t stream);
int pad_forward_b16_run(const RowsProblem &p, cudaStream_t stream);

// Pad backward of reflect, replicate and circular (constant's is a slice, run by
// the forward entries): out = dx, in = dy; out_extent the dx shape, in_extent the dy shape.
int pad_backward_f32_run(const RowsProblem &p, cudaStream_t stream);
int pad_backward_f16_run(const RowsProblem &p, cudaStream_t stream);
int pad_backward_bf16_run(const RowsProblem &p, cudaStream_t stream);
int pad_backward_f64_run(const RowsProblem &p, cudaStream_t stream);

}  // namespace baracuda::kernels
