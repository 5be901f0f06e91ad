// Helpers for the CPU suite: plans are selected for a named arch, so no GPU
// is touched, and failures are checked for both status and message.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "baracuda/baracuda.h"
#include "reference/harness.hpp"

inline baracuda_select_options_t options_for(int32_t sm) {
  baracuda_select_options_t o = BARACUDA_SELECT_OPTIONS_INIT;
  o.target_sm = sm;
  return o;
}

using baracuda::check::build_serves;

// Selects for sm 90; REQUIREs success.
struct TestPlan {
  baracuda_plan_t plan = nullptr;
  explicit TestPlan(const baracuda_op_header_t *desc) {
    const baracuda_select_options_t o = options_for(90);
    const baracuda_status_t s = baracuda_plan_select(desc, &o, &plan);
    INFO(baracuda_last_error_message());
    REQUIRE(s == BARACUDA_STATUS_SUCCESS);
  }
  ~TestPlan() { baracuda_plan_destroy(plan); }
  TestPlan(const TestPlan &) = delete;
  TestPlan &operator=(const TestPlan &) = delete;
};

inline baracuda_status_t select_status(const baracuda_op_header_t *desc) {
  const baracuda_select_options_t o = options_for(90);
  baracuda_plan_t plan = reinterpret_cast<baracuda_plan_t>(1);
  const baracuda_status_t s = baracuda_plan_select(desc, &o, &plan);
  if (s == BARACUDA_STATUS_SUCCESS) baracuda_plan_destroy(plan);
  else CHECK(plan == nullptr);
  return s;
}

// The last error message contains every one of the fragments.
inline void require_message(const std::vector<std::string> &fragments) {
  const std::string msg = baracuda_last_error_message();
  INFO("message: " << msg);
  for (const auto &f : fragments) CHECK(msg.find(f) != std::string::npos);
}

// A fake, suitably aligned device address: validation never dereferences it.
inline void *fake_device_pointer(uintptr_t offset = 0) { return reinterpret_cast<void *>(uintptr_t{1} << 40 | offset); }

inline baracuda_tensor_t tensor(baracuda_dtype_t dtype, std::vector<int64_t> shape, uintptr_t offset = 0) {
  return baracuda_tensor_contiguous(fake_device_pointer(offset), dtype, static_cast<int32_t>(shape.size()),
                                    shape.data());
}

// t with other strides, its capacity unchecked.
inline baracuda_tensor_t strided(baracuda_tensor_t t, std::vector<int64_t> strides) {
  for (size_t d = 0; d < strides.size(); ++d) t.strides[d] = strides[d];
  t.capacity = 0;
  return t;
}
