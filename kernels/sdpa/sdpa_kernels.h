// Entry points of the attention kernels, for the plan layer: one function per
// kernel variant, dtype and pass. Each returns 0, a status, or a negated CUDA
// error. The plan layer has validated the problem against the variant's
// limits (head sizes up to 256, multiples of 8) before any call. Hidden from
// the ABI.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "sdpa/sdpa_problem.h"

namespace baracuda::kernels {

// Tensor cores (f16, bf16): the sm_80 kernel (mma.sync m16n8k16, ldmatrix,
// multi-stage cp.async K/V tiles) and its sm_89 sibling (double-buffered K/V
// tiles, 256-thread blocks). Both run on any GPU from sm_80 on.
int sdpa_forward_sm80_f16(const SdpaProblem &p, cudaStream_t stream);
int sdpa_forward_sm80_bf16(const SdpaProblem &p, cudaStream_t stream);
int sdpa_forward_sm89_f16(const SdpaProblem &p, cudaStream_t stream);
int sdpa_forward_sm89_bf16(const SdpaProblem &p, cudaStream_t stream);
// The Hopper kernel (sm_90a only: wgmma, TMA, warp specialization;
// sm90/sdpa_forward_sm90.cuh), built when the build's archs include 90:
// sdpa_forward_sm90_built() says whether it was. Views TMA cannot read go to
// the sm_80 kernel. The workspace (sdpa_sm90_forward_workspace_bytes in
// sm90/sdpa_forward_sm90_shape.h) holds the partial rows of the last
// round's tiles, cut over their keys; with less the kernel runs them uncut.
bool sdpa_forward_sm90_built();
int sdpa_forward_sm90_f16(const SdpaProblem &p, void *workspace, size_t workspace_bytes, cudaStream_t stream);
int sdpa_forward_sm90_bf16(const SdpaProblem &p, void *workspace, size_t workspace_bytes, cudaStream_t stream);
// f32 on tensor cores from sm_80 on, each product split into tf32 halves
// (sdpa_tf32_split.cuh, the small * small term dropped): about 2^-20
// relative per product.
int sdpa_forward_tf32x3_f32(const SdpaProblem &p, cudaStream_t stream);
// Bytes the tensor-core backward needs in its workspace for p's extents and
// p.deterministic (the plan layer has bounded the extents: no overflow).
size_t sdpa_backward_workspace_sm80(const SdpaProblem &p);
int sdpa_backward_sm80_f16(const SdpaProblem &p, void *workspace, size_t workspace_bytes, cudaStream_t stream);
int sdpa_backward_sm80_bf16(const SdpaProblem &p, void *workspace, size_t workspace_bytes, cudaStream_t stream);
// The Hopper backward (sm_90a only; sm90/sdpa_backward_sm90.cuh), built with
// the forward: head sizes up to 128, atomic dQ (no deterministic mode), the
// sm_80 backward's workspace. Views TMA cannot read go to the sm_80 kernel.
bool sdpa_backward_sm90_built();
int sdpa_backward_sm90_f16(const SdpaProblem &p, void *workspace, size_t workspace_bytes, cudaStream_t stream);
int sdpa_backward_sm90_bf16(const SdpaProblem &p, void *workspace, size_t workspace_bytes, cudaStream_t stream);

// CUDA cores (f32, f64), accumulating in their own precision.
int sdpa_forward_simt_f32(const SdpaProblem &p, cudaStream_t stream);
int sdpa_forward_simt_f64(const SdpaProblem &p, cudaStream_t stream);
size_t sdpa_backward_workspace_simt(const SdpaProblem &p);
int sdpa_backward_simt_f32(const SdpaProblem &p, void *workspace, size_t workspace_bytes, cudaStream_t stream);
int sdpa_backward_simt_f64(const SdpaProblem &p, void *workspace, size_t workspace_bytes, cudaStream_t stream);

}  // namespace baracuda::kernels
