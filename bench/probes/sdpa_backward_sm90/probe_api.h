// The probe's seam between translation units: the baseline tree's sm_80
// and sm_90 backwards (compiled with -Dbaracuda=baracuda_base, so their
// symbols cannot collide with the staged tree's) behind plain functions
// taking the staged tree's SdpaProblem (same layout: one file, unchanged).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
int base_backward_bf16(const void *problem, void *ws, size_t ws_bytes, cudaStream_t s);
int base_backward_f16(const void *problem, void *ws, size_t ws_bytes, cudaStream_t s);
int base_backward_sm90_bf16(const void *problem, void *ws, size_t ws_bytes, cudaStream_t s);
// A variant of the staged Hopper backward (bf16): build.sh writes the table
// kVariants of those it built (probe_variants.h, with PROBE_HAS_VARIANT).
struct ProbeVariant {
  const char *name;
  int (*run)(const void *problem, void *ws, size_t ws_bytes, cudaStream_t s);
  bool checked;  // false: a diagnostic, its results meaningless (timed only)
};
