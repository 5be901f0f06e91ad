// One tree's Hopper forward behind a plain function, compiled once per tree
// with -Dbaracuda=baracuda_<name> (its symbols cannot collide with another
// tree's) and -DPROBE_FORWARD=<function>. The problem comes in as the staged
// tree's SdpaProblem (sdpa_problem.h is the same file in every tree), its
// dtype as main.cu's probe_f16.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "sdpa/sdpa_tc_heuristics.h"
#include "sdpa/sm90/sdpa_forward_sm90.cuh"
#include "sdpa/sm90/sdpa_forward_sm90_params.cuh"

using namespace baracuda::kernels;

// PROBE_TILES: the head-size tiles this variant builds (64 = 1, 128 = 2,
// 256 = 4; all by default), so that a variant of one tile compiles sooner.
// PROBE_F16: it builds f16 too (bf16 only by default).
#ifndef PROBE_TILES
#define PROBE_TILES 7
#endif
#ifndef PROBE_F16
#define PROBE_F16 0
#endif

extern "C" int probe_f16;

template <class T>
static int forward(const SdpaProblem &p, int tile, cudaStream_t stream) {
  sm90::ForwardParams fp;
  if (!sm90::forward_params(fp, p, std::is_same_v<T, __nv_bfloat16>, tile)) return 1;
#if PROBE_TILES & 1
  if (tile == 64) return sdpa_forward_sm90_launch<T, 64>(p, fp, stream);
#endif
#if PROBE_TILES & 2
  if (tile == 128) return sdpa_forward_sm90_launch<T, 128>(p, fp, stream);
#endif
#if PROBE_TILES & 4
  if (tile == 256) return sdpa_forward_sm90_launch<T, 256>(p, fp, stream);
#endif
  return 2;
}

// 0, a negated CUDA error, 1 when the tree's forward refuses the views, 2
// when this variant does not build the problem's tile or dtype.
int PROBE_FORWARD(const void *problem, cudaStream_t stream) {
  const SdpaProblem &p = *static_cast<const SdpaProblem *>(problem);
  const int tile = sdpa_tc_head_dim_tile(p.head_dim, p.head_dim_v);
  if ((PROBE_TILES & (tile / 64)) == 0) return 2;
  if (probe_f16 == 0) return forward<__nv_bfloat16>(p, tile, stream);
#if PROBE_F16
  return forward<__half>(p, tile, stream);
#else
  return 2;
#endif
}
