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

// Trees whose forward cuts the last round's tiles (session 22; their
// shape header defines BARACUDA_SDPA_SM90_SPLIT_LEAST_KEY_TILES) need a workspace:
// grown here as problems need it, the arrival counts zeroed on the
// launch's stream before each launch (timed with it).
static int bind_split_workspace(sm90::ForwardParams &fp, int tile, cudaStream_t stream) {
#ifdef BARACUDA_SDPA_SM90_SPLIT_LEAST_KEY_TILES
  if (fp.split.blocks == 0) return 0;
  const SdpaSm90Shape shape = sdpa_sm90_cut_shape(tile, fp.cut);
  const size_t need = sdpa_sm90_split_partial_bytes(shape, tile, fp.split) +
                      sdpa_sm90_split_arrival_bytes(shape, fp.split, fp.pair_shift != 0);
  static void *buffer = nullptr;
  static size_t held = 0;
  if (need > held) {
    if (buffer != nullptr && cudaFree(buffer) != cudaSuccess) return -1;
    if (cudaMalloc(&buffer, need) != cudaSuccess) return -1;
    held = need;
  }
  if (sm90::bind_split_workspace(fp, tile, buffer, held, stream) != 0 || fp.split.blocks == 0) return -1;
#else
  (void)fp, (void)tile, (void)stream;
#endif
  return 0;
}

template <class T>
static int forward(const SdpaProblem &p, int tile, cudaStream_t stream) {
  sm90::ForwardParams fp;
  if (!sm90::forward_params(fp, p, std::is_same_v<T, __nv_bfloat16>, tile)) return 1;
  if (bind_split_workspace(fp, tile, stream) != 0) return -1;
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
