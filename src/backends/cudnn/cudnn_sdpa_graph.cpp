// cuDNN's SDPA graphs, built with the cudnn-frontend headers. The frontend
// calls cuDNN's functions by name; cudnn_entry_points.cpp defines them over
// the dlopen'ed library, so nothing here links libcudnn.
#include "backends/cudnn/cudnn_sdpa_graph.hpp"

#include <cudnn_frontend.h>

#include <exception>
#include <map>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

#include "baracuda/core.h"
#include "backends/cudnn/cudnn_handles.hpp"
#include "backends/cudnn/cudnn_library.hpp"
#include "core/error.hpp"

namespace baracuda::cudnn {

namespace fe = cudnn_frontend;
using fe::graph::Tensor_attributes;
using TensorPtr = std::shared_ptr<Tensor_attributes>;

class SdpaGraph {
 public:
  std::shared_ptr<fe::graph::Graph> graph;
  int device = 0;
  int64_t workspace = 0;
  std::string engine;
};

namespace {

// Variant-pack ids of the graph's tensors.
enum Uid : int64_t { kQ = 1, kK, kV, kO, kStats, kDO, kDQ, kDK, kDV };

std::vector<int64_t> dense_strides(const std::vector<int64_t> &dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t d = dims.size() - 1; d > 0; --d) s[d - 1] = s[d] * dims[d];
  return s;
}

// Runs with key's device current and puts the caller's back.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    check_cuda(cudaGetDevice(&previous_), "sdpa (cuDNN)", "cudaGetDevice");
    check_cuda(cudaSetDevice(device), "sdpa (cuDNN)", "cudaSetDevice");
  }
  ~DeviceScope() { cudaSetDevice(previous_); }  // the device was valid a moment ago

 private:
  int previous_ = 0;
};

// The causal mask and the window as cuDNN's diagonal band.
template <class Attributes>
void set_band(Attributes &a, const SdpaGraphKey &k) {
  if (k.right_bound < 0 && k.left_bound < 0) return;
  a.set_diagonal_alignment(k.bottom_right ? fe::DiagonalAlignment_t::BOTTOM_RIGHT : fe::DiagonalAlignment_t::TOP_LEFT);
  if (k.right_bound >= 0) a.set_diagonal_band_right_bound(static_cast<int>(k.right_bound));
  if (k.left_bound >= 0) a.set_diagonal_band_left_bound(static_cast<int>(k.left_bound));
}

// Adds the attention node and names its tensors.
void add_sdpa(fe::graph::Graph &g, const SdpaGraphKey &k) {
  auto input = [&](const char *name, int64_t uid, std::vector<int64_t> dims) {
    const std::vector<int64_t> strides = dense_strides(dims);
    return g.tensor(Tensor_attributes().set_name(name).set_uid(uid).set_dim(std::move(dims)).set_stride(strides));
  };
  auto output = [](const TensorPtr &t, int64_t uid, std::vector<int64_t> dims) {
    t->set_output(true).set_uid(uid).set_stride(dense_strides(dims)).set_dim(std::move(dims));
  };
  const int64_t B = k.batch, Hq = k.heads_q, Hkv = k.heads_kv, Sq = k.queries, Skv = k.keys;
  const std::vector<int64_t> q{B, Hq, Sq, k.head_dim}, kk{B, Hkv, Skv, k.head_dim}, v{B, Hkv, Skv, k.head_dim_v},
      o{B, Hq, Sq, k.head_dim_v}, stats{B, Hq, Sq, 1};
  const TensorPtr Q = input("Q", kQ, q), K = input("K", kK, kk), V = input("V", kV, v);
  if (!k.backward) {
    fe::graph::SDPA_attributes a;
    a.set_name("sdpa").set_generate_stats(true).set_attn_scale(k.scale);
    set_band(a, k);
    auto [O, Stats] = g.sdpa(Q, K, V, a);
    output(O, kO, o);
    output(Stats, kStats, stats);
    Stats->set_data_type(fe::DataType_t::FLOAT);
    return;
  }
  const TensorPtr O = input("O", kO, o), dO = input("dO", kDO, o), Stats = input("Stats", kStats, stats);
  Stats->set_data_type(fe::DataType_t::FLOAT);
  fe::graph::SDPA_backward_attributes a;
  a.set_name("sdpa_backward").set_attn_scale(k.scale).set_deterministic_algorithm(k.deterministic);
  set_band(a, k);
  auto [dQ, dK, dV] = g.sdpa_backward(Q, K, V, O, dO, Stats, a);
  output(dQ, kDQ, q);
  output(dK, kDK, kk);
  output(dV, kDV, v);
}

// Empty when the step succeeded, else what cuDNN said.
std::string failed(fe::error_t e, const char *step) {
  if (e.is_good()) return {};
  return cat("cuDNN ", step, ": ", e.get_message());
}

// Builds the graph and its plan; returns why not on failure.
std::string build(const SdpaGraphKey &k, SdpaGraph &out) {
  const Library &lib = library();
  if (lib.handle == nullptr) return lib.why_not;
  const DeviceScope scope(k.device);
  const HandleLease handle = lease_handle(k.device);
  auto g = std::make_shared<fe::graph::Graph>();
  g->set_io_data_type(k.bf16 ? fe::DataType_t::BFLOAT16 : fe::DataType_t::HALF)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  add_sdpa(*g, k);
  std::string why = failed(g->validate(), "validate");
  if (why.empty()) why = failed(g->build_operation_graph(handle.get()), "build_operation_graph");
  if (why.empty()) why = failed(g->create_execution_plans({fe::HeurMode_t::A}), "create_execution_plans");
  if (why.empty()) why = failed(g->check_support(handle.get()), "check_support");
  if (why.empty()) why = failed(g->build_plans(handle.get()), "build_plans");
  if (why.empty()) why = failed(g->get_workspace_size(out.workspace), "get_workspace_size");
  if (why.empty()) why = failed(g->get_plan_name(out.engine), "get_plan_name");
  out.graph = std::move(g);
  out.device = k.device;
  return why;
}

SdpaGraphOrWhyNot build_or_why_not(const SdpaGraphKey &k) {
  auto graph = std::make_shared<SdpaGraph>();
  std::string why;
  try {
    why = build(k, *graph);
  } catch (const Error &e) {
    why = e.message();
  } catch (const std::exception &e) {  // the frontend throws for what its error codes do not cover
    why = cat("cuDNN frontend: ", e.what());
  }
  if (!why.empty()) return {nullptr, why};
  return {std::move(graph), {}};
}

}  // namespace

std::string SdpaGraphKey::text() const {
  return cat("device ", device, backward ? " backward" : " forward", bf16 ? " bf16" : " f16",
             deterministic ? " deterministic" : "", " B", batch, " Hq", heads_q, " Hkv", heads_kv, " Q", queries, " K",
             keys, " D", head_dim, " Dv", head_dim_v, " scale ", scale, bottom_right ? " bottom-right" : " top-left",
             " band (", left_bound, ", ", right_bound, ")");
}

SdpaGraphOrWhyNot sdpa_graph(const SdpaGraphKey &key) {
  // Bounded: a long-running process that plans many shapes does not grow
  // without end; plans hold their graphs, so dropping the cache frees nothing
  // a plan still uses.
  constexpr size_t kMaxCached = 256;
  static std::mutex m;
  static auto *cache = new std::map<std::string, SdpaGraphOrWhyNot>;  // never destroyed: see cudnn_handles.cpp
  const std::string text = key.text();
  std::lock_guard<std::mutex> guard(m);
  if (auto it = cache->find(text); it != cache->end()) return it->second;
  if (cache->size() >= kMaxCached) cache->clear();
  return (*cache)[text] = build_or_why_not(key);
}

size_t workspace_bytes(const SdpaGraph &graph) { return static_cast<size_t>(graph.workspace); }

std::string engine_name(const SdpaGraph &graph) { return graph.engine; }

void execute(const SdpaGraph &graph, const SdpaPointers &p, void *workspace, cudaStream_t stream, const char *op) {
  std::unordered_map<int64_t, void *> pack = {{kQ, const_cast<void *>(p.q)},
                                              {kK, const_cast<void *>(p.k)},
                                              {kV, const_cast<void *>(p.v)},
                                              {kO, p.out},
                                              {kStats, p.stats}};
  if (p.dq != nullptr)
    pack.insert({{kDO, const_cast<void *>(p.dout)}, {kDQ, p.dq}, {kDK, p.dk}, {kDV, p.dv}});
  const HandleLease handle = lease_handle(graph.device);
  const cudnnStatus_t s = cudnnSetStream(handle.get(), stream);
  if (s != CUDNN_STATUS_SUCCESS) fail(BARACUDA_STATUS_UNSUPPORTED, op, ": cudnnSetStream: ", cudnnGetErrorString(s));
  const std::string why = failed(graph.graph->execute(handle.get(), pack, workspace), "execute");
  if (!why.empty()) fail(BARACUDA_STATUS_UNSUPPORTED, op, ": ", why);
}

}  // namespace baracuda::cudnn
