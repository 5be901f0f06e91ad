// Runs one op through the C ABI on random device data and compares every
// byte of the output buffers with the CPU reference: values inside the view,
// and the untouched poison (or prior contents) outside it. Shared by the GPU
// suite and `baracuda check`.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "baracuda/baracuda.h"

namespace baracuda::check {

enum class Layout {
  Contiguous,
  Gapped,        // row-major over shape + 1 on every axis: gaps that must stay untouched
  InnerStride2,  // every stride doubled, so the innermost one is 2
  ColumnMajor,   // first axis fastest (e.g. channels-last views)
  Broadcast,     // stride 0 on axis 0 (inputs only)
  Offset,        // contiguous, data one element past a 16-byte boundary
};
const char *layout_name(Layout l);

struct Result {
  bool ok = true;
  std::string detail;  // why not, when !ok
};

struct PadCase {
  baracuda_pad_desc_t desc;  // header.op chooses forward or backward
  Layout in_layout = Layout::Contiguous;
  Layout out_layout = Layout::Contiguous;
  uint64_t seed = 1;
  bool repeat_bitwise = true;  // run twice, expect identical bytes
};

struct SliceCase {
  baracuda_write_slice_desc_t desc;
  Layout dest_layout = Layout::Contiguous;
  Layout source_layout = Layout::Contiguous;
  uint64_t seed = 1;
};

Result run_pad(const PadCase &c, cudaStream_t stream = nullptr);
Result run_write_slice(const SliceCase &c, cudaStream_t stream = nullptr);

std::string describe(const PadCase &c);
std::string describe(const SliceCase &c);

// Short descriptor builders.
baracuda_pad_desc_t pad_desc(int32_t op, baracuda_dtype_t dtype, int32_t mode, std::vector<int64_t> shape,
                             std::vector<int64_t> low, std::vector<int64_t> high, double value = 0.0);
baracuda_write_slice_desc_t slice_desc(baracuda_dtype_t dtype, std::vector<int64_t> dest_shape,
                                       std::vector<int64_t> start, std::vector<int64_t> end);

// One small case per op x dtype, for `baracuda check`.
struct NamedCase {
  std::string op;
  std::string dtype;
  std::function<Result()> run;
};
std::vector<NamedCase> smoke_cases();

// Tolerance of max-abs-error over max-abs-reference (DESIGN.md section 5).
double tolerance(baracuda_dtype_t dtype);

// Whether this build has code for sm (machine code of its major version, or
// older PTX), so that select accepts target_sm = sm.
bool build_serves(int32_t sm);

}  // namespace baracuda::check
