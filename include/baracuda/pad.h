/*
 * baracuda-kernels: pad and its backward.
 *
 * BARACUDA_OP_PAD        y = pad(x), as torch.nn.functional.pad
 *   args: X (input_shape), Y (input_shape + pad_low + pad_high per axis)
 *   dtypes: every byte-aligned dtype (all but S4, U4, BIN); pure data movement,
 *   so results are bit-exact.
 *
 * BARACUDA_OP_PAD_BACKWARD   dx = adjoint of pad, given dy
 *   args: DY (the forward's output shape), DX (input_shape)
 *   dtypes: F32, F16, BF16, F64. Each dx cell is the sum of every dy cell the
 *   forward copied it to, gathered in ascending dy order with no atomics
 *   (deterministic and bit-stable), accumulated in f32 (f64 for F64). A cell
 *   with a single source is copied exactly; constant mode's backward is a
 *   plain slice of dy (zeros where the forward cropped), with no arithmetic.
 *
 * Modes, per axis with input extent n, for output index j and i = j - pad_low:
 *   CONSTANT   x[i] when 0 <= i < n, else value. Negative pads crop.
 *   REFLECT    mirror without repeating the edge: x[-1] = x[1]. Needs pad < n.
 *   REPLICATE  clamp i into [0, n-1]. Needs n >= 1 where a pad is non-zero.
 *   CIRCULAR   i taken modulo n. Needs pad <= n.
 * Pads other than CONSTANT's must be >= 0. Any axis may be padded (F.pad
 * limits non-constant modes to trailing axes; this library does not).
 */
#ifndef BARACUDA_PAD_H
#define BARACUDA_PAD_H

#include "baracuda/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BARACUDA_PAD_CONSTANT 0
#define BARACUDA_PAD_REFLECT 1
#define BARACUDA_PAD_REPLICATE 2
#define BARACUDA_PAD_CIRCULAR 3

/* One descriptor serves both ops; header.op says which. */
typedef struct baracuda_pad_desc_t {
  baracuda_op_header_t header;
  baracuda_dtype_t dtype;
  int32_t mode;     /* BARACUDA_PAD_* */
  int32_t rank;     /* 1 to 8 */
  int32_t reserved0; /* must be 0 */
  int64_t input_shape[BARACUDA_MAX_RANK];
  int64_t pad_low[BARACUDA_MAX_RANK];  /* elements added before index 0, per axis */
  int64_t pad_high[BARACUDA_MAX_RANK]; /* elements added after the last index, per axis */
  /*
   * CONSTANT mode's fill, rounded to nearest-even in dtype. For integer and
   * BOOL dtypes it must be an integer in the dtype's range; a finite value
   * beyond a float dtype's range is INVALID_PROBLEM. Ignored by the backward.
   */
  double value;
  double value_imag; /* imaginary part, for COMPLEX32 and COMPLEX64 */
} baracuda_pad_desc_t;

#define BARACUDA_PAD_DESC_INIT \
  {{sizeof(baracuda_pad_desc_t), BARACUDA_OP_PAD}, 0, BARACUDA_PAD_CONSTANT, 0, 0, {0}, {0}, {0}, 0.0, 0.0}
#define BARACUDA_PAD_BACKWARD_DESC_INIT \
  {{sizeof(baracuda_pad_desc_t), BARACUDA_OP_PAD_BACKWARD}, 0, BARACUDA_PAD_CONSTANT, 0, 0, {0}, {0}, {0}, 0.0, 0.0}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BARACUDA_PAD_H */
