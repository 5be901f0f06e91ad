// bench_order: bench_ops' attention backward rows (sdpa_candidates) rebuilt
// in one process on the library's own plan layer, each timing beside the SM
// clock, power and clock-event reasons it ran under (NVML), to tell whether
// the Hopper backward's bench_ops row (0.85x cuDNN at B4 H32 S4096 D128)
// measures the kernel or its place in the sequence.
//   E1: bench_ops' sequence for a row (every candidate with fresh buffers,
//       timed as sdpa_grid_row does), the Hopper backward also first and last.
//   E2: one set of buffers, the four backward plans timed in turn, three
//       rounds; then each by graph replay and by the probe's method.
//   E3: each of cuDNN's and the Hopper backward timed after 1 s idle, and
//       after 1 s of the other one running.
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "baracuda/baracuda.h"
#include "bench_checks.hpp"
#include "bench_harness.hpp"
#include "bench_normal_fill.hpp"
#include "nvml_sampler.h"
#include "../sdpa_backward_sm90/real_inputs.h"

namespace {

NvmlSampler *g_nvml;
const auto g_start = std::chrono::steady_clock::now();
double elapsed() { return std::chrono::duration<double>(std::chrono::steady_clock::now() - g_start).count(); }

struct Shape {
  int64_t B, H, S;
  int32_t D;
  bool causal;
  std::string name() const {
    return "B" + std::to_string(B) + " H" + std::to_string(H) + " S" + std::to_string(S) + " D" + std::to_string(D) +
           (causal ? " causal" : " full");
  }
  double flops(bool backward) const { return 4.0 * B * H * double(S) * S * D / (causal ? 2 : 1) * (backward ? 2.5 : 1); }
};

void fill_input(const Buffer &b, int32_t arg) {
  fill_standard_normal(b.p, BARACUDA_DTYPE_BF16, b.bytes / 2, static_cast<uint64_t>(arg));
}

// A row's tensors as sdpa_grid_row makes them: normal q, k, v, dout; out and
// lse from the default forward plan.
struct Problem {
  Shape s;
  baracuda_sdpa_desc_t d = BARACUDA_SDPA_DESC_INIT;
  std::unique_ptr<Buffer> q, k, v, out, lse, dout, dq, dk, dv;
  std::vector<baracuda_arg_t> args;
  explicit Problem(const Shape &shape) : s(shape) {
    const auto dt = BARACUDA_DTYPE_BF16;
    d.dtype = dt;
    d.head_dim = s.D;
    d.causal = s.causal;
    d.alignment = BARACUDA_SDPA_BOTTOM_RIGHT;
    d.batch = s.B, d.heads_q = s.H, d.queries = d.keys = s.S;
    const std::vector<int64_t> qs{s.B, s.H, s.S, s.D}, stats{s.B, s.H, s.S};
    const size_t bytes = s.B * s.H * s.S * s.D * 2;
    q = std::make_unique<Buffer>(bytes), k = std::make_unique<Buffer>(bytes), v = std::make_unique<Buffer>(bytes);
    out = std::make_unique<Buffer>(bytes), lse = std::make_unique<Buffer>(s.B * s.H * s.S * 4);
    fill_input(*q, BARACUDA_ARG_Q), fill_input(*k, BARACUDA_ARG_K), fill_input(*v, BARACUDA_ARG_V);
    args = {{BARACUDA_ARG_Q, tensor(q->p, dt, qs)},     {BARACUDA_ARG_K, tensor(k->p, dt, qs)},
            {BARACUDA_ARG_V, tensor(v->p, dt, qs)},     {BARACUDA_ARG_OUT, tensor(out->p, dt, qs)},
            {BARACUDA_ARG_LSE, tensor(lse->p, BARACUDA_DTYPE_F32, stats)}};
  }
  void make_backward() {
    const auto dt = BARACUDA_DTYPE_BF16;
    const std::vector<int64_t> qs{s.B, s.H, s.S, s.D};
    Plan(&d.header).run(args);  // the backward's out and lse
    dout = std::make_unique<Buffer>(q->bytes), dq = std::make_unique<Buffer>(q->bytes);
    dk = std::make_unique<Buffer>(q->bytes), dv = std::make_unique<Buffer>(q->bytes);
    fill_input(*dout, BARACUDA_ARG_DOUT);
    args.insert(args.end(), {{BARACUDA_ARG_DOUT, tensor(dout->p, dt, qs)}, {BARACUDA_ARG_DQ, tensor(dq->p, dt, qs)},
                             {BARACUDA_ARG_DK, tensor(dk->p, dt, qs)}, {BARACUDA_ARG_DV, tensor(dv->p, dt, qs)}});
    d.header.op = BARACUDA_OP_SDPA_BACKWARD;
  }
};

struct ForcedPlan {
  baracuda_plan_t plan = nullptr;
  std::unique_ptr<Buffer> ws;
  size_t ws_bytes = 0;
  double select_ms = 0;
  std::string kernel;
  ForcedPlan(const char *candidate, const baracuda_op_header_t *h) {
    setenv("BARACUDA_FORCE_CANDIDATE", candidate, 1);
    const auto t0 = std::chrono::steady_clock::now();
    const baracuda_status_t st = baracuda_plan_select(h, nullptr, &plan);
    select_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    unsetenv("BARACUDA_FORCE_CANDIDATE");
    if (st != BARACUDA_STATUS_SUCCESS) {
      kernel = std::string("refused: ") + baracuda_last_error_message();
      plan = nullptr;
      return;
    }
    ok(baracuda_plan_workspace_size(plan, &ws_bytes), "workspace_size");
    ws = std::make_unique<Buffer>(std::max<size_t>(ws_bytes, 4));
    baracuda_plan_info_t info = BARACUDA_PLAN_INFO_INIT;
    ok(baracuda_plan_get_info(plan, &info), "get_info");
    kernel = info.kernel_name;
  }
  ~ForcedPlan() {
    if (plan) baracuda_plan_destroy(plan);
  }
  void run(const Problem &p, cudaStream_t s = nullptr) const {
    ok(baracuda_plan_run(plan, p.args.data(), static_cast<int32_t>(p.args.size()), ws->p, ws_bytes, s), "run");
  }
};

// The probe's timing (bench/probes/sdpa_backward_sm90 time_ms): 12 runs,
// the first 2 dropped, the mean of the middle two of 10, the host spinning
// on cudaStreamQuery.
double probe_ms(const std::function<void()> &fn) {
  cudaEvent_t a, b;
  cuda(cudaEventCreate(&a), "event");
  cuda(cudaEventCreate(&b), "event");
  std::vector<float> ms;
  for (int it = 0; it < 12; ++it) {
    cuda(cudaEventRecord(a), "record");
    fn();
    cuda(cudaEventRecord(b), "record");
    cudaError_t e;
    while ((e = cudaStreamQuery(nullptr)) == cudaErrorNotReady) {
    }
    cuda(e, "probe run");
    float t;
    cuda(cudaEventElapsedTime(&t, a, b), "elapsed");
    if (it >= 2) ms.push_back(t);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(ms.begin(), ms.end());
  return 0.5 * (ms[4] + ms[5]);
}

// One plan run captured in a CUDA graph, replayed: 3 warm-ups, the median of 10.
double graph_ms(const ForcedPlan &fp, const Problem &p) {
  cudaStream_t s;
  cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  cudaGraph_t g;
  cudaGraphExec_t ge;
  cuda(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "capture");
  fp.run(p, s);
  cuda(cudaStreamEndCapture(s, &g), "end capture");
  cuda(cudaGraphInstantiate(&ge, g, 0), "instantiate");
  cudaEvent_t a, b;
  cuda(cudaEventCreate(&a), "event");
  cuda(cudaEventCreate(&b), "event");
  std::vector<float> ms;
  for (int it = 0; it < 13; ++it) {
    cuda(cudaEventRecord(a, s), "record");
    cuda(cudaGraphLaunch(ge, s), "launch");
    cuda(cudaEventRecord(b, s), "record");
    cuda(cudaEventSynchronize(b), "sync");
    float t;
    cuda(cudaEventElapsedTime(&t, a, b), "elapsed");
    if (it >= 3) ms.push_back(t);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaGraphExecDestroy(ge);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// fn's time and the clocks it ran under.
void timed_line(const char *tag, const char *what, const Shape &s, bool backward, const std::string &kernel,
                const std::function<double()> &fn, const char *more = "") {
  const double t0 = g_nvml->now();
  const double ms = fn();
  const double t1 = g_nvml->now();
  char clk[128];
  NvmlSampler::print(g_nvml->over(t0, t1), clk, sizeof clk);
  std::printf("%-3s %-22s %-22s %7.3f ms %6.1f TF | %s | %s%s [t %.1f]\n", tag, what, s.name().c_str(), ms,
              s.flops(backward) / ms / 1e9, clk, kernel.c_str(), more, elapsed());
}

// sdpa_grid_row as bench_ops runs it: fresh buffers, the forced plan, median of 10 after 5.
void grid_row(const char *tag, const char *candidate, const Shape &s) {
  const bool backward = std::strstr(candidate, "_bwd_") != nullptr;
  Problem p(s);
  if (backward) p.make_backward();
  ForcedPlan fp(candidate, &p.d.header);
  if (!fp.plan) {
    std::printf("%-3s %-22s %s\n", tag, candidate, fp.kernel.c_str());
    return;
  }
  char more[48];
  std::snprintf(more, sizeof more, " select %.0f ms", fp.select_ms);
  timed_line(tag, candidate, s, backward, fp.kernel, [&] { return median_ms([&] { fp.run(p); }, 10); }, more);
}

const char *const kBenchOrder[] = {"sdpa_fwd_cudnn",     "sdpa_fwd_sm90_wgmma",         "sdpa_fwd_sm80",
                                   "sdpa_bwd_cudnn",     "sdpa_bwd_sm90_wgmma",         "sdpa_bwd_sm80",
                                   "sdpa_bwd_cudnn_deterministic", "sdpa_bwd_sm90_deterministic"};

void e1(const Shape &s) {
  grid_row("E1", "sdpa_bwd_sm90_wgmma", s);
  for (const char *c : kBenchOrder) grid_row("E1", c, s);
  grid_row("E1", "sdpa_bwd_sm90_wgmma", s);
}

// The largest |a - b| over max |a| of two bf16 tensors (first n elements).
double rel_diff(const void *a, const void *b, size_t n) {
  std::vector<uint16_t> x(n), y(n);
  cuda(cudaMemcpy(x.data(), a, n * 2, cudaMemcpyDeviceToHost), "copy");
  cuda(cudaMemcpy(y.data(), b, n * 2, cudaMemcpyDeviceToHost), "copy");
  double m = 0, d = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t u = uint32_t(x[i]) << 16, w = uint32_t(y[i]) << 16;
    float f, g;
    std::memcpy(&f, &u, 4), std::memcpy(&g, &w, 4);
    m = std::max(m, double(std::fabs(f)));
    d = std::max(d, std::isfinite(g) && std::isfinite(f) ? double(std::fabs(f - g)) : INFINITY);
  }
  return d / (m > 0 ? m : 1);
}

void e2(const Shape &s, bool idle_test) {
  Problem p(s);
  p.make_backward();
  const char *names[] = {"sdpa_bwd_cudnn", "sdpa_bwd_sm90_wgmma", "sdpa_bwd_cudnn_deterministic",
                         "sdpa_bwd_sm90_deterministic"};
  std::vector<std::unique_ptr<ForcedPlan>> plans;
  for (const char *n : names) plans.push_back(std::make_unique<ForcedPlan>(n, &p.d.header));
  for (auto &fp : plans)
    if (!fp->plan) {
      std::printf("E2 %s\n", fp->kernel.c_str());
      return;
    }
  // Sanity: the Hopper backward's gradients beside cuDNN's (first 4M elements).
  const size_t n = std::min<size_t>(p.q->bytes / 2, size_t{1} << 22);
  std::vector<std::unique_ptr<Buffer>> ref;
  plans[0]->run(p);
  cuda(cudaDeviceSynchronize(), "cudnn run");
  for (Buffer *b : {p.dq.get(), p.dk.get(), p.dv.get()}) {
    ref.push_back(std::make_unique<Buffer>(n * 2));
    cuda(cudaMemcpy(ref.back()->p, b->p, n * 2, cudaMemcpyDeviceToDevice), "keep");
  }
  for (int k : {1, 3}) {
    cuda(cudaMemset(p.dq->p, 0xff, p.dq->bytes), "poison");
    plans[k]->run(p);
    cuda(cudaDeviceSynchronize(), "run");
    std::printf("E2 check %s vs cuDNN: dq %.1e dk %.1e dv %.1e\n", names[k], rel_diff(ref[0]->p, p.dq->p, n),
                rel_diff(ref[1]->p, p.dk->p, n), rel_diff(ref[2]->p, p.dv->p, n));
  }
  for (int round = 0; round < 3; ++round)
    for (size_t i = 0; i < plans.size(); ++i) {
      char tag[8];
      std::snprintf(tag, sizeof tag, "E2%c", 'a' + round);
      timed_line(tag, names[i], s, true, plans[i]->kernel,
                 [&] { return median_ms([&] { plans[i]->run(p); }, 10); });
    }
  for (size_t i = 0; i < plans.size(); ++i)
    timed_line("E2g", names[i], s, true, "graph replay", [&] { return graph_ms(*plans[i], p); });
  for (size_t i = 0; i < 2; ++i)
    timed_line("E2p", names[i], s, true, "probe's method", [&] { return probe_ms([&] { plans[i]->run(p); }); });
  // The probe's data (real_inputs.cu: its own normal draws, out and lse
  // from a cuBLAS forward) in the same buffers.
  fill_real_inputs({s.B, s.H, s.S, s.D, s.causal, static_cast<__nv_bfloat16 *>(p.q->p),
                    static_cast<__nv_bfloat16 *>(p.k->p), static_cast<__nv_bfloat16 *>(p.v->p),
                    static_cast<__nv_bfloat16 *>(p.dout->p), static_cast<__nv_bfloat16 *>(p.out->p),
                    static_cast<float *>(p.lse->p)});
  for (size_t i = 0; i < 2; ++i) {
    timed_line("E2r", names[i], s, true, "probe's data", [&] { return median_ms([&] { plans[i]->run(p); }, 10); });
    timed_line("E2r", names[i], s, true, "probe's data and method",
               [&] { return probe_ms([&] { plans[i]->run(p); }); });
  }
  if (!idle_test) return;
  // E3: after 1 s idle, and after 1 s of the other backward.
  for (int k : {1, 0}) {
    cuda(cudaDeviceSynchronize(), "sync");
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    timed_line("E3i", names[k], s, true, "after 1 s idle", [&] { return median_ms([&] { plans[k]->run(p); }, 10); });
  }
  for (int k : {1, 0}) {
    const int other = 1 - k;
    const auto t0 = std::chrono::steady_clock::now();
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 1.0) {
      for (int j = 0; j < 20; ++j) plans[other]->run(p);
      cuda(cudaDeviceSynchronize(), "sync");
    }
    timed_line("E3h", names[k], s, true, std::string("after 1 s of ") + names[other],
               [&] { return median_ms([&] { plans[k]->run(p); }, 10); });
  }
}

}  // namespace

// bench_order diag: E1, E2 and E3 on B4 H32 S4096 D128 unmasked.
int main(int argc, char **argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::printf("bench_order: no CUDA device\n");
    return 1;
  }
  NvmlSampler nvml;
  g_nvml = &nvml;
  std::printf("nvml sampling: %s; columns: ms, TFLOP/s | mean SM MHz (min) W C clock-event reasons (0x4 SW power "
              "cap, 0x8 HW slowdown, 0x20/0x40 thermal) | kernel\n",
              nvml.active() ? "on" : "OFF");
  const Shape d128{4, 32, 4096, 128, false};
  e1(d128);
  e2(d128, true);
  return 0;
}
