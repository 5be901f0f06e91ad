// The cuDNN backend of a build made without the cudnn-frontend headers
// (meson said so at configure): no graph is ever built, and each refusal
// says why, so select moves on to the bespoke kernels.
#include "backends/cudnn/cudnn_sdpa_graph.hpp"

#include "baracuda/core.h"
#include "core/error.hpp"

namespace baracuda::cudnn {

class SdpaGraph {};

std::string SdpaGraphKey::text() const { return {}; }

SdpaGraphOrWhyNot sdpa_graph(const SdpaGraphKey &) {
  return {nullptr, "this build has no cuDNN backend (the cudnn-frontend headers were not found at configure)"};
}

size_t workspace_bytes(const SdpaGraph &) { return 0; }

std::string engine_name(const SdpaGraph &) { return {}; }

void execute(const SdpaGraph &, const SdpaPointers &, void *, cudaStream_t, const char *op) {
  fail(BARACUDA_STATUS_UNSUPPORTED, op, ": this build has no cuDNN backend");
}

}  // namespace baracuda::cudnn
