// write_slice: every bad descriptor and argument gets its status and message.
#include "cpu_helpers.hpp"
#include "reference/harness.hpp"

using baracuda::check::slice_desc;

namespace {
baracuda_status_t run_status(baracuda_plan_t plan, const std::vector<baracuda_arg_t> &args) {
  return baracuda_plan_run(plan, args.data(), static_cast<int32_t>(args.size()), nullptr, 0, nullptr);
}
}  // namespace

TEST_CASE("write_slice: windows outside dest are INVALID_PROBLEM", "[write_slice][validation]") {
  baracuda_write_slice_desc_t d = slice_desc(BARACUDA_DTYPE_F32, {4, 10}, {1, 2}, {3, 11});
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"write_slice: axis 1 has start 2 and end 11 with dest_shape 10"});
  d = slice_desc(BARACUDA_DTYPE_F32, {4, 10}, {3, 2}, {2, 5});
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  d = slice_desc(BARACUDA_DTYPE_F32, {4, -1}, {0, 0}, {0, 0});
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"dest_shape[1] is -1"});
}

TEST_CASE("write_slice: rank and dtype are checked", "[write_slice][validation]") {
  baracuda_write_slice_desc_t d = slice_desc(BARACUDA_DTYPE_F32, {4}, {0}, {2});
  d.rank = 9;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  d.rank = 1;
  d.dtype = BARACUDA_DTYPE_BIN;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_UNSUPPORTED);
  require_message({"bin is not served"});
  d.dtype = 42;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  d.dtype = BARACUDA_DTYPE_U4;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_SUCCESS);
  d.header.struct_size = 12;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
}

TEST_CASE("write_slice: SOURCE must have the window's shape", "[write_slice][validation]") {
  baracuda_write_slice_desc_t d = slice_desc(BARACUDA_DTYPE_BF16, {4, 10}, {1, 2}, {3, 9});
  TestPlan p(&d.header);
  const baracuda_tensor_t dest = tensor(BARACUDA_DTYPE_BF16, {4, 10});
  CHECK(run_status(p.plan, {{BARACUDA_ARG_DEST, dest}, {BARACUDA_ARG_SOURCE, tensor(BARACUDA_DTYPE_BF16, {2, 8})}}) ==
        BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"write_slice: arg SOURCE shape[1] is 8, descriptor says 7"});
  CHECK(run_status(p.plan, {{BARACUDA_ARG_DEST, dest}, {BARACUDA_ARG_SOURCE, tensor(BARACUDA_DTYPE_F16, {2, 7})}}) ==
        BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg SOURCE dtype is f16"});
  CHECK(run_status(p.plan, {{BARACUDA_ARG_SOURCE, tensor(BARACUDA_DTYPE_BF16, {2, 7})}}) ==
        BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"required arg DEST is missing"});
}

TEST_CASE("write_slice: DEST may not broadcast and must be aligned", "[write_slice][validation]") {
  baracuda_write_slice_desc_t d = slice_desc(BARACUDA_DTYPE_F64, {4, 10}, {1, 2}, {3, 9});
  TestPlan p(&d.header);
  const baracuda_tensor_t src = tensor(BARACUDA_DTYPE_F64, {2, 7});
  baracuda_tensor_t dest = tensor(BARACUDA_DTYPE_F64, {4, 10});
  dest.strides[0] = 0;
  CHECK(run_status(p.plan, {{BARACUDA_ARG_DEST, dest}, {BARACUDA_ARG_SOURCE, src}}) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg DEST strides[0] is 0"});
  dest = tensor(BARACUDA_DTYPE_F64, {4, 10}, 4);
  CHECK(run_status(p.plan, {{BARACUDA_ARG_DEST, dest}, {BARACUDA_ARG_SOURCE, src}}) ==
        BARACUDA_STATUS_MISALIGNED_OPERAND);
  require_message({"arg DEST data", "8 bytes"});
  dest = tensor(BARACUDA_DTYPE_F64, {4, 10});
  dest.capacity = 39;
  CHECK(run_status(p.plan, {{BARACUDA_ARG_DEST, dest}, {BARACUDA_ARG_SOURCE, src}}) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"capacity is 39"});
}

TEST_CASE("write_slice: S4 dest and source may have any strides", "[write_slice][validation]") {
  baracuda_write_slice_desc_t d = slice_desc(BARACUDA_DTYPE_S4, {4, 10}, {1, 3}, {3, 8});
  TestPlan p(&d.header);
  baracuda_tensor_t dest = tensor(BARACUDA_DTYPE_S4, {4, 10});
  dest.strides[1] = 2;
  dest.strides[0] = 20;
  dest.capacity = 0;
  CHECK(baracuda_plan_check(p.plan,
                            std::vector<baracuda_arg_t>{{BARACUDA_ARG_DEST, dest},
                                                        {BARACUDA_ARG_SOURCE, tensor(BARACUDA_DTYPE_S4, {2, 5})}}
                                .data(),
                            2) == BARACUDA_STATUS_SUCCESS);
}

TEST_CASE("write_slice: an empty window succeeds without a launch", "[write_slice][validation]") {
  baracuda_write_slice_desc_t d = slice_desc(BARACUDA_DTYPE_U8, {4, 10}, {1, 2}, {1, 9});
  TestPlan p(&d.header);
  baracuda_tensor_t src = tensor(BARACUDA_DTYPE_U8, {0, 7});
  src.data = nullptr;
  CHECK(run_status(p.plan, {{BARACUDA_ARG_DEST, tensor(BARACUDA_DTYPE_U8, {4, 10})}, {BARACUDA_ARG_SOURCE, src}}) ==
        BARACUDA_STATUS_SUCCESS);
}
