/* The whole life cycle from C: a reflect pad and a KV-cache append
 * (write_slice), checked on the host. Exits 77 where there is no GPU. */
#include <baracuda/baracuda.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#define CUDA_OK(call)                                                          \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));              \
      return 1;                                                                \
    }                                                                          \
  } while (0)

static int run_plan(const baracuda_op_header_t *desc, const baracuda_arg_t *args, int32_t n) {
  baracuda_plan_t plan;
  baracuda_status_t s = baracuda_plan_select(desc, NULL, &plan);
  if (s == BARACUDA_STATUS_SUCCESS) {
    s = baracuda_plan_run(plan, args, n, NULL, 0, NULL);
    baracuda_plan_destroy(plan);
  }
  if (s != BARACUDA_STATUS_SUCCESS) fprintf(stderr, "%s: %s\n", baracuda_status_string(s), baracuda_last_error_message());
  return s;
}

int main(void) {
  enum { ROWS = 4, COLS = 10, LOW = 3, HIGH = 2, OUT = COLS + LOW + HIGH };
  float x[ROWS * COLS], y[ROWS * OUT], cache[ROWS * 16], step[ROWS * 2];
  float *dx, *dy, *dcache, *dstep;
  int devices = 0, i, r, j, bad = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("no CUDA device: skipped\n");
    return 77;
  }
  for (i = 0; i < ROWS * COLS; ++i) x[i] = (float)(i * 7 % 13) - 6.5f;
  CUDA_OK(cudaMalloc((void **)&dx, sizeof x));
  CUDA_OK(cudaMalloc((void **)&dy, sizeof y));
  CUDA_OK(cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice));

  { /* y = reflect pad of x along its last axis */
    baracuda_pad_desc_t desc = BARACUDA_PAD_DESC_INIT;
    const int64_t xs[2] = {ROWS, COLS}, ys[2] = {ROWS, OUT};
    baracuda_arg_t args[2];
    desc.dtype = BARACUDA_DTYPE_F32;
    desc.mode = BARACUDA_PAD_REFLECT;
    desc.rank = 2;
    desc.input_shape[0] = ROWS;
    desc.input_shape[1] = COLS;
    desc.pad_low[1] = LOW;
    desc.pad_high[1] = HIGH;
    args[0].role = BARACUDA_ARG_X;
    args[0].tensor = baracuda_tensor_contiguous(dx, BARACUDA_DTYPE_F32, 2, xs);
    args[1].role = BARACUDA_ARG_Y;
    args[1].tensor = baracuda_tensor_contiguous(dy, BARACUDA_DTYPE_F32, 2, ys);
    if (run_plan(&desc.header, args, 2) != 0) return 1;
  }
  CUDA_OK(cudaMemcpy(y, dy, sizeof y, cudaMemcpyDeviceToHost));
  for (r = 0; r < ROWS; ++r)
    for (j = 0; j < OUT; ++j) {
      int src = j - LOW;
      if (src < 0) src = -src;
      if (src >= COLS) src = 2 * (COLS - 1) - src;
      bad += y[r * OUT + j] != x[r * COLS + src];
    }

  /* cache[:, 5:7] = step: append two positions to a [4, 16] cache */
  for (i = 0; i < ROWS * 16; ++i) cache[i] = -1.0f;
  for (i = 0; i < ROWS * 2; ++i) step[i] = (float)i;
  CUDA_OK(cudaMalloc((void **)&dcache, sizeof cache));
  CUDA_OK(cudaMalloc((void **)&dstep, sizeof step));
  CUDA_OK(cudaMemcpy(dcache, cache, sizeof cache, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dstep, step, sizeof step, cudaMemcpyHostToDevice));
  {
    baracuda_write_slice_desc_t desc = BARACUDA_WRITE_SLICE_DESC_INIT;
    const int64_t cs[2] = {ROWS, 16}, ss[2] = {ROWS, 2};
    baracuda_arg_t args[2];
    desc.dtype = BARACUDA_DTYPE_F32;
    desc.rank = 2;
    desc.dest_shape[0] = ROWS;
    desc.dest_shape[1] = 16;
    desc.end[0] = ROWS;
    desc.start[1] = 5;
    desc.end[1] = 7;
    args[0].role = BARACUDA_ARG_DEST;
    args[0].tensor = baracuda_tensor_contiguous(dcache, BARACUDA_DTYPE_F32, 2, cs);
    args[1].role = BARACUDA_ARG_SOURCE;
    args[1].tensor = baracuda_tensor_contiguous(dstep, BARACUDA_DTYPE_F32, 2, ss);
    if (run_plan(&desc.header, args, 2) != 0) return 1;
  }
  CUDA_OK(cudaMemcpy(cache, dcache, sizeof cache, cudaMemcpyDeviceToHost));
  for (r = 0; r < ROWS; ++r)
    for (j = 0; j < 16; ++j) bad += cache[r * 16 + j] != ((j == 5 || j == 6) ? (float)(r * 2 + j - 5) : -1.0f);

  cudaFree(dx);
  cudaFree(dy);
  cudaFree(dcache);
  cudaFree(dstep);
  printf("C example: pad and write_slice %s\n", bad ? "WRONG" : "ok");
  return bad ? 1 : 0;
}
