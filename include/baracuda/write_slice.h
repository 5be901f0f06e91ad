/*
 * baracuda-kernels: write_slice, the KV-cache append.
 *
 * BARACUDA_OP_WRITE_SLICE   dest[start_0:end_0, ..., start_{r-1}:end_{r-1}] = source
 *   args: DEST (dest_shape; written in place, every element outside the window
 *   keeps its value), SOURCE (end - start per axis).
 *   dtypes: every dtype but BIN. S4 and U4 are served for any start and end,
 *   odd ones included: a byte shared by a nibble inside the window and one
 *   outside keeps the outside nibble.
 *   Any strides work (DEST may not overlap itself: no stride 0 on an axis of
 *   extent > 1). When the window and source are each one dense run of memory
 *   the copy is a single cudaMemcpyAsync; otherwise a kernel.
 *   Pure data movement: bit-exact, deterministic.
 */
#ifndef BARACUDA_WRITE_SLICE_H
#define BARACUDA_WRITE_SLICE_H

#include "baracuda/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct baracuda_write_slice_desc_t {
  baracuda_op_header_t header;
  baracuda_dtype_t dtype;
  int32_t rank; /* 1 to 8 */
  int64_t dest_shape[BARACUDA_MAX_RANK];
  int64_t start[BARACUDA_MAX_RANK]; /* first index written, per axis */
  int64_t end[BARACUDA_MAX_RANK];   /* one past the last; 0 <= start <= end <= dest_shape */
} baracuda_write_slice_desc_t;

#define BARACUDA_WRITE_SLICE_DESC_INIT \
  {{sizeof(baracuda_write_slice_desc_t), BARACUDA_OP_WRITE_SLICE}, 0, 0, {0}, {0}, {0}}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BARACUDA_WRITE_SLICE_H */
