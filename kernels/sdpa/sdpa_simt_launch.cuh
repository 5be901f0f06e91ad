// What the CUDA-core attention kernels take besides the SdpaProblem (typed
// addresses, whether each tensor's rows are 16-byte aligned, the backward's
// workspace), and the host side of launching them: the head-size class, the
// tile size that the device's shared memory allows, the launch itself.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "baracuda/core.h"
#include "common/device_limits.h"
#include "sdpa/sdpa_problem.h"
#include "sdpa/sdpa_simt_heuristics.h"
#include "sdpa/sdpa_simt_tiles.cuh"

namespace baracuda::kernels::sdpa_simt {

template <class T>
struct InTensor {
  const T *data;
  bool vec;  // every row starts 16-byte aligned
};
template <class T>
struct OutTensor {
  T *data;
  bool vec;
};

template <class T>
struct Operands {
  InTensor<T> q, k, v, dout;
  OutTensor<T> out, dq, dk, dv;
  T *lse;    // forward: NULL when not asked for
  T *delta;  // backward: rowsum(dout * out), [B, Hq, Q] contiguous, in the workspace
};

// Every row of a [B, H, S, width] tensor starts 16-byte aligned (strides of
// axes of extent 1 never move it).
template <class T>
bool rows_aligned(const void *data, const int64_t (&stride)[3], const int64_t (&extent)[3]) {
  bool aligned = reinterpret_cast<uintptr_t>(data) % 16 == 0;
  for (int d = 0; d < 3; ++d) aligned &= extent[d] <= 1 || stride[d] * static_cast<int64_t>(sizeof(T)) % 16 == 0;
  return aligned;
}

template <class T>
Operands<T> operands_of(const SdpaProblem &p, void *workspace) {
  const int64_t qx[3] = {p.batch, p.heads_q, p.queries}, kx[3] = {p.batch, p.heads_kv, p.keys};
  auto in = [](const SdpaTensor &t, const int64_t(&x)[3]) {
    return InTensor<T>{static_cast<const T *>(t.data), t.data != nullptr && rows_aligned<T>(t.data, t.stride, x)};
  };
  auto out = [](const SdpaOutTensor &t, const int64_t(&x)[3]) {
    return OutTensor<T>{static_cast<T *>(t.data), t.data != nullptr && rows_aligned<T>(t.data, t.stride, x)};
  };
  return {in(p.q, qx),   in(p.k, kx),   in(p.v, kx),   in(p.dout, qx),      out(p.out, qx),
          out(p.dq, qx), out(p.dk, kx), out(p.dv, kx), static_cast<T *>(p.lse), static_cast<T *>(workspace)};
}

// The rows of head (b, h) of a [B, H, S, width] tensor.
template <class T>
__device__ __forceinline__ RowSource<T> rows_of(const InTensor<T> &t, const SdpaTensor &s, int64_t b, int64_t h,
                                               int64_t length) {
  return {t.data + b * s.stride[0] + h * s.stride[1], s.stride[2], length, t.vec};
}

template <class T>
__device__ __forceinline__ RowSink<T> sink_of(const OutTensor<T> &t, const SdpaOutTensor &s, int64_t b, int64_t h,
                                             int64_t length) {
  return {t.data + b * s.stride[0] + h * s.stride[1], s.stride[2], length, t.vec};
}

// The largest dynamic shared memory a block may have on the current device,
// or a negated CUDA error.
inline int64_t shared_memory_limit() {
  DeviceLimits limits;
  const cudaError_t e = current_device_limits(limits);
  return e == cudaSuccess ? limits.smem_per_block : -static_cast<int64_t>(e);
}

// Launches kernel on `blocks` blocks (sdpa_simt_blocks: 0 launches nothing,
// -1 is too many) with smem bytes of dynamic shared memory.
template <class... Params, class... Args>
int launch_kernel(void (*kernel)(Params...), int64_t blocks, size_t smem, cudaStream_t stream, const Args &...args) {
  if (blocks == 0) return 0;
  if (blocks < 0) return BARACUDA_STATUS_UNSUPPORTED;
  const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  if (e != cudaSuccess) return -static_cast<int>(e);
  kernel<<<static_cast<unsigned>(blocks), kThreads, smem, stream>>>(args...);
  return -static_cast<int>(cudaGetLastError());
}

// Whether the compact tiles are needed: 0 (no), 1 (yes), UNSUPPORTED when
// even they do not fit, or a negated CUDA error. smem_of(compact) gives the
// bytes of each choice.
template <class SmemOf>
int needs_compact_tiles(SmemOf &&smem_of) {
  const int64_t limit = shared_memory_limit();
  if (limit < 0) return static_cast<int>(limit);
  if (static_cast<int64_t>(smem_of(false)) <= limit) return 0;
  return static_cast<int64_t>(smem_of(true)) <= limit ? 1 : BARACUDA_STATUS_UNSUPPORTED;
}

// launch(std::integral_constant<int, Class>{}) for the problem's head-size class.
template <class Launch>
int with_head_class(const SdpaProblem &p, Launch &&launch) {
  switch (sdpa_simt_head_class(p.head_dim, p.head_dim_v)) {
    case 64: return launch(std::integral_constant<int, 64>{});
    case 128: return launch(std::integral_constant<int, 128>{});
    case 256: return launch(std::integral_constant<int, 256>{});
    default: return BARACUDA_STATUS_UNSUPPORTED;
  }
}

}  // namespace baracuda::kernels::sdpa_simt
