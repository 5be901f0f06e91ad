#include "ops/sdpa/sdpa_cudnn.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "backends/cudnn/cudnn_sdpa_graph.hpp"
#include "core/args.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/plan_info.hpp"
#include "ops/sdpa/sdpa_backend_heuristics.hpp"
#include "ops/sdpa/sdpa_cudnn_support.hpp"

namespace baracuda::sdpa {

namespace {

constexpr size_t kAlignment = 256;  // of the statistics scratch after cuDNN's workspace

size_t align_up(size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

// The table's verdict is for the backward mode the caller asked for: a caller
// who did not ask for determinism takes cuDNN's deterministic algorithm only
// where cuDNN leads the atomic backward too (it is the atomic one's fallback).
ShapeClass shape_class(const Spec &s, const SelectContext &ctx) {
  return {ctx.target_sm, s.backward(), s.dtype, std::max(s.head_dim, s.head_dim_v), s.causal, s.batch * s.heads_q,
          s.queries, s.keys, (ctx.flags & BARACUDA_SELECT_DETERMINISTIC) != 0};
}

// Row-major strides for its shape (extents of 1 take any stride) and a
// 16-byte aligned address: the layout the graph was built for.
bool dense_and_aligned(const baracuda_tensor_t &t) {
  if (reinterpret_cast<uintptr_t>(t.data) % 16 != 0) return false;
  int64_t expected = 1;
  for (int32_t d = t.rank - 1; d >= 0; --d) {
    if (t.shape[d] != 1 && t.strides[d] != expected) return false;
    expected *= t.shape[d];
  }
  return true;
}

class CudnnPlan final : public Plan {
 public:
  CudnnPlan(const CandidateTraits &traits, const Spec &s, std::shared_ptr<const cudnn::SdpaGraph> graph, int device,
            std::unique_ptr<Plan> bespoke)
      : spec_(s), graph_(std::move(graph)), device_(device), bespoke_(std::move(bespoke)) {
    set_accumulates(info, s.dtype);
    std::string name = cat(traits.name, "_", dtype_name(s.dtype), "_d", s.head_dim);
    if (s.head_dim_v != s.head_dim) name += cat("_dv", s.head_dim_v);
    set_kernel_name(info, cat(name, " ", cudnn::engine_name(*graph_)));
    stats_offset_ = align_up(cudnn::workspace_bytes(*graph_));
    const size_t stats_bytes = s.backward() ? 0 : static_cast<size_t>(s.batch * s.heads_q * s.queries) * 4;
    info.workspace_bytes = std::max(stats_offset_ + stats_bytes, bespoke_->workspace_size());
  }

  void check(const baracuda_arg_t *args, int32_t num_args) const override { bespoke_->check(args, num_args); }

  void run(const baracuda_arg_t *args, int32_t num_args, void *workspace, size_t workspace_bytes,
           baracuda_stream_t stream) const override {
    bespoke_->check(args, num_args);  // every argument, as the bespoke plan would
    cudnn::SdpaPointers p{};
    if (!bind(args, num_args, workspace, p)) return bespoke_->run(args, num_args, workspace, workspace_bytes, stream);
    cudnn::execute(*graph_, p, workspace, stream, spec_.op->name);
  }

 private:
  // Fills p when every tensor (already validated) has the graph's layout on
  // the graph's device.
  bool bind(const baracuda_arg_t *args, int32_t num_args, void *workspace, cudnn::SdpaPointers &p) const {
    int current = -1;
    check_cuda(cudaGetDevice(&current), spec_.op->name, "cudaGetDevice");
    if (current != device_) return false;
    const BoundArgs t = bind_args(*spec_.op, args, num_args);
    auto data = [&](int32_t role) -> void * { return t[role] == nullptr ? nullptr : t[role]->data; };
    const int32_t roles[] = {BARACUDA_ARG_Q,  BARACUDA_ARG_K,  BARACUDA_ARG_V,  BARACUDA_ARG_OUT, BARACUDA_ARG_LSE,
                             BARACUDA_ARG_DOUT, BARACUDA_ARG_DQ, BARACUDA_ARG_DK, BARACUDA_ARG_DV};
    for (int32_t role : roles)
      if (t[role] != nullptr && !dense_and_aligned(*t[role])) return false;
    p.q = data(BARACUDA_ARG_Q), p.k = data(BARACUDA_ARG_K), p.v = data(BARACUDA_ARG_V);
    p.out = data(BARACUDA_ARG_OUT);
    // The forward's statistics go to the workspace when the caller wants no LSE.
    p.stats = data(BARACUDA_ARG_LSE);
    if (p.stats == nullptr) p.stats = static_cast<unsigned char *>(workspace) + stats_offset_;
    p.dout = data(BARACUDA_ARG_DOUT);
    p.dq = data(BARACUDA_ARG_DQ), p.dk = data(BARACUDA_ARG_DK), p.dv = data(BARACUDA_ARG_DV);
    return true;
  }

  Spec spec_;
  std::shared_ptr<const cudnn::SdpaGraph> graph_;
  int device_;
  std::unique_ptr<Plan> bespoke_;
  size_t stats_offset_ = 0;
};

}  // namespace

WhyNot cudnn_can_implement(const CandidateTraits &traits, const Spec &s, const SelectContext &ctx) {
  if (ctx.device < 0)
    return cat("needs a device: its graph is built on the GPU at select (target_sm ", ctx.target_sm, " was named)");
  if (WhyNot gap = cudnn_feature_gap(s, s.backward())) return gap;
  // A forced candidate skips the table: tests and the benchmark grid run it on every shape.
  if (!ctx.forces(traits.name) && faster_backend(shape_class(s, ctx)) != Faster::Cudnn)
    return cat("the measured table (sdpa_backend_heuristics.hpp) puts the bespoke kernels ahead for this shape on sm ",
               ctx.target_sm);
  const cudnn::SdpaGraphKey key = cudnn_graph_key(s, s.backward(), traits.deterministic, ctx.device);
  const cudnn::SdpaGraphOrWhyNot g = cudnn::sdpa_graph(key);
  if (!g.graph) return g.why_not;
  return serves();
}

std::unique_ptr<Plan> cudnn_make_plan(const CandidateTraits &traits, const Spec &s, const SelectContext &ctx) {
  // can_implement built it: this finds it in the cache.
  const cudnn::SdpaGraphKey key = cudnn_graph_key(s, s.backward(), traits.deterministic, ctx.device);
  const cudnn::SdpaGraphOrWhyNot g = cudnn::sdpa_graph(key);
  if (!g.graph) fail(BARACUDA_STATUS_UNSUPPORTED, s.op->name, ": ", traits.name, ": ", g.why_not);
  SelectContext bespoke = ctx;
  bespoke.flags |= BARACUDA_SELECT_BESPOKE_ONLY | (traits.deterministic ? BARACUDA_SELECT_DETERMINISTIC : 0u);
  bespoke.forced_candidate.clear();
  return std::make_unique<CudnnPlan>(traits, s, g.graph, ctx.device, select_bespoke(s, bespoke));
}

}  // namespace baracuda::sdpa
