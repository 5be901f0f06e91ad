// write_slice is a strided copy into dest's window: the rows kernel with the
// identity index map, one entry point per element width.
#pragma once

#include "common/gather_rows.cuh"
#include "write_slice/write_slice_kernels.h"

#define BARACUDA_WRITE_SLICE_ENTRY(BYTES)                                                                     \
  int baracuda::kernels::write_slice_b##BYTES##_run(const RowsProblem &p, cudaStream_t s) {                \
    return launch_gather_rows<BYTES, IndexMap::Copy>(p, s);                                                  \
  }
