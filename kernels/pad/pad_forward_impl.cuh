// One pad forward entry point per element width, dispatching on the mode.
#pragma once

#include "common/gather_rows.cuh"
#include "pad/pad_kernels.h"

namespace baracuda::kernels {

template <int Bytes>
int pad_forward_dispatch(const RowsProblem &p, cudaStream_t stream) {
  switch (p.map) {
    case IndexMap::Constant: return launch_gather_rows<Bytes, IndexMap::Constant>(p, stream);
    case IndexMap::Reflect: return launch_gather_rows<Bytes, IndexMap::Reflect>(p, stream);
    case IndexMap::Replicate: return launch_gather_rows<Bytes, IndexMap::Replicate>(p, stream);
    case IndexMap::Circular: return launch_gather_rows<Bytes, IndexMap::Circular>(p, stream);
    default: return 2;  // INVALID_PROBLEM: not a pad mode
  }
}

}  // namespace baracuda::kernels

#define BARACUDA_PAD_FORWARD_ENTRY(BYTES)                                                    \
  int baracuda::kernels::pad_forward_b##BYTES##_run(const RowsProblem &p, cudaStream_t s) { \
    return pad_forward_dispatch<BYTES>(p, s);                                                \
  }
