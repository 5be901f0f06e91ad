// One forward tile variant (bf16) of a tree's tensor-core forward behind a C
// entry PROBE_ENTRY (probe_entry.h's arrays; out and lse written), for
// gpu_time.py's forward rows: -DPROBE_FWD_VARIANT=n, fwd_variants.h's
// head tile and SdpaTcConfig of that number. Status 3 for other head sizes.
#include <cuda_bf16.h>

#include "probe_entry.h"
#include "sdpa/sdpa_forward_tc.cuh"

namespace {
using namespace baracuda::kernels;
constexpr SdpaTcExponentials kInSoftmax = SdpaTcExponentials::kInSoftmax, kInPv = SdpaTcExponentials::kInPv;
#include "fwd_variants.h"
struct ProbeForwardConfig {
  static constexpr SdpaTcConfig of(int) { return kProbeForwardConfig; }
};
}  // namespace

extern "C" int PROBE_ENTRY(const int64_t *dims, void *const *ptrs, void *stream) {
  using namespace baracuda::kernels;
  const SdpaProblem p = probe_problem<SdpaProblem>(dims, ptrs);
  if (sdpa_tc_head_dim_tile(p.head_dim, p.head_dim_v) != PROBE_FWD_TILE) return 3;
  using K = sdpa_tc::TcForward<__nv_bfloat16, ProbeForwardConfig, PROBE_FWD_TILE>;
  return sdpa_tc::launch_forward<K>(p, sdpa_tc_smem_bytes(K::Shape::kCfg, PROBE_FWD_TILE),
                                    static_cast<cudaStream_t>(stream));
}
