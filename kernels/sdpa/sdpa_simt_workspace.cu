#include "sdpa/sdpa_kernels.h"
#include "sdpa/sdpa_simt_heuristics.h"

namespace baracuda::kernels {
size_t sdpa_backward_workspace_simt(const SdpaProblem &p) {
  return sdpa_simt_backward_workspace(p.batch, p.heads_q, p.queries);
}
}  // namespace baracuda::kernels
