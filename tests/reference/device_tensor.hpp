// Device tensors with host mirrors, and the small failure plumbing the GPU
// check harnesses share.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "baracuda/baracuda.h"
#include "reference/harness.hpp"
#include "reference/reference.hpp"

namespace baracuda::check {

struct Fail {
  std::string why;
};

inline void cuda(cudaError_t e, const char *what) {
  if (e != cudaSuccess) throw Fail{std::string(what) + ": " + cudaGetErrorString(e)};
}

inline void status(baracuda_status_t s, const char *what) {
  if (s != BARACUDA_STATUS_SUCCESS)
    throw Fail{std::string(what) + " returned " + baracuda_status_string(s) + ": " + baracuda_last_error_message()};
}

// A device buffer, its host mirror, and a view into both.
struct TestTensor {
  std::vector<unsigned char> host;
  void *dev = nullptr;
  baracuda_tensor_t tensor{};
  reference::HostView view{};

  TestTensor() = default;
  TestTensor(const TestTensor &) = delete;
  TestTensor &operator=(const TestTensor &) = delete;
  ~TestTensor() { cudaFree(dev); }

  void upload() { cuda(cudaMemcpy(dev, host.data(), host.size(), cudaMemcpyHostToDevice), "cudaMemcpy H2D"); }
  std::vector<unsigned char> download() const {
    std::vector<unsigned char> out(host.size());
    cuda(cudaMemcpy(out.data(), dev, out.size(), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    return out;
  }
  reference::HostView view_of(std::vector<unsigned char> &bytes) const {
    reference::HostView v = view;
    v.base = bytes.data();
    return v;
  }
};

struct PlanGuard {
  baracuda_plan_t plan = nullptr;
  ~PlanGuard() { baracuda_plan_destroy(plan); }
};

// A plan's workspace of garbage bytes (the kernels may not expect zeros),
// written before the constructor returns: cudaMemset may still run when it
// returns, and work on a non-blocking stream (a graph) does not wait for it.
struct GarbageWorkspace {
  void *data = nullptr;
  size_t bytes = 0;
  explicit GarbageWorkspace(baracuda_plan_t plan) {
    status(baracuda_plan_workspace_size(plan, &bytes), "baracuda_plan_workspace_size");
    if (bytes == 0) return;
    cuda(cudaMalloc(&data, bytes), "cudaMalloc workspace");
    cuda(cudaMemset(data, 0x5b, bytes), "cudaMemset workspace");
    cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize after cudaMemset");
  }
  ~GarbageWorkspace() { cudaFree(data); }
  GarbageWorkspace(const GarbageWorkspace &) = delete;
  GarbageWorkspace &operator=(const GarbageWorkspace &) = delete;
};

template <class Body>
Result guarded(Body &&body) {
  try {
    body();
    return {};
  } catch (const Fail &f) {
    return {false, f.why};
  }
}

// A buffer of rank/shape/strides, data `offset` elements past a 16-byte
// boundary, filled with random bytes (the poison outputs must leave alone).
inline void make_strided_tensor(TestTensor &t, baracuda_dtype_t dtype, int32_t rank, const int64_t *shape,
                                const int64_t *strides, int64_t offset, std::mt19937_64 &rng) {
  const int32_t bits = baracuda_dtype_bits(dtype);
  int64_t span = 1;
  for (int32_t d = 0; d < rank; ++d) span += (std::max<int64_t>(shape[d], 1) - 1) * strides[d];
  const size_t bytes = static_cast<size_t>(((offset + span) * bits + 7) / 8) + 16;
  t.host.resize(bytes);
  for (auto &b : t.host) b = static_cast<unsigned char>(rng());
  cuda(cudaMalloc(&t.dev, bytes), "cudaMalloc");
  t.tensor.data = static_cast<unsigned char *>(t.dev) + offset * bits / 8;
  t.tensor.dtype = dtype;
  t.tensor.rank = rank;
  for (int32_t d = 0; d < rank; ++d) {
    t.tensor.shape[d] = shape[d];
    t.tensor.strides[d] = strides[d];
  }
  t.tensor.capacity = span;
  t.view.base = t.host.data();
  t.view.bits = bits;
  t.view.rank = rank;
  for (int32_t d = 0; d < rank; ++d) {
    t.view.shape[d] = shape[d];
    t.view.strides[d] = strides[d];
  }
  t.view.offset = offset;
}

// The numbers in t's view (downloaded: got) against ref, row-major, within
// tol of the largest reference magnitude, or of scale where that is larger
// (the largest sum of |terms| behind an output, for sums that may cancel far
// below their terms); every byte outside the view must still hold what was
// uploaded (the poison).
inline void compare_to_reference(const TestTensor &t, const std::vector<unsigned char> &got,
                                 const std::vector<double> &ref, const std::string &name, double tol,
                                 double scale = 0) {
  const baracuda_dtype_t dtype = t.tensor.dtype;
  const int32_t size = baracuda_dtype_bits(dtype) / 8;
  std::vector<unsigned char> bytes = got, in_view(got.size(), 0);
  const reference::HostView v = t.view_of(bytes);
  double max_err = 0, max_ref = 0;
  size_t flat = 0;
  bool nan = false;
  reference::for_each_index(v.rank, v.shape, [&](const int64_t *idx) {
    const int64_t at = v.at(idx) * size;
    std::fill(in_view.begin() + at, in_view.begin() + at + size, 1);
    const double g = reference::decode_float(dtype, v.elem(idx)), r = ref[flat++];
    nan |= std::isnan(g);
    max_err = std::max(max_err, std::fabs(g - r));
    max_ref = std::max(max_ref, std::fabs(r));
  });
  for (size_t i = 0; i < got.size(); ++i)
    if (!in_view[i] && got[i] != t.host[i])
      throw Fail{"byte " + std::to_string(i) + " outside " + name + " was written"};
  if (nan) throw Fail{name + " holds NaN"};
  const double denominator = std::max(max_ref, scale);
  const double rel = denominator > 0 ? max_err / denominator : max_err;
  if (rel > tol) {
    std::ostringstream os;
    os << name << ": max abs error / max(abs reference, " << scale << ") = " << rel << " > tolerance " << tol;
    throw Fail{os.str()};
  }
}

// A tensor over shape holding random values in [-1, 1] as the dtype rounds
// them; returns the values, row-major. Read back after every write, so that a
// broadcast (stride 0) view returns what its shared elements finally hold.
inline std::vector<double> random_tensor(TestTensor &t, baracuda_dtype_t dtype, int32_t rank, const int64_t *shape,
                                         const int64_t *strides, int64_t offset, std::mt19937_64 &rng) {
  make_strided_tensor(t, dtype, rank, shape, strides, offset, rng);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  reference::for_each_index(rank, shape,
                            [&](const int64_t *idx) { reference::encode_float(dtype, dist(rng), t.view.elem(idx)); });
  std::vector<double> values;
  reference::for_each_index(rank, shape,
                            [&](const int64_t *idx) { values.push_back(reference::decode_float(dtype, t.view.elem(idx))); });
  t.upload();
  return values;
}

inline void dense_strides(int32_t rank, const int64_t *shape, int64_t *strides) {
  int64_t s = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    strides[d] = s;
    s *= std::max<int64_t>(shape[d], 1);
  }
}

// An output: poison only.
inline void output_tensor(TestTensor &t, baracuda_dtype_t dtype, int32_t rank, const int64_t *shape,
                          const int64_t *strides, int64_t offset, std::mt19937_64 &rng) {
  make_strided_tensor(t, dtype, rank, shape, strides, offset, rng);
  t.upload();
}

// Runs the plan select gives (with BARACUDA_FORCE_CANDIDATE set to
// candidate, when not NULL) with a garbage workspace.
inline void run_with_workspace(const baracuda_op_header_t *desc, const std::vector<baracuda_arg_t> &args,
                               const char *candidate = nullptr) {
  PlanGuard g;
  if (candidate) setenv("BARACUDA_FORCE_CANDIDATE", candidate, 1);
  const baracuda_status_t selected = baracuda_plan_select(desc, nullptr, &g.plan);
  if (candidate) unsetenv("BARACUDA_FORCE_CANDIDATE");
  status(selected, "baracuda_plan_select");
  const GarbageWorkspace ws(g.plan);
  const baracuda_status_t s = baracuda_plan_run(g.plan, args.data(), static_cast<int32_t>(args.size()), ws.data,
                                                ws.bytes, nullptr);
  const cudaError_t e = cudaDeviceSynchronize();
  status(s, "baracuda_plan_run");
  cuda(e, "cudaDeviceSynchronize");
}

struct Output {
  TestTensor *tensor;
  std::vector<double> ref;
  std::string name;
  double tol;  // of max-abs-error over max-abs-reference
};

// Runs the plan, compares every output with its reference, uploads the
// outputs' first contents again (the poison, or the input of an in-place
// output), runs again and expects the same bytes. Returns the first run's.
// With repeat_candidate the second run is that candidate's plan: the same
// bytes from another kernel of the same problem.
inline std::vector<std::vector<unsigned char>> run_compare_repeat(const baracuda_op_header_t *desc,
                                                                  const std::vector<baracuda_arg_t> &args,
                                                                  const std::vector<Output> &outputs,
                                                                  const char *repeat_candidate = nullptr) {
  run_with_workspace(desc, args);
  std::vector<std::vector<unsigned char>> first;
  for (const Output &o : outputs) {
    first.push_back(o.tensor->download());
    compare_to_reference(*o.tensor, first.back(), o.ref, o.name, o.tol);
  }
  for (const Output &o : outputs) o.tensor->upload();
  run_with_workspace(desc, args, repeat_candidate);
  const std::string second =
      repeat_candidate ? std::string(" differs on a run of candidate ") + repeat_candidate : " differs on a second run";
  for (size_t i = 0; i < outputs.size(); ++i)
    if (outputs[i].tensor->download() != first[i]) throw Fail{outputs[i].name + second};
  return first;
}

}  // namespace baracuda::check
