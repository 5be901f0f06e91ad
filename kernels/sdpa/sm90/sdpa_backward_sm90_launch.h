// The Hopper backward's main kernel for one dtype and head-size tile,
// instantiated each in its own .cu file (sdpa_backward_sm90_<dtype>_d<tile>.cu)
// so the build compiles them in parallel. Returns 0 or a negated CUDA error.
#pragma once

#include <cuda_runtime_api.h>

#include "sdpa/sdpa_problem.h"

namespace baracuda::kernels {
namespace sm90 {
struct BackwardParams;
}

// BlockM: query rows a step. Decoupled: each consumer warpgroup computes a
// step's dQ one step later, so the two need not run in step.
template <class T, int HeadDimTile, int BlockM, bool Decoupled>
int sdpa_backward_sm90_launch(const SdpaProblem &p, const sm90::BackwardParams &bp, cudaStream_t stream);

}  // namespace baracuda::kernels
