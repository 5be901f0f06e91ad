// One plan shared by many host threads and streams, and a run captured in a
// CUDA graph and replayed on new data.
#include <cuda_runtime_api.h>

#include <cstring>
#include <random>
#include <vector>

#include "gpu_helpers.hpp"
#include "reference/reference.hpp"

namespace {

// A reflect pad of f32 [16, 1000] by (3, 5) on the last axis, with its own buffers.
struct PadJob {
  static constexpr int64_t kRows = 16, kCols = 1000, kLow = 3, kHigh = 5, kOut = kCols + kLow + kHigh;
  std::vector<float> x, y;
  float *dx = nullptr, *dy = nullptr;

  explicit PadJob(uint64_t seed) : x(kRows * kCols), y(kRows * kOut) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> dist(-1, 1);
    for (float &v : x) v = dist(rng);
    REQUIRE(cudaMalloc(reinterpret_cast<void **>(&dx), x.size() * 4) == cudaSuccess);
    REQUIRE(cudaMalloc(reinterpret_cast<void **>(&dy), y.size() * 4) == cudaSuccess);
    REQUIRE(cudaMemcpy(dx, x.data(), x.size() * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemset(dy, 0xFF, y.size() * 4) == cudaSuccess);  // NaN poison
  }
  ~PadJob() {
    cudaFree(dx);
    cudaFree(dy);
  }
  static baracuda_pad_desc_t desc() {
    return baracuda::check::pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_F32, BARACUDA_PAD_REFLECT, {kRows, kCols},
                                     {0, kLow}, {0, kHigh});
  }
  std::vector<baracuda_arg_t> args() const {
    const int64_t xs[2] = {kRows, kCols}, ys[2] = {kRows, kOut};
    return {{BARACUDA_ARG_X, baracuda_tensor_contiguous(dx, BARACUDA_DTYPE_F32, 2, xs)},
            {BARACUDA_ARG_Y, baracuda_tensor_contiguous(dy, BARACUDA_DTYPE_F32, 2, ys)}};
  }
  // Every output element is the reflected input element.
  bool matches() {
    if (cudaMemcpy(y.data(), dy, y.size() * 4, cudaMemcpyDeviceToHost) != cudaSuccess) return false;
    for (int64_t r = 0; r < kRows; ++r)
      for (int64_t j = 0; j < kOut; ++j) {
        const int64_t i = baracuda::reference::pad_source_index(BARACUDA_PAD_REFLECT, j, kLow, kCols);
        if (std::memcmp(&y[r * kOut + j], &x[r * kCols + i], 4) != 0) return false;
      }
    return true;
  }
};

}  // namespace

TEST_CASE("one plan runs from 8 host threads on 8 streams at once", "[gpu][concurrency]") {
  baracuda_pad_desc_t d = PadJob::desc();
  baracuda_plan_t plan = nullptr;
  REQUIRE(baracuda_plan_select(&d.header, nullptr, &plan) == BARACUDA_STATUS_SUCCESS);
  std::vector<std::unique_ptr<PadJob>> jobs;
  for (int t = 0; t < 8; ++t) jobs.push_back(std::make_unique<PadJob>(900 + t));
  const std::vector<int> status = on_threads_and_streams(8, [&](int t, cudaStream_t s) {
    const auto args = jobs[t]->args();
    int st = 0;
    for (int rep = 0; rep < 50 && st == 0; ++rep) st = baracuda_plan_run(plan, args.data(), 2, nullptr, 0, s);
    return st;
  });
  for (int t = 0; t < 8; ++t) {
    INFO("thread " << t);
    CHECK(status[t] == 0);
    CHECK(jobs[t]->matches());
  }
  baracuda_plan_destroy(plan);
}

TEST_CASE("a run captured in a CUDA graph replays on new data", "[gpu][graph]") {
  baracuda_pad_desc_t d = PadJob::desc();
  baracuda_plan_t plan = nullptr;
  REQUIRE(baracuda_plan_select(&d.header, nullptr, &plan) == BARACUDA_STATUS_SUCCESS);
  PadJob job(42);
  cudaStream_t s;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  const auto args = job.args();
  cudaGraph_t graph;
  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
  CHECK(baracuda_plan_run(plan, args.data(), 2, nullptr, 0, s) == BARACUDA_STATUS_SUCCESS);
  REQUIRE(cudaStreamEndCapture(s, &graph) == cudaSuccess);
  cudaGraphExec_t exec;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  for (int round = 0; round < 3; ++round) {
    std::mt19937_64 rng(round);
    std::uniform_real_distribution<float> dist(-5, 5);
    for (float &v : job.x) v = dist(rng);
    REQUIRE(cudaMemcpyAsync(job.dx, job.x.data(), job.x.size() * 4, cudaMemcpyHostToDevice, s) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
    CHECK(job.matches());
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  baracuda_plan_destroy(plan);
}
