// The library's own cuDNN backend (src/backends/cudnn: the graphs select
// builds, libcudnn opened at run time, cuDNN 9.14 on the GPU machine) behind
// the probe's plain function, so that cuDNN's forward runs interleaved with
// the Hopper forward in one process (rows moved 7-10% between calls when
// each ran in its own, bench/NOTES.md session 19). The graph key is the one
// the plan layer builds (sdpa_cudnn_support.cpp's cudnn_graph_key) for the
// features cuDNN serves with the library's semantics; other problems return
// 2 (not run), as a variant that does not build a tile does.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

#include "backends/cudnn/cudnn_sdpa_graph.hpp"
#include "core/error.hpp"
#include "sdpa/sdpa_problem.h"

extern "C" int probe_f16;  // main.cu: the problem's dtype (0 bf16, 1 f16)

namespace {

bool dense(const void *data, const int64_t (&stride)[3], int64_t heads, int64_t rows, int64_t cols) {
  return reinterpret_cast<uintptr_t>(data) % 16 == 0 && stride[2] == cols && stride[1] == rows * cols &&
         stride[0] == heads * rows * cols;
}

}  // namespace

// 0, 2 where the library's cuDNN candidate would not serve p (or cuDNN refused
// its graph: the reason is printed once), or -1 when cuDNN's execute failed.
int probe_forward_cudnn(const void *problem, cudaStream_t stream) {
  namespace cudnn = baracuda::cudnn;
  const auto &p = *static_cast<const baracuda::kernels::SdpaProblem *>(problem);
  if (p.alibi != 0 || p.softcap > 0 || p.window_left >= 0 || p.window_right >= 0 || p.lse == nullptr ||
      (p.causal && p.bottom_right && p.keys < p.queries) ||  // rows that see no key: cuDNN does not promise 0 / -inf
      !dense(p.q.data, p.q.stride, p.heads_q, p.queries, p.head_dim) ||
      !dense(p.k.data, p.k.stride, p.heads_kv, p.keys, p.head_dim) ||
      !dense(p.v.data, p.v.stride, p.heads_kv, p.keys, p.head_dim_v) ||
      !dense(p.out.data, p.out.stride, p.heads_q, p.queries, p.head_dim_v))
    return 2;
  cudnn::SdpaGraphKey k{};
  if (cudaGetDevice(&k.device) != cudaSuccess) return -1;
  k.backward = false;
  k.bf16 = probe_f16 == 0;
  k.batch = p.batch, k.heads_q = p.heads_q, k.heads_kv = p.heads_kv, k.queries = p.queries, k.keys = p.keys;
  k.head_dim = p.head_dim, k.head_dim_v = p.head_dim_v;
  k.scale = static_cast<float>(p.scale);
  k.bottom_right = p.bottom_right && p.queries != p.keys;
  k.right_bound = p.causal ? 0 : -1;
  k.left_bound = -1;
  const cudnn::SdpaGraphOrWhyNot g = cudnn::sdpa_graph(k);
  if (!g.graph) {
    static std::map<std::string, bool> said;
    if (!said[g.why_not]) printf("cudnn: refused %s: %s\n", k.text().c_str(), g.why_not.c_str());
    said[g.why_not] = true;
    return 2;
  }
  // One workspace a graph, allocated on its first run (a warm-up round).
  static std::map<const void *, void *> workspaces;
  void *&ws = workspaces[g.graph.get()];
  const size_t bytes = cudnn::workspace_bytes(*g.graph);
  if (ws == nullptr && bytes > 0 && cudaMalloc(&ws, bytes) != cudaSuccess) return -1;
  const cudnn::SdpaPointers ptrs{p.q.data, p.k.data, p.v.data, p.out.data, p.lse, nullptr, nullptr, nullptr, nullptr};
  try {
    cudnn::execute(*g.graph, ptrs, ws, stream, "probe cudnn");
  } catch (const baracuda::Error &e) {
    printf("cudnn: %s\n", e.message().c_str());
    return -1;
  }
  return 0;
}
