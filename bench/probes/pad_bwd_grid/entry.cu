// One tree's pad backward as a probe entry: built once per tree and dtype
// with the tree's namespace renamed (-Dbaracuda=baracuda_<tree>) and
// -DPROBE_ENTRY=probe_bwd_<tree>_<dtype>, so that several trees' kernels
// link into one binary and run side by side (main.cu).
#include "pad/pad_backward_impl.cuh"

#ifndef PROBE_DTYPE
#error "PROBE_DTYPE: 0 f32, 1 bf16, 2 f16"
#endif

// p: a RowsProblem (its layout is the same in every tree the probe builds).
extern "C" int PROBE_ENTRY(const void *p, cudaStream_t stream) {
  using namespace baracuda::kernels;
  const RowsProblem &rp = *static_cast<const RowsProblem *>(p);
#if PROBE_DTYPE == 0
  return pad_backward_dispatch<float>(rp, stream);
#elif PROBE_DTYPE == 1
  return pad_backward_dispatch<__nv_bfloat16>(rp, stream);
#else
  return pad_backward_dispatch<__half>(rp, stream);
#endif
}

#ifdef PROBE_STAMPS
// The tree's phase clocks (a copy of a tiles kernel with g_stamps added):
// the sums of each phase's cycles over blocks, and the blocks; reset after.
#define PROBE_CAT2(a, b) a##b
#define PROBE_CAT(a, b) PROBE_CAT2(a, b)
extern "C" int PROBE_CAT(PROBE_ENTRY, _stamps)(unsigned long long *out) {
  using namespace baracuda::kernels;
  if (cudaMemcpyFromSymbol(out, g_stamps, sizeof(unsigned long long) * 8) != cudaSuccess) return 1;
  const unsigned long long zero[8] = {};
  return cudaMemcpyToSymbol(g_stamps, zero, sizeof zero) != cudaSuccess;
}
#endif
