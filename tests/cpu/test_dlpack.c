/* include/baracuda/dlpack.h maps DLTensors onto baracuda_tensor_t, and says
 * clearly what does not map. Plain C99, run in CI. */
#include <stdio.h>
#include <string.h>

#include "baracuda/dlpack.h"

static int failures = 0;

#define EXPECT(cond)                                               \
  do {                                                             \
    if (!(cond)) {                                                 \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                  \
    }                                                              \
  } while (0)

static DLTensor cuda_tensor(void *data, int32_t ndim, int64_t *shape, int64_t *strides, uint8_t code, uint8_t bits) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = data;
  t.device.device_type = kDLCUDA;
  t.ndim = ndim;
  t.dtype.code = code;
  t.dtype.bits = bits;
  t.dtype.lanes = 1;
  t.shape = shape;
  t.strides = strides;
  return t;
}

int main(void) {
  char buffer[256];
  int64_t shape[3] = {2, 3, 5};
  int64_t strides[3] = {1, 2, 6}; /* column-major */
  baracuda_tensor_t out;
  const char *why = NULL;
  DLTensor t = cuda_tensor(buffer, 3, shape, NULL, kDLFloat, 32);

  /* NULL strides: compact row-major. */
  EXPECT(baracuda_tensor_from_dlpack(&t, &out, &why) == BARACUDA_STATUS_SUCCESS);
  EXPECT(out.dtype == BARACUDA_DTYPE_F32 && out.rank == 3 && out.data == buffer);
  EXPECT(out.strides[0] == 15 && out.strides[1] == 5 && out.strides[2] == 1 && out.capacity == 0);

  /* Explicit strides and a byte offset pass through. */
  t = cuda_tensor(buffer, 3, shape, strides, kDLBfloat, 16);
  t.byte_offset = 6;
  EXPECT(baracuda_tensor_from_dlpack(&t, &out, &why) == BARACUDA_STATUS_SUCCESS);
  EXPECT(out.dtype == BARACUDA_DTYPE_BF16 && out.strides[2] == 6 && out.data == buffer + 6);

  /* Every mapped dtype. */
  EXPECT(baracuda_dtype_from_dlpack(cuda_tensor(buffer, 1, shape, NULL, kDLComplex, 128).dtype) ==
         BARACUDA_DTYPE_COMPLEX64);
  EXPECT(baracuda_dtype_from_dlpack(cuda_tensor(buffer, 1, shape, NULL, kDLComplex, 64).dtype) ==
         BARACUDA_DTYPE_COMPLEX32);
  EXPECT(baracuda_dtype_from_dlpack(cuda_tensor(buffer, 1, shape, NULL, kDLInt, 4).dtype) == BARACUDA_DTYPE_S4);
  EXPECT(baracuda_dtype_from_dlpack(cuda_tensor(buffer, 1, shape, NULL, kDLUInt, 8).dtype) == BARACUDA_DTYPE_U8);
  EXPECT(baracuda_dtype_from_dlpack(cuda_tensor(buffer, 1, shape, NULL, kDLInt, 64).dtype) == BARACUDA_DTYPE_I64);
  EXPECT(baracuda_dtype_from_dlpack(cuda_tensor(buffer, 1, shape, NULL, 6, 8).dtype) == BARACUDA_DTYPE_BOOL);
  EXPECT(baracuda_dtype_from_dlpack(cuda_tensor(buffer, 1, shape, NULL, kDLFloat, 8).dtype) == BARACUDA_DTYPE_INVALID);

  /* What does not map. */
  t = cuda_tensor(buffer, 3, shape, NULL, kDLFloat, 32);
  t.device.device_type = kDLCPU;
  EXPECT(baracuda_tensor_from_dlpack(&t, &out, &why) == BARACUDA_STATUS_UNSUPPORTED && strstr(why, "CUDA"));
  t = cuda_tensor(buffer, 3, shape, NULL, kDLFloat, 32);
  t.dtype.lanes = 4;
  EXPECT(baracuda_tensor_from_dlpack(&t, &out, &why) == BARACUDA_STATUS_UNSUPPORTED && strstr(why, "dtype"));
  t = cuda_tensor(buffer, 0, shape, NULL, kDLFloat, 32);
  EXPECT(baracuda_tensor_from_dlpack(&t, &out, &why) == BARACUDA_STATUS_UNSUPPORTED && strstr(why, "ndim"));
  t = cuda_tensor(buffer, 3, shape, NULL, kDLFloat, 32);
  t.byte_offset = 2;
  EXPECT(baracuda_tensor_from_dlpack(&t, &out, &why) == BARACUDA_STATUS_INVALID_PROBLEM && strstr(why, "byte_offset"));
  EXPECT(baracuda_tensor_from_dlpack(NULL, &out, &why) == BARACUDA_STATUS_INVALID_PROBLEM);

  if (failures == 0) printf("dlpack bridge: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
