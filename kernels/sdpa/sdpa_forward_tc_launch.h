// The tensor-core forwards' launches for one variant, dtype and head-size
// tile, instantiated each in its own .cu file (sdpa_forward_<variant>_<dtype>_d<tile>.cu,
// sdpa_forward_tf32x3_d<tile>.cu) so the build compiles them in parallel. Returns 0, 3 (UNSUPPORTED: the
// device's shared memory per block is too small for the variant's tiles) or
// a negated CUDA error.
#pragma once

#include <cuda_runtime_api.h>

#include "sdpa/sdpa_problem.h"
#include "sdpa/sdpa_tc_traits.h"

namespace baracuda::kernels {

template <SdpaTcVariant Variant, class T, int HeadDimTile>
int sdpa_forward_tc_launch(const SdpaProblem &p, cudaStream_t stream);

// f32, each product split into tf32 halves (sdpa_tf32_split.cuh); Wide: the
// tiles for blocks of up to 227 KiB (sdpa_tf32x3_traits.h).
template <int HeadDimTile, bool Wide>
int sdpa_forward_tf32x3_launch(const SdpaProblem &p, cudaStream_t stream);

}  // namespace baracuda::kernels
