// The Hopper forward's entry points: the compiled head-size tile that holds D
// and Dv, the tensor maps, and the launch. Views that TMA cannot read (rows
// off 16 bytes, see forward_params) go to the sm_80 kernel, which serves any
// layout: the plan chosen at select runs whatever views it is given.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "sdpa/sdpa_kernels.h"
#include "sdpa/sdpa_tc_heuristics.h"
#include "sdpa/sm90/sdpa_forward_sm90_launch.h"
#include "sdpa/sm90/sdpa_forward_sm90_params.cuh"

namespace baracuda::kernels {
namespace {

template <class T>
int forward_sm90(const SdpaProblem &p, void *workspace, size_t workspace_bytes, cudaStream_t stream) {
  constexpr bool kBf16 = std::is_same_v<T, __nv_bfloat16>;
  const int tile = sdpa_tc_head_dim_tile(p.head_dim, p.head_dim_v);
  sm90::ForwardParams fp;
  if (!sm90::forward_params(fp, p, kBf16, tile))
    return kBf16 ? sdpa_forward_sm80_bf16(p, stream) : sdpa_forward_sm80_f16(p, stream);
  if (const int err = sm90::bind_split_workspace(fp, tile, workspace, workspace_bytes, stream)) return err;
  switch (tile) {
    case 64:
      return sdpa_forward_sm90_launch<T, 64>(p, fp, stream);
    case 128:
      return sdpa_forward_sm90_launch<T, 128>(p, fp, stream);
    default:
      return sdpa_forward_sm90_launch<T, 256>(p, fp, stream);
  }
}

}  // namespace

bool sdpa_forward_sm90_built() { return true; }
int sdpa_forward_sm90_f16(const SdpaProblem &p, void *workspace, size_t workspace_bytes, cudaStream_t stream) {
  return forward_sm90<__half>(p, workspace, workspace_bytes, stream);
}
int sdpa_forward_sm90_bf16(const SdpaProblem &p, void *workspace, size_t workspace_bytes, cudaStream_t stream) {
  return forward_sm90<__nv_bfloat16>(p, workspace, workspace_bytes, stream);
}

}  // namespace baracuda::kernels
