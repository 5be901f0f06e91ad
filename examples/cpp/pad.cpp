// The same header from C++: a plan held by a unique_ptr, errors as exceptions.
// Exits 77 where there is no GPU.
#include <baracuda/baracuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct PlanDeleter {
  void operator()(baracuda_plan_s *p) const { baracuda_plan_destroy(p); }
};
using Plan = std::unique_ptr<baracuda_plan_s, PlanDeleter>;

void ok(baracuda_status_t s) {
  if (s != BARACUDA_STATUS_SUCCESS)
    throw std::runtime_error(std::string(baracuda_status_string(s)) + ": " + baracuda_last_error_message());
}

void cuda(cudaError_t e) {
  if (e != cudaSuccess) throw std::runtime_error(cudaGetErrorString(e));
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("no CUDA device: skipped");
    return 77;
  }
  try {
    const int64_t n = 1000, low = 2, high = 5;
    std::vector<double> x(n), y(n + low + high);
    for (int64_t i = 0; i < n; ++i) x[i] = 0.5 * static_cast<double>(i) - 100.0;
    double *dx = nullptr, *dy = nullptr;
    cuda(cudaMalloc(reinterpret_cast<void **>(&dx), x.size() * sizeof(double)));
    cuda(cudaMalloc(reinterpret_cast<void **>(&dy), y.size() * sizeof(double)));
    cuda(cudaMemcpy(dx, x.data(), x.size() * sizeof(double), cudaMemcpyHostToDevice));

    baracuda_pad_desc_t desc = BARACUDA_PAD_DESC_INIT;
    desc.dtype = BARACUDA_DTYPE_F64;
    desc.mode = BARACUDA_PAD_CONSTANT;
    desc.rank = 1;
    desc.input_shape[0] = n;
    desc.pad_low[0] = low;
    desc.pad_high[0] = high;
    desc.value = 3.25;
    baracuda_plan_t raw = nullptr;
    ok(baracuda_plan_select(&desc.header, nullptr, &raw));
    Plan plan(raw);
    const int64_t xs[1] = {n}, ys[1] = {n + low + high};
    const baracuda_arg_t args[2] = {{BARACUDA_ARG_X, baracuda_tensor_contiguous(dx, BARACUDA_DTYPE_F64, 1, xs)},
                                    {BARACUDA_ARG_Y, baracuda_tensor_contiguous(dy, BARACUDA_DTYPE_F64, 1, ys)}};
    ok(baracuda_plan_run(plan.get(), args, 2, nullptr, 0, nullptr));
    cuda(cudaMemcpy(y.data(), dy, y.size() * sizeof(double), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int64_t j = 0; j < n + low + high; ++j) bad += y[j] != (j < low || j >= n + low ? 3.25 : x[j - low]);
    cudaFree(dx);
    cudaFree(dy);
    std::printf("C++ example: constant pad %s\n", bad ? "WRONG" : "ok");
    return bad ? 1 : 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "C++ example: %s\n", e.what());
    return 1;
  }
}
