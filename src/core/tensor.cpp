#include "core/tensor.hpp"

#include <cstdint>

#include "core/dtype.hpp"
#include "core/error.hpp"

namespace baracuda {

int64_t shape_numel(int32_t rank, const int64_t *shape) {
  int64_t n = 1;
  for (int32_t d = 0; d < rank; ++d) n *= shape[d];
  return n;
}

void validate_tensor(const baracuda_tensor_t &t, const TensorExpect &e) {
  constexpr int32_t invalid = BARACUDA_STATUS_INVALID_PROBLEM;
  if (t.dtype != e.dtype)
    fail(invalid, e.op, ": arg ", e.role, " dtype is ", dtype_name(t.dtype), ", descriptor says ", dtype_name(e.dtype));
  if (t.rank != e.rank) fail(invalid, e.op, ": arg ", e.role, " rank is ", t.rank, ", descriptor says ", e.rank);
  for (int32_t d = 0; d < e.rank; ++d)
    if (t.shape[d] != e.shape[d])
      fail(invalid, e.op, ": arg ", e.role, " shape[", d, "] is ", t.shape[d], ", descriptor says ", e.shape[d]);
  for (int32_t d = 0; d < e.rank; ++d) {
    if (t.strides[d] < 0)
      fail(BARACUDA_STATUS_UNSUPPORTED, e.op, ": arg ", e.role, " strides[", d, "] is ", t.strides[d],
           "; negative strides are not served");
    if (e.written && t.strides[d] == 0 && t.shape[d] > 1)
      fail(invalid, e.op, ": arg ", e.role, " strides[", d, "] is 0 over extent ", t.shape[d],
           ", but ", e.role, " is written and may not broadcast");
  }
  if (shape_numel(e.rank, e.shape) == 0) return;
  if (t.data == nullptr) fail(invalid, e.op, ": arg ", e.role, " data is NULL");
  const int32_t bytes = dtype_bytes(e.dtype);
  if (bytes > 1 && reinterpret_cast<uintptr_t>(t.data) % static_cast<uintptr_t>(bytes) != 0)
    fail(BARACUDA_STATUS_MISALIGNED_OPERAND, e.op, ": arg ", e.role, " data ", t.data, " is not aligned to ", bytes,
         " bytes (", dtype_name(e.dtype), ")");
  if (t.capacity < 0) fail(invalid, e.op, ": arg ", e.role, " capacity is ", t.capacity, ", must be >= 0");
  if (t.capacity > 0) {
    // 128-bit so that absurd strides cannot wrap around and pass.
    __int128 last = 0;
    for (int32_t d = 0; d < e.rank; ++d) last += static_cast<__int128>(t.shape[d] - 1) * t.strides[d];
    if (last >= t.capacity)
      fail(invalid, e.op, ": arg ", e.role, " reaches element ", static_cast<long long>(last), " but capacity is ",
           t.capacity);
  }
}

}  // namespace baracuda
