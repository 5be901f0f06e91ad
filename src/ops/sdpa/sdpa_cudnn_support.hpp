// What of the attention op cuDNN's fused attention serves with our exact
// semantics, and how a problem maps onto its graph. Plain functions (no
// device, no cuDNN), tested on the CPU (tests/cpu/test_sdpa_cudnn_support.cpp).
#pragma once

#include "backends/cudnn/cudnn_sdpa_graph.hpp"
#include "core/candidates.hpp"
#include "ops/sdpa/sdpa_desc.hpp"

namespace baracuda::sdpa {

// Why cuDNN cannot serve s with the semantics of include/baracuda/sdpa.h,
// before any graph is built; nullopt when it may (cuDNN itself then has the
// last word, at select).
WhyNot cudnn_feature_gap(const Spec &s, bool backward);

// s as a cuDNN graph on device: the causal mask and the window become
// cuDNN's diagonal band (ours keeps keys j >= i' - window_left, cuDNN's keeps
// j > i' - left_bound).
cudnn::SdpaGraphKey cudnn_graph_key(const Spec &s, bool backward, bool deterministic, int device);

}  // namespace baracuda::sdpa
