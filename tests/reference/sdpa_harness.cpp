#include "reference/sdpa_harness.hpp"

#include <stdlib.h>  // setenv, unsetenv

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>

#include "reference/device_tensor.hpp"
#include "reference/sdpa_reference.hpp"

namespace baracuda::check {

namespace {

constexpr int64_t kPad = 8;  // elements of gap after each row: 16 bytes for f16 / bf16

baracuda_dtype_t stats_dtype(baracuda_dtype_t dtype) {
  return dtype == BARACUDA_DTYPE_F64 ? BARACUDA_DTYPE_F64 : BARACUDA_DTYPE_F32;
}

bool tensor_cores(baracuda_dtype_t dtype) { return dtype == BARACUDA_DTYPE_F16 || dtype == BARACUDA_DTYPE_BF16; }

reference::SdpaShape shape_of(const SdpaCase &c) {
  reference::SdpaShape s;
  s.batch = c.batch, s.heads_q = c.heads_q, s.heads_kv = c.heads_kv, s.queries = c.queries, s.keys = c.keys;
  s.head_dim = c.head_dim;
  s.head_dim_v = c.head_dim_v != 0 ? c.head_dim_v : c.head_dim;
  s.scale = c.scale != 0 ? static_cast<double>(c.scale) : 1.0 / std::sqrt(static_cast<double>(c.head_dim));
  s.softcap = c.softcap;
  s.causal = c.causal != 0;
  s.bottom_right = c.alignment == BARACUDA_SDPA_BOTTOM_RIGHT;
  s.window_left = c.window_left, s.window_right = c.window_right;
  s.alibi = c.alibi;
  s.per_batch_slopes = c.per_batch_slopes;
  return s;
}

// Strides of a [B, H, S, E] tensor in layout l (Packed and SharedKv are built elsewhere).
void strides_of(SdpaLayout l, const int64_t *shape, int32_t rank, int64_t *strides) {
  if (l != SdpaLayout::Padded) return dense_strides(rank, shape, strides);
  int64_t s = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    strides[d] = s;
    s = s * shape[d] + kPad;
  }
}

struct Tensors {
  TestTensor q, k, v, packed, slopes, out, lse, dout, dq, dk, dv;
};

// A [B, H, S, E] input of random values, in its own buffer.
std::vector<double> input(TestTensor &t, baracuda_dtype_t dtype, SdpaLayout l, std::vector<int64_t> shape,
                          std::mt19937_64 &rng) {
  int64_t strides[4];
  strides_of(l, shape.data(), static_cast<int32_t>(shape.size()), strides);
  return random_tensor(t, dtype, static_cast<int32_t>(shape.size()), shape.data(), strides, 0, rng);
}

void output(TestTensor &t, baracuda_dtype_t dtype, SdpaLayout l, std::vector<int64_t> shape, std::mt19937_64 &rng) {
  int64_t strides[4];
  strides_of(l, shape.data(), static_cast<int32_t>(shape.size()), strides);
  output_tensor(t, dtype, static_cast<int32_t>(shape.size()), shape.data(), strides, 0, rng);
}

// Q, K and V as views into one random [B, S, 3, H, D] buffer.
void packed_qkv(Tensors &t, const reference::SdpaShape &s, baracuda_dtype_t dtype, std::mt19937_64 &rng,
                reference::SdpaInputs &in) {
  const int64_t B = s.batch, S = s.queries, H = s.heads_q, D = s.head_dim;
  const int64_t whole[5] = {B, S, 3, H, D};
  int64_t whole_strides[5];
  dense_strides(5, whole, whole_strides);
  random_tensor(t.packed, dtype, 5, whole, whole_strides, 0, rng);
  const int64_t view_strides[4] = {S * 3 * H * D, D, 3 * H * D, 1};
  TestTensor *views[3] = {&t.q, &t.k, &t.v};
  std::vector<double> *values[3] = {&in.q, &in.k, &in.v};
  const int32_t bytes = baracuda_dtype_bits(dtype) / 8;
  for (int64_t which = 0; which < 3; ++which) {
    baracuda_tensor_t &x = views[which]->tensor;
    x = t.packed.tensor;
    x.data = static_cast<unsigned char *>(t.packed.dev) + which * H * D * bytes;
    x.rank = 4;
    const int64_t shape[4] = {B, H, S, D};
    std::copy(shape, shape + 4, x.shape);
    std::copy(view_strides, view_strides + 4, x.strides);
    x.capacity = 0;
    reference::HostView v = t.packed.view;
    v.rank = 4;
    std::copy(shape, shape + 4, v.shape);
    std::copy(view_strides, view_strides + 4, v.strides);
    v.offset = which * H * D;
    values[which]->clear();
    reference::for_each_index(4, shape, [&](const int64_t *idx) {
      values[which]->push_back(reference::decode_float(dtype, v.elem(idx)));
    });
  }
}

// K or V whose heads all alias head 0 (stride 0): the reference sees the copies.
std::vector<double> shared_head(TestTensor &t, baracuda_dtype_t dtype, std::vector<int64_t> shape,
                                std::mt19937_64 &rng) {
  int64_t strides[4];
  dense_strides(4, shape.data(), strides);
  strides[1] = 0;
  strides[0] = shape[2] * shape[3];
  return random_tensor(t, dtype, 4, shape.data(), strides, 0, rng);
}

// Slopes of either sign, small enough that the bias leaves softmax some spread.
std::vector<double> slopes(TestTensor &t, const reference::SdpaShape &s, baracuda_dtype_t dtype,
                           std::mt19937_64 &rng) {
  const std::vector<int64_t> shape =
      s.per_batch_slopes ? std::vector<int64_t>{s.batch, s.heads_q} : std::vector<int64_t>{s.heads_q};
  int64_t strides[2] = {2, 2 * shape[0]};  // strided: every slope two elements apart, B fastest
  random_tensor(t, dtype, static_cast<int32_t>(shape.size()), shape.data(), strides, 0, rng);
  std::vector<double> values;
  const double reach = 1.0 / static_cast<double>(std::max<int64_t>(8, std::max(s.queries, s.keys)));
  reference::for_each_index(t.view.rank, t.view.shape, [&](const int64_t *idx) {
    const double v = reference::decode_float(dtype, t.view.elem(idx)) * reach * 8;
    reference::encode_float(dtype, v, t.view.elem(idx));
    values.push_back(reference::decode_float(dtype, t.view.elem(idx)));
  });
  t.upload();
  // [B, Hq] values are listed B-major by for_each_index, as the reference reads them.
  return values;
}

double relative_error(const std::vector<double> &got, const std::vector<double> &ref) {
  double err = 0, mag = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    err = std::max(err, std::fabs(got[i] - ref[i]));
    mag = std::max(mag, std::fabs(ref[i]));
  }
  return mag > 0 ? err / mag : err;
}

// FlashAttention's rule for f16 / bf16: twice the math path's error, plus a
// floor of 1/16 of the dtype's rounding step for cases the math path gets exact.
double tolerance_for(baracuda_dtype_t dtype, const std::vector<double> &math_path, const std::vector<double> &ref) {
  if (!tensor_cores(dtype)) return tolerance(dtype);
  const double unit = dtype == BARACUDA_DTYPE_F16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
  return 2 * relative_error(math_path, ref) + unit / 16;
}

// lse: -inf exactly where the reference has it, the rest within tol.
void compare_lse(const TestTensor &t, const std::vector<unsigned char> &got, std::vector<double> ref, double tol) {
  std::vector<unsigned char> bytes = got;
  reference::HostView v = t.view_of(bytes);
  size_t flat = 0;
  bool bad = false;
  reference::for_each_index(v.rank, v.shape, [&](const int64_t *idx) {
    double &r = ref[flat++];
    if (!std::isinf(r)) return;
    bad |= reference::decode_float(t.tensor.dtype, v.elem(idx)) != r;
    reference::encode_float(t.tensor.dtype, 0, v.elem(idx));
    r = 0;
  });
  if (bad) throw Fail{"LSE: a row that sees no key does not hold -inf"};
  compare_to_reference(t, bytes, ref, "LSE", tol);
}

struct Checked {
  TestTensor *tensor;
  std::vector<double> ref;
  const char *name;
  double tol;
  bool lse;
};

// enqueue(stream) captured into a graph on a stream of its own, then launched once.
template <class Enqueue>
void run_in_graph(Enqueue enqueue) {
  cudaStream_t stream = nullptr;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  try {
    cuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    try {
      enqueue(stream);
    } catch (...) {
      cudaStreamEndCapture(stream, &graph);
      throw;
    }
    cuda(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
    cuda(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
    cuda(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
    cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  } catch (...) {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
    throw;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

// BARACUDA_FORCE_CANDIDATE set for one select (the suite selects from one thread).
baracuda_status_t select_forcing(const std::string &force, const baracuda_sdpa_desc_t &d,
                                 const baracuda_select_options_t &o, baracuda_plan_t *plan) {
  if (force.empty()) return baracuda_plan_select(&d.header, &o, plan);
  setenv("BARACUDA_FORCE_CANDIDATE", force.c_str(), 1);
  const baracuda_status_t s = baracuda_plan_select(&d.header, &o, plan);
  unsetenv("BARACUDA_FORCE_CANDIDATE");
  return s;
}

// Selects with c's options, runs with a garbage workspace, compares; runs
// again from the poison and expects the same bytes when the plan is deterministic.
void run_and_compare(const SdpaCase &c, const std::vector<baracuda_arg_t> &args, const std::vector<Checked> &outs) {
  const baracuda_sdpa_desc_t d = sdpa_desc_of(c);
  baracuda_select_options_t o = BARACUDA_SELECT_OPTIONS_INIT;
  o.target_sm = c.target_sm;
  o.flags = c.flags;
  PlanGuard g;
  const baracuda_status_t selected = select_forcing(c.force, d, o, &g.plan);
  if (selected == BARACUDA_STATUS_UNSUPPORTED && !c.force.empty())
    throw Fail{kRefused + std::string(baracuda_last_error_message())};
  status(selected, "baracuda_plan_select");
  baracuda_plan_info_t info = BARACUDA_PLAN_INFO_INIT;
  status(baracuda_plan_get_info(g.plan, &info), "baracuda_plan_get_info");
  const GarbageWorkspace ws(g.plan);
  auto enqueue = [&](cudaStream_t stream) {
    status(baracuda_plan_run(g.plan, args.data(), static_cast<int32_t>(args.size()), ws.data, ws.bytes, stream),
           info.kernel_name);
  };
  auto run = [&] {
    if (c.graph) run_in_graph(enqueue);
    else enqueue(nullptr);
    cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  };
  std::vector<std::vector<unsigned char>> first;
  run();
  for (const Checked &x : outs) {
    first.push_back(x.tensor->download());
    const std::string name = std::string(info.kernel_name) + " " + x.name;
    if (x.lse) compare_lse(*x.tensor, first.back(), x.ref, x.tol);
    else compare_to_reference(*x.tensor, first.back(), x.ref, name, x.tol);
  }
  for (const Checked &x : outs) x.tensor->upload();
  run();
  if (!info.deterministic) return;
  for (size_t i = 0; i < outs.size(); ++i)
    if (outs[i].tensor->download() != first[i]) throw Fail{std::string(outs[i].name) + " differs on a second run"};
}

// The float64 reference and the math path's answers for one case. The suite
// runs each case through up to five variants on the same inputs, one after
// another, and the reference costs far more than the kernels, so the last
// case's answers are kept: the key is the case less what picks the variant.
struct References {
  std::string key;
  reference::SdpaForward forward, forward_math;
  reference::SdpaGrads grads, grads_math;
};

std::string reference_key(SdpaCase c) {
  c.target_sm = 0;
  c.flags = 0;
  c.force.clear();
  c.graph = false;
  c.lse = true;
  return describe(c);
}

void check(const SdpaCase &c) {
  const reference::SdpaShape s = shape_of(c);
  const baracuda_dtype_t dt = c.dtype, st = stats_dtype(c.dtype);
  const SdpaLayout l = c.layout;
  std::mt19937_64 rng(c.seed);
  Tensors t;
  reference::SdpaInputs in;
  const std::vector<int64_t> q = {s.batch, s.heads_q, s.queries, s.head_dim},
                             k = {s.batch, s.heads_kv, s.keys, s.head_dim},
                             v = {s.batch, s.heads_kv, s.keys, s.head_dim_v},
                             out = {s.batch, s.heads_q, s.queries, s.head_dim_v}, lse = {s.batch, s.heads_q, s.queries};
  if (l == SdpaLayout::PackedQkv) {
    if (s.heads_q != s.heads_kv || s.queries != s.keys || s.head_dim != s.head_dim_v)
      throw Fail{"the packed layout needs Hq = Hkv, Q = K and D = Dv"};
    packed_qkv(t, s, dt, rng, in);
  } else if (l == SdpaLayout::SharedKv) {
    in.q = input(t.q, dt, l, q, rng);
    in.k = shared_head(t.k, dt, k, rng);
    in.v = shared_head(t.v, dt, v, rng);
  } else {
    in.q = input(t.q, dt, l, q, rng);
    in.k = input(t.k, dt, l, k, rng);
    in.v = input(t.v, dt, l, v, rng);
  }
  std::vector<baracuda_arg_t> args = {
      {BARACUDA_ARG_Q, t.q.tensor}, {BARACUDA_ARG_K, t.k.tensor}, {BARACUDA_ARG_V, t.v.tensor}};
  if (c.alibi != 0) {
    in.slopes = slopes(t.slopes, s, st, rng);
    args.push_back({BARACUDA_ARG_SLOPES, t.slopes.tensor});
  }
  static References cached;
  const std::string key = reference_key(c);
  const bool fresh = cached.key != key;
  if (fresh) {
    cached.key.clear();  // set again once every answer this case needs is in
    cached.forward = reference::sdpa_forward(s, in);
  }
  const reference::SdpaForward &ref = cached.forward;
  const double lse_tol = tolerance(st);
  if (!c.backward) {
    if (fresh) {
      cached.forward_math = tensor_cores(dt) ? reference::sdpa_forward_math_path(s, in, dt) : ref;
      cached.key = key;
    }
    const reference::SdpaForward &math = cached.forward_math;
    output(t.out, dt, l, out, rng);
    args.push_back({BARACUDA_ARG_OUT, t.out.tensor});
    std::vector<Checked> checked = {{&t.out, ref.out, "OUT", tolerance_for(dt, math.out, ref.out), false}};
    if (c.lse) {
      output(t.lse, st, l, lse, rng);
      args.push_back({BARACUDA_ARG_LSE, t.lse.tensor});
      checked.push_back({&t.lse, ref.lse, "LSE", lse_tol, true});
    }
    return run_and_compare(c, args, checked);
  }
  // The backward reads the forward's out (rounded to the dtype) and lse.
  int64_t out_strides[4], lse_strides[3];
  strides_of(l, out.data(), 4, out_strides);
  strides_of(l, lse.data(), 3, lse_strides);
  make_strided_tensor(t.out, dt, 4, out.data(), out_strides, 0, rng);
  make_strided_tensor(t.lse, st, 3, lse.data(), lse_strides, 0, rng);
  size_t flat = 0;
  reference::for_each_index(4, out.data(), [&](const int64_t *i) { reference::encode_float(dt, ref.out[flat++], t.out.view.elem(i)); });
  flat = 0;
  reference::for_each_index(3, lse.data(), [&](const int64_t *i) { reference::encode_float(st, ref.lse[flat++], t.lse.view.elem(i)); });
  t.out.upload();
  t.lse.upload();
  const std::vector<double> dout = input(t.dout, dt, l, out, rng);
  output(t.dq, dt, l, q, rng);
  output(t.dk, dt, l, k, rng);
  output(t.dv, dt, l, v, rng);
  args.insert(args.end(), {{BARACUDA_ARG_OUT, t.out.tensor},
                           {BARACUDA_ARG_LSE, t.lse.tensor},
                           {BARACUDA_ARG_DOUT, t.dout.tensor},
                           {BARACUDA_ARG_DQ, t.dq.tensor},
                           {BARACUDA_ARG_DK, t.dk.tensor},
                           {BARACUDA_ARG_DV, t.dv.tensor}});
  if (fresh) {
    cached.grads = reference::sdpa_backward(s, in, dout);
    cached.grads_math = tensor_cores(dt) ? reference::sdpa_backward_math_path(s, in, dout, dt) : cached.grads;
    cached.key = key;
  }
  const reference::SdpaGrads &grads = cached.grads, &math = cached.grads_math;
  run_and_compare(c, args,
                  {{&t.dq, grads.dq, "DQ", tolerance_for(dt, math.dq, grads.dq), false},
                   {&t.dk, grads.dk, "DK", tolerance_for(dt, math.dk, grads.dk), false},
                   {&t.dv, grads.dv, "DV", tolerance_for(dt, math.dv, grads.dv), false}});
}

}  // namespace

const char *sdpa_layout_name(SdpaLayout l) {
  switch (l) {
    case SdpaLayout::Padded: return "padded";
    case SdpaLayout::PackedQkv: return "packed-qkv";
    case SdpaLayout::SharedKv: return "shared-kv-head";
    default: return "contiguous";
  }
}

baracuda_sdpa_desc_t sdpa_desc_of(const SdpaCase &c) {
  baracuda_sdpa_desc_t d = BARACUDA_SDPA_DESC_INIT;
  d.header.op = c.backward ? BARACUDA_OP_SDPA_BACKWARD : BARACUDA_OP_SDPA;
  d.dtype = c.dtype;
  d.head_dim = c.head_dim;
  d.head_dim_v = c.head_dim_v;
  d.causal = c.causal;
  d.alignment = c.alignment;
  d.alibi = c.alibi;
  d.per_batch_slopes = c.per_batch_slopes;
  d.scale = c.scale;
  d.softcap = c.softcap;
  d.window_left = c.window_left;
  d.window_right = c.window_right;
  d.batch = c.batch;
  d.heads_q = c.heads_q;
  d.heads_kv = c.heads_kv;
  d.queries = c.queries;
  d.keys = c.keys;
  return d;
}

Result run_sdpa(const SdpaCase &c) {
  return guarded([&] { check(c); });
}

std::string describe(const SdpaCase &c) {
  std::ostringstream os;
  os << (c.backward ? "sdpa_backward " : "sdpa ") << baracuda_dtype_name(c.dtype) << " B" << c.batch << " Hq"
     << c.heads_q << " Hkv" << c.heads_kv << " Q" << c.queries << " K" << c.keys << " D" << c.head_dim;
  if (c.head_dim_v) os << " Dv" << c.head_dim_v;
  if (c.scale != 0) os << " scale " << c.scale;
  if (c.softcap != 0) os << " softcap " << c.softcap;
  if (c.causal) os << " causal";
  os << (c.alignment == BARACUDA_SDPA_BOTTOM_RIGHT ? " bottom-right" : " top-left");
  if (c.window_left >= 0 || c.window_right >= 0) os << " window (" << c.window_left << ", " << c.window_right << ")";
  if (c.alibi) os << (c.alibi == BARACUDA_ALIBI_SIGNED ? " alibi signed" : " alibi symmetric")
                  << (c.per_batch_slopes ? " [B, Hq]" : " [Hq]");
  if (!c.lse) os << " no lse";
  if (c.graph) os << " graph";
  if (!c.force.empty()) os << " forced " << c.force;
  os << " " << sdpa_layout_name(c.layout) << " sm " << c.target_sm << " flags " << c.flags << " seed " << c.seed;
  return os.str();
}

}  // namespace baracuda::check
