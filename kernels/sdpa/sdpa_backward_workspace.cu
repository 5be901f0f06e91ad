#include "sdpa/sdpa_backward_heuristics.h"
#include "sdpa/sdpa_kernels.h"

namespace baracuda::kernels {

size_t sdpa_backward_workspace_sm80(const SdpaProblem &p) { return sdpa_backward_workspace_layout(p).bytes; }

}  // namespace baracuda::kernels
