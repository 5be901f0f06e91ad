// cuDNN's fused attention (its SDPA graphs, through the cudnn-frontend
// headers) as the attention op's plans use it. Nothing here names a cuDNN or
// frontend type, so the plan layer compiles the same with or without the
// backend; a build without the frontend headers links cudnn_absent.cpp,
// whose graphs are never built and say why.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>

namespace baracuda::cudnn {

// One attention graph: extents, score options and the device it runs on.
// Tensors are dense: Q [B, Hq, Q, D], K [B, Hkv, K, D], V [B, Hkv, K, Dv],
// O and dO [B, Hq, Q, Dv], the row statistics [B, Hq, Q] f32, the gradients
// like their inputs.
struct SdpaGraphKey {
  int32_t device;
  bool backward;
  bool bf16;           // else f16
  bool deterministic;  // backward: cuDNN's deterministic dQ algorithm
  int64_t batch, heads_q, heads_kv, queries, keys;
  int32_t head_dim, head_dim_v;
  float scale;
  bool bottom_right;    // the band's diagonal: i' = i + K - Q, else i' = i
  int64_t right_bound;  // -1: none; else keys j <= i' + right_bound are kept
  int64_t left_bound;   // -1: none; else keys j > i' - left_bound are kept (cuDNN's convention)

  std::string text() const;  // every field, for the cache and messages
};

// The device addresses of one run. The statistics are the forward's output
// (the natural-log sum of exponentials per row) and the backward's input.
struct SdpaPointers {
  const void *q, *k, *v;
  void *out;  // the backward reads it
  void *stats;
  const void *dout;
  void *dq, *dk, *dv;
};

// A built graph with its execution plan: immutable, shared by every plan of
// the same key, run by many threads at once (the handle is taken in turn).
class SdpaGraph;

struct SdpaGraphOrWhyNot {
  std::shared_ptr<const SdpaGraph> graph;  // null: see why_not
  std::string why_not;
};

// The graph for key, built on first use (at select: it loads libcudnn,
// builds the operation graph, asks cuDNN's heuristics for an engine and
// compiles it) and kept in a process-wide cache; refusals are cached too.
SdpaGraphOrWhyNot sdpa_graph(const SdpaGraphKey &key);

// Bytes of device workspace the graph needs per run.
size_t workspace_bytes(const SdpaGraph &graph);
// cuDNN's name for the engine and knobs the heuristics chose.
std::string engine_name(const SdpaGraph &graph);

// Enqueues one run on stream with the caller's workspace: no allocation, no
// synchronization, legal under stream capture. Throws baracuda::Error,
// naming op, when cuDNN refuses.
void execute(const SdpaGraph &graph, const SdpaPointers &p, void *workspace, cudaStream_t stream, const char *op);

}  // namespace baracuda::cudnn
