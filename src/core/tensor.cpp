#include "core/tensor.hpp"

#include <cstdint>

#include "core/checked_math.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"

namespace baracuda {

namespace {

// Offset of the view's last element; saturated past kMaxExtent (strides are
// non-negative here, so the partial sums only grow).
int128 last_element(const baracuda_tensor_t &t, int32_t rank) {
  int128 last = 0;
  for (int32_t d = 0; d < rank && last <= kMaxExtent; ++d) last += static_cast<int128>(t.shape[d] - 1) * t.strides[d];
  return last;
}

}  // namespace

void validate_tensor(const baracuda_tensor_t &t, const TensorExpect &e) {
  constexpr int32_t invalid = BARACUDA_STATUS_INVALID_PROBLEM;
  if (t.dtype != e.dtype)
    fail(invalid, e.op, ": arg ", e.role, " dtype is ", dtype_name(t.dtype), ", descriptor says ", dtype_name(e.dtype));
  if (t.rank != e.rank) fail(invalid, e.op, ": arg ", e.role, " rank is ", t.rank, ", descriptor says ", e.rank);
  for (int32_t d = 0; d < e.rank; ++d)
    if (t.shape[d] != e.shape[d])
      fail(invalid, e.op, ": arg ", e.role, " shape[", d, "] is ", t.shape[d], ", descriptor says ", e.shape[d]);
  // An empty output writes nothing, so it cannot overlap itself (and
  // baracuda_tensor_contiguous gives the axes outside a 0 extent stride 0).
  const bool empty = element_count(e.rank, e.shape) == 0;
  for (int32_t d = 0; d < e.rank; ++d) {
    if (t.strides[d] < 0)
      fail(BARACUDA_STATUS_UNSUPPORTED, e.op, ": arg ", e.role, " strides[", d, "] is ", t.strides[d],
           "; negative strides are not served");
    if (e.written && !empty && t.strides[d] == 0 && t.shape[d] > 1)
      fail(invalid, e.op, ": arg ", e.role, " strides[", d, "] is 0 over extent ", t.shape[d],
           ", but ", e.role, " is written and may not broadcast");
  }
  if (empty) return;
  if (t.data == nullptr) fail(invalid, e.op, ": arg ", e.role, " data is NULL");
  const int32_t bytes = dtype_bytes(e.dtype);
  if (bytes > 1 && reinterpret_cast<uintptr_t>(t.data) % static_cast<uintptr_t>(bytes) != 0)
    fail(BARACUDA_STATUS_MISALIGNED_OPERAND, e.op, ": arg ", e.role, " data ", t.data, " is not aligned to ", bytes,
         " bytes (", dtype_name(e.dtype), ")");
  if (t.capacity < 0) fail(invalid, e.op, ": arg ", e.role, " capacity is ", t.capacity, ", must be >= 0");
  // Bounding the last offset bounds every offset a kernel forms from these strides.
  const int128 last = last_element(t, e.rank);
  if (last > kMaxExtent)
    fail(invalid, e.op, ": arg ", e.role, " reaches beyond element 2^62 (its strides are too large for its shape)");
  if (t.capacity > 0 && last >= t.capacity)
    fail(invalid, e.op, ": arg ", e.role, " reaches element ", to_decimal(last), " but capacity is ", t.capacity);
}

}  // namespace baracuda
