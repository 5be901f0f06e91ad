// The timing rows' inputs as bench_ops and PyTorch give them (session 20):
// q, k, v and dout standard normal, out and lse from a forward over them
// (scores on cuBLAS with f32 sums, the softmax in f32, P rounded to bf16
// before P v, as the tensor-core kernels do), so that the probe's rows and
// the README's (bench_ops against torch_sdpa.py, both randn-like data and
// their own forward) time the same data. Dense [B, H, S, D] bf16, H query
// heads = kv heads, Q = K, causal top-left or none.
#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "../common/probe_check.h"
#include "real_inputs.h"

namespace {

// A cuBLAS call that fails ends the probe, as CK does for CUDA's.
void cublas_ck(cublasStatus_t status, const char *what) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  std::printf("cuBLAS error %d in %s\n", int(status), what);
  std::exit(1);
}

// Element i of stream `seed`: Box-Muller on a 64-bit hash of (seed, i).
__global__ void fill_normal_bf16(__nv_bfloat16 *x, int64_t n, uint64_t seed) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    uint64_t h = (seed << 40) + static_cast<uint64_t>(i) * 0x9e3779b97f4a7c15ull;
    h = (h ^ (h >> 31)) * 0x7fb5d329728ea185ull;
    h = (h ^ (h >> 27)) * 0x81dadef4bc2dd44dull;
    h ^= h >> 33;
    const double u = (double(h >> 32) + 1.0) * 0x1p-32, w = double(h & 0xffffffffu) * 0x1p-32;
    x[i] = __float2bfloat16(float(sqrt(-2.0 * log(u)) * cospi(2.0 * w)));
  }
}

// One warp a score row (keys contiguous, f32, already scaled): its lse and
// its probabilities rounded to bf16 (0 where masked).
__global__ void softmax_rows(const float *scores, __nv_bfloat16 *probs, float *lse, int64_t rows, int64_t keys,
                             int64_t queries, bool causal) {
  const int lane = threadIdx.x % 32;
  for (int64_t r = (blockIdx.x * int64_t{blockDim.x} + threadIdx.x) / 32; r < rows;
       r += int64_t{gridDim.x} * blockDim.x / 32) {
    const float *s = scores + r * keys;
    __nv_bfloat16 *pr = probs + r * keys;
    const int64_t visible = causal ? r % queries + 1 : keys;
    float m = -INFINITY;
    for (int64_t j = lane; j < visible; j += 32) m = fmaxf(m, s[j]);
    for (int o = 16; o > 0; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    float sum = 0.f;
    for (int64_t j = lane; j < visible; j += 32) sum += expf(s[j] - m);
    for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    const float inv = 1.f / sum;
    for (int64_t j = lane; j < keys; j += 32) pr[j] = __float2bfloat16(j < visible ? expf(s[j] - m) * inv : 0.f);
    if (lane == 0) lse[r] = m + logf(sum);
  }
}

}  // namespace

void fill_real_inputs(const RealInputs &in) {
  const int64_t n = in.B * in.H * in.S * in.D;
  __nv_bfloat16 *t[4] = {in.q, in.k, in.v, in.dout};
  for (int i = 0; i < 4; ++i) fill_normal_bf16<<<1024, 256>>>(t[i], n, 7 + i);
  CK(cudaGetLastError());
  cublasHandle_t handle;
  cublas_ck(cublasCreate(&handle), "cublasCreate");
  // Heads a chunk: its f32 scores and bf16 probabilities within about 3 GB.
  const int64_t per_head = in.S * in.S * 6, heads = in.B * in.H;
  int64_t chunk = (int64_t{3} << 30) / per_head;
  chunk = chunk < 1 ? 1 : chunk > heads ? heads : chunk;
  float *scores;
  __nv_bfloat16 *probs;
  CK(cudaMalloc(&scores, chunk * in.S * in.S * 4));
  CK(cudaMalloc(&probs, chunk * in.S * in.S * 2));
  const float scale = 1.f / std::sqrt(float(in.D)), one = 1.f, zero = 0.f;
  const int S = int(in.S), D = int(in.D);
  const long long rows_stride = static_cast<long long>(in.S) * in.D, square = static_cast<long long>(in.S) * in.S;
  for (int64_t h0 = 0; h0 < heads; h0 += chunk) {
    const int count = int(heads - h0 < chunk ? heads - h0 : chunk);
    const int64_t at = h0 * in.S * in.D;
    // Column-major: scores^T (keys by queries, a query's keys contiguous) = K Q^T.
    cublas_ck(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, S, S, D, &scale, in.k + at, CUDA_R_16BF, D,
                                         rows_stride, in.q + at, CUDA_R_16BF, D, rows_stride, &zero, scores,
                                         CUDA_R_32F, S, square, count, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
              "the scores");
    softmax_rows<<<1024, 256>>>(scores, probs, in.lse + h0 * in.S, count * in.S, in.S, in.S, in.causal);
    CK(cudaGetLastError());
    // out^T (columns by queries) = V^T P^T.
    cublas_ck(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, D, S, S, &one, in.v + at, CUDA_R_16BF, D,
                                         rows_stride, probs, CUDA_R_16BF, S, square, &zero, in.out + at, CUDA_R_16BF,
                                         D, rows_stride, count, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
              "P v");
  }
  CK(cudaDeviceSynchronize());
  CK(cudaFree(scores));
  CK(cudaFree(probs));
  cublas_ck(cublasDestroy(handle), "cublasDestroy");
}
