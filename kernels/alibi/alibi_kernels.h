// Entry points of the ALiBi kernels, for the plan layer. Each returns 0, a
// status, or a negated CUDA error. Hidden from the ABI.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "alibi/alibi_heuristics.h"
#include "alibi/alibi_problem.h"

namespace baracuda::kernels {

struct AlibiEntries {
  int (*forward)(const AlibiProblem &p, cudaStream_t stream);
  // workspace holds alibi_backward_workspace(...) bytes when dslopes is wanted.
  int (*backward)(const AlibiProblem &p, void *workspace, size_t workspace_bytes, cudaStream_t stream);
};

extern const AlibiEntries kAlibiF32, kAlibiF16, kAlibiBf16, kAlibiF64;

}  // namespace baracuda::kernels
