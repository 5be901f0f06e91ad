/*
 * baracuda-kernels: an optional, header-only bridge from DLPack.
 *
 * Include <dlpack/dlpack.h> (any version from 0.6) before this header, or let
 * this header include it. baracuda_tensor_from_dlpack() turns a DLTensor into
 * a baracuda_tensor_t without copying: dtype, shape, strides (elements in
 * both) and byte_offset map directly; NULL strides mean compact row-major.
 *
 *   kDLFloat 16/32/64 -> F16/F32/F64      kDLBfloat 16 -> BF16
 *   kDLInt 4/8/32/64  -> S4/S8/I32/I64    kDLUInt 4/8  -> U4/U8
 *   kDLComplex 64/128 -> COMPLEX32/COMPLEX64
 *   code 6 (kDLBool, DLPack 0.8+) with 8 bits -> BOOL
 *
 * What does not map gets a status and *why is set to a sentence: a device
 * that is not CUDA memory (kDLCUDA, kDLCUDAManaged, kDLCUDAHost), lanes != 1,
 * ndim outside 1..8, or a dtype with no baracuda equivalent (UNSUPPORTED);
 * a NULL argument or a byte_offset that splits an element (INVALID_PROBLEM).
 * capacity is left 0 (unchecked): DLPack does not say how large the
 * allocation is.
 */
#ifndef BARACUDA_DLPACK_H
#define BARACUDA_DLPACK_H

#include <dlpack/dlpack.h>

#include "baracuda/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The baracuda dtype of a DLPack one; BARACUDA_DTYPE_INVALID when none. */
static inline baracuda_dtype_t baracuda_dtype_from_dlpack(DLDataType t) {
  if (t.lanes != 1) return BARACUDA_DTYPE_INVALID;
  switch (t.code) {
    case kDLFloat:
      return t.bits == 16 ? BARACUDA_DTYPE_F16
             : t.bits == 32 ? BARACUDA_DTYPE_F32
             : t.bits == 64 ? BARACUDA_DTYPE_F64
                            : BARACUDA_DTYPE_INVALID;
    case kDLBfloat: return t.bits == 16 ? BARACUDA_DTYPE_BF16 : BARACUDA_DTYPE_INVALID;
    case kDLInt:
      return t.bits == 4 ? BARACUDA_DTYPE_S4
             : t.bits == 8 ? BARACUDA_DTYPE_S8
             : t.bits == 32 ? BARACUDA_DTYPE_I32
             : t.bits == 64 ? BARACUDA_DTYPE_I64
                            : BARACUDA_DTYPE_INVALID;
    case kDLUInt:
      return t.bits == 4 ? BARACUDA_DTYPE_U4 : t.bits == 8 ? BARACUDA_DTYPE_U8 : BARACUDA_DTYPE_INVALID;
    case kDLComplex:
      return t.bits == 64 ? BARACUDA_DTYPE_COMPLEX32 : t.bits == 128 ? BARACUDA_DTYPE_COMPLEX64 : BARACUDA_DTYPE_INVALID;
    case 6: /* kDLBool */
      return t.bits == 8 ? BARACUDA_DTYPE_BOOL : BARACUDA_DTYPE_INVALID;
    default: return BARACUDA_DTYPE_INVALID;
  }
}

static inline baracuda_status_t baracuda_tensor_from_dlpack(const DLTensor *t, baracuda_tensor_t *out,
                                                            const char **why) {
  baracuda_dtype_t dtype;
  int32_t bits, d;
  int64_t stride = 1;
  const char *ignored;
  if (why == NULL) why = &ignored;
  *why = "";
  if (t == NULL || out == NULL) {
    *why = "dlpack: tensor or out is NULL";
    return BARACUDA_STATUS_INVALID_PROBLEM;
  }
  if (t->device.device_type != kDLCUDA && t->device.device_type != kDLCUDAManaged &&
      t->device.device_type != kDLCUDAHost) {
    *why = "dlpack: the tensor is not in CUDA-accessible memory";
    return BARACUDA_STATUS_UNSUPPORTED;
  }
  if (t->ndim < 1 || t->ndim > BARACUDA_MAX_RANK) {
    *why = "dlpack: ndim must be 1 to 8";
    return BARACUDA_STATUS_UNSUPPORTED;
  }
  dtype = baracuda_dtype_from_dlpack(t->dtype);
  if (dtype == BARACUDA_DTYPE_INVALID) {
    *why = "dlpack: the dtype (code, bits, lanes) has no baracuda equivalent";
    return BARACUDA_STATUS_UNSUPPORTED;
  }
  bits = baracuda_dtype_bits(dtype);
  if ((t->byte_offset * 8) % (uint64_t)(bits < 8 ? 8 : bits) != 0) {
    *why = "dlpack: byte_offset is not a whole number of elements";
    return BARACUDA_STATUS_INVALID_PROBLEM;
  }
  out->data = (char *)t->data + t->byte_offset;
  out->dtype = dtype;
  out->rank = t->ndim;
  out->capacity = 0;
  for (d = BARACUDA_MAX_RANK - 1; d >= 0; --d) {
    out->shape[d] = d < t->ndim ? t->shape[d] : 0;
    out->strides[d] = 0;
    if (d < t->ndim) {
      out->strides[d] = t->strides != NULL ? t->strides[d] : stride;
      stride *= t->shape[d];
    }
  }
  return BARACUDA_STATUS_SUCCESS;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BARACUDA_DLPACK_H */
