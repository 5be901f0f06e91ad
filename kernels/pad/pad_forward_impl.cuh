// One pad forward entry point per element width, dispatching on the mode:
// short rows of a dense output (pad_tiles_heuristics.h) run in slot tiles
// or row tiles, the rest on the row kernel.
#pragma once

#include "common/gather_rows.cuh"
#include "pad/pad_forward_slot_tiles.cuh"
#include "pad/pad_forward_tiles.cuh"
#include "pad/pad_kernels.h"
#include "pad/pad_tiles_heuristics.h"

namespace baracuda::kernels {

template <int Bytes, IndexMap M>
int launch_pad_forward(const RowsProblem &p, cudaStream_t stream) {
  if constexpr (Bytes == 2 || Bytes == 4) {
    PadSlotTiles slots;
    if (pad_forward_takes_slot_tiles(p, Bytes, slots)) return launch_pad_forward_slot_tiles<Bytes, M>(p, slots, stream);
  }
  RowTiles tiles;
  if (pad_forward_takes_tiles(p, Bytes, tiles)) return launch_pad_forward_tiles<Bytes, M>(p, tiles, stream);
  return launch_gather_rows<Bytes, M>(p, stream);
}

template <int Bytes>
int pad_forward_dispatch(const RowsProblem &p, cudaStream_t stream) {
  switch (p.map) {
    case IndexMap::Constant: return launch_pad_forward<Bytes, IndexMap::Constant>(p, stream);
    case IndexMap::Reflect: return launch_pad_forward<Bytes, IndexMap::Reflect>(p, stream);
    case IndexMap::Replicate: return launch_pad_forward<Bytes, IndexMap::Replicate>(p, stream);
    case IndexMap::Circular: return launch_pad_forward<Bytes, IndexMap::Circular>(p, stream);
    default: return 2;  // INVALID_PROBLEM: not a pad mode
  }
}

}  // namespace baracuda::kernels

#define BARACUDA_PAD_FORWARD_ENTRY(BYTES)                                                    \
  int baracuda::kernels::pad_forward_b##BYTES##_run(const RowsProblem &p, cudaStream_t s) { \
    return pad_forward_dispatch<BYTES>(p, s);                                                \
  }
