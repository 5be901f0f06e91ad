// The tensor-core backward of one dtype, end to end: delta, the main kernel
// of the problem's head tile, dq's conversion. Instantiated by
// sdpa_backward_<dtype>.cu; the main kernels come from the per-tile files.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/device_limits.h"
#include "sdpa/sdpa_backward_heuristics.h"
#include "sdpa/sdpa_backward_rows.cuh"
#include "sdpa/sdpa_problem.h"

namespace baracuda::kernels::sdpa {

template <class T, int HeadTile>
int sdpa_backward_launch_main(const SdpaProblem &p, const float *delta, float *dq, int *turns, bool aligned,
                              int smem_optin, cudaStream_t stream);

// The passes around a main kernel: the workspace's dq accumulator (and the
// deterministic mode's counters) zeroed, delta (the two in one pass where
// it reads 16 bytes a lane), main(delta, dq, turns) (its status), dq
// converted to its dtype. turns: the counters, null unless
// p.deterministic (sdpa_backward_run sets it where the run takes turns).
template <class T, class Main>
int sdpa_backward_passes(const SdpaProblem &p, void *workspace, size_t workspace_bytes, cudaStream_t stream,
                         const Main &main) {
  const SdpaBackwardWorkspaceLayout w = sdpa_backward_workspace_layout(p);
  if (workspace_bytes < w.bytes) return 4;  // WORKSPACE_TOO_SMALL
  char *ws = static_cast<char *>(workspace);
  float *delta = reinterpret_cast<float *>(ws + w.delta);
  float *dq = reinterpret_cast<float *>(ws + w.dq);
  int *turns = p.deterministic ? reinterpret_cast<int *>(ws + w.counters) : nullptr;

  cudaError_t err;
  const int64_t rows = p.batch * p.heads_q * p.queries;
  if (rows > 0) {
    // The delta pass zeroes the dq accumulator as it goes (where the
    // accumulator starts on 16 bytes); the memset clears what is left (the
    // counters, where the run has them).
    const bool reads_16 = sdpa_backward_delta_reads_16_bytes(p, sizeof(T));
    const bool zeroes_dq = reinterpret_cast<uintptr_t>(dq) % 16 == 0;
    const size_t clear_from = zeroes_dq ? w.counters : w.dq;
    if (clear_from < w.bytes &&
        (err = cudaMemsetAsync(ws + clear_from, 0, w.bytes - clear_from, stream)) != cudaSuccess)
      return -static_cast<int>(err);
    if (reads_16) {
      const int rows_a_warp = 256 / p.head_dim_v * kDeltaPasses;  // Dv / 8 lanes a row
      sdpa_backward_delta_kernel_16<T><<<row_grid(rows, kRowThreads / 32 * rows_a_warp), kRowThreads, 0, stream>>>(
          p, delta, zeroes_dq ? dq : nullptr);
    } else {
      sdpa_backward_delta_kernel<T><<<row_grid(rows, kRowThreads / 32), kRowThreads, 0, stream>>>(
          p, delta, zeroes_dq ? dq : nullptr);
    }
    if ((err = cudaGetLastError()) != cudaSuccess) return -static_cast<int>(err);
  }
  if (p.keys > 0) {
    const int status = main(delta, dq, turns);
    if (status != 0) return status;
  }
  if (rows > 0) {
    const int64_t chunks = rows * (p.head_dim / kDqColumnsPerThread);
    sdpa_backward_dq_kernel<T><<<row_grid(chunks, kRowThreads), kRowThreads, 0, stream>>>(p, dq);
    if ((err = cudaGetLastError()) != cudaSuccess) return -static_cast<int>(err);
  }
  return 0;
}

template <class T>
int sdpa_backward_run(const SdpaProblem &problem, void *workspace, size_t workspace_bytes, cudaStream_t stream) {
  if (problem.batch == 0 || problem.heads_q == 0) return 0;
  // Past the atomic grid's key tiles the run takes the deterministic
  // kernels (the workspace holds their counters then).
  SdpaProblem p = problem;
  p.deterministic = sdpa_backward_takes_turns(problem);
  const int head_tile = sdpa_backward_head_tile(p.head_dim, p.head_dim_v);
  if (!sdpa_backward_grid_fits(p, head_tile)) return 3;  // UNSUPPORTED
  // The 128 and 256 tiles take more shared memory than sm_86 and sm_89 give
  // a block (about 100 KB).
  DeviceLimits limits;
  if (const cudaError_t err = current_device_limits(limits); err != cudaSuccess) return -static_cast<int>(err);
  const int smem_optin = limits.smem_per_block;
  if (smem_optin < sdpa_backward_tile_facts(head_tile).smem_bytes) return 3;  // UNSUPPORTED
  return sdpa_backward_passes<T>(p, workspace, workspace_bytes, stream,
                                 [&](const float *delta, float *dq, int *turns) {
    const int64_t e = sizeof(T);
    const bool aligned =
        rows_are_16_byte_aligned(p.q.data, p.q.stride, e) && rows_are_16_byte_aligned(p.k.data, p.k.stride, e) &&
        rows_are_16_byte_aligned(p.v.data, p.v.stride, e) && rows_are_16_byte_aligned(p.dout.data, p.dout.stride, e);
    switch (head_tile) {
      case 64: return sdpa_backward_launch_main<T, 64>(p, delta, dq, turns, aligned, smem_optin, stream);
      case 128: return sdpa_backward_launch_main<T, 128>(p, delta, dq, turns, aligned, smem_optin, stream);
      default: return sdpa_backward_launch_main<T, 256>(p, delta, dq, turns, aligned, smem_optin, stream);
    }
  });
}

}  // namespace baracuda::kernels::sdpa
