// pad and pad_backward: every bad descriptor and argument gets its status
// and a message naming the argument.
#include "cpu_helpers.hpp"
#include "reference/harness.hpp"

using baracuda::check::pad_desc;

namespace {

baracuda_pad_desc_t reflect_f32() {
  return pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_F32, BARACUDA_PAD_REFLECT, {2, 3, 8}, {0, 1, 3}, {1, 2, 5});
}

baracuda_status_t run_status(baracuda_plan_t plan, const std::vector<baracuda_arg_t> &args) {
  const baracuda_status_t checked = baracuda_plan_check(plan, args.data(), static_cast<int32_t>(args.size()));
  const baracuda_status_t ran =
      baracuda_plan_run(plan, args.data(), static_cast<int32_t>(args.size()), nullptr, 0, nullptr);
  CHECK(checked == ran);
  return ran;
}

}  // namespace

TEST_CASE("pad: rank 0 and rank over 8 are INVALID_PROBLEM", "[pad][validation]") {
  baracuda_pad_desc_t d = reflect_f32();
  d.rank = 0;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"pad", "rank is 0"});
  d.rank = 9;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"rank is 9"});
}

TEST_CASE("pad: a negative input extent is INVALID_PROBLEM", "[pad][validation]") {
  baracuda_pad_desc_t d = reflect_f32();
  d.input_shape[1] = -3;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"input_shape[1] is -3"});
}

TEST_CASE("pad: dtype 0 is INVALID_PROBLEM, packed dtypes UNSUPPORTED", "[pad][validation]") {
  baracuda_pad_desc_t d = reflect_f32();
  d.dtype = 0;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"dtype 0 is not a dtype"});
  d.dtype = BARACUDA_DTYPE_S4;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_UNSUPPORTED);
  require_message({"s4 is not served"});
}

TEST_CASE("pad: an unknown mode and a non-zero reserved field are INVALID_PROBLEM", "[pad][validation]") {
  baracuda_pad_desc_t d = reflect_f32();
  d.mode = 9;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"mode is 9"});
  d = reflect_f32();
  d.reserved0 = 1;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"reserved0"});
}

TEST_CASE("pad: reflect needs pad < extent, circular pad <= extent", "[pad][validation]") {
  baracuda_pad_desc_t d = reflect_f32();
  d.pad_high[2] = 8;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"reflect needs pad < input extent", "axis 2"});
  d.mode = BARACUDA_PAD_CIRCULAR;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_SUCCESS);
  d.pad_high[2] = 9;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"circular needs pad <= input extent"});
}

TEST_CASE("pad: replicate of an empty axis is INVALID_PROBLEM", "[pad][validation]") {
  baracuda_pad_desc_t d = pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_F32, BARACUDA_PAD_REPLICATE, {0, 4}, {1, 0}, {0, 0});
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"replicate has nothing to repeat"});
}

TEST_CASE("pad: negative pads crop in constant mode only", "[pad][validation]") {
  baracuda_pad_desc_t d = pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_F32, BARACUDA_PAD_CONSTANT, {10}, {-3}, {-2});
  CHECK(select_status(&d.header) == BARACUDA_STATUS_SUCCESS);
  d.pad_high[0] = -8;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"output extent is -1"});
  d = pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_F32, BARACUDA_PAD_REPLICATE, {10}, {-3}, {0});
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"only constant mode crops"});
}

TEST_CASE("pad: the constant must fit the dtype", "[pad][validation]") {
  baracuda_pad_desc_t d = pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_U8, BARACUDA_PAD_CONSTANT, {4}, {1}, {1}, 256);
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"pad: value is 256"});
  d.value = 2.5;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  d.dtype = BARACUDA_DTYPE_F16;
  d.value = 1e6;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"beyond the range of f16"});
  d.dtype = BARACUDA_DTYPE_FP8_E4M3;
  d.value = 1.0 / 0.0;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"no infinity"});
  d.dtype = BARACUDA_DTYPE_F32;
  d.value_imag = 1;
  d.value = 0;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"imaginary"});
  d.dtype = BARACUDA_DTYPE_COMPLEX32;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_SUCCESS);
}

TEST_CASE("pad_backward serves float dtypes only", "[pad][validation]") {
  baracuda_pad_desc_t d = reflect_f32();
  d.header.op = BARACUDA_OP_PAD_BACKWARD;
  for (baracuda_dtype_t t : {BARACUDA_DTYPE_F32, BARACUDA_DTYPE_F16, BARACUDA_DTYPE_BF16, BARACUDA_DTYPE_F64}) {
    d.dtype = t;
    CHECK(select_status(&d.header) == BARACUDA_STATUS_SUCCESS);
  }
  d.dtype = BARACUDA_DTYPE_I32;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_UNSUPPORTED);
  require_message({"pad_backward", "i32 is not served"});
}

TEST_CASE("pad: missing, unknown and repeated roles are INVALID_PROBLEM", "[pad][validation]") {
  baracuda_pad_desc_t d = reflect_f32();
  TestPlan p(&d.header);
  const baracuda_tensor_t x = tensor(BARACUDA_DTYPE_F32, {2, 3, 8});
  const baracuda_tensor_t y = tensor(BARACUDA_DTYPE_F32, {3, 6, 16});
  CHECK(run_status(p.plan, {{BARACUDA_ARG_X, x}}) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"pad: required arg Y is missing"});
  CHECK(run_status(p.plan, {{BARACUDA_ARG_X, x}, {BARACUDA_ARG_Y, y}, {BARACUDA_ARG_DW, y}}) ==
        BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"args[2] has role 7 (DW)", "takes X, Y"});
  CHECK(run_status(p.plan, {{BARACUDA_ARG_X, x}, {BARACUDA_ARG_X, x}}) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg X is given twice"});
  CHECK(baracuda_plan_run(p.plan, nullptr, 2, nullptr, 0, nullptr) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"args is NULL"});
  CHECK(run_status(p.plan, {}) == BARACUDA_STATUS_INVALID_PROBLEM);
  baracuda_arg_t one{BARACUDA_ARG_X, x};
  CHECK(baracuda_plan_run(p.plan, &one, -1, nullptr, 0, nullptr) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"num_args is -1"});
}

TEST_CASE("pad: dtype, rank and shape mismatches name the argument", "[pad][validation]") {
  baracuda_pad_desc_t d = reflect_f32();
  TestPlan p(&d.header);
  const baracuda_tensor_t x = tensor(BARACUDA_DTYPE_F32, {2, 3, 8});
  CHECK(run_status(p.plan, {{BARACUDA_ARG_X, x}, {BARACUDA_ARG_Y, tensor(BARACUDA_DTYPE_F16, {3, 6, 16})}}) ==
        BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"pad: arg Y dtype is f16, descriptor says f32"});
  CHECK(run_status(p.plan, {{BARACUDA_ARG_X, x}, {BARACUDA_ARG_Y, tensor(BARACUDA_DTYPE_F32, {3, 6})}}) ==
        BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg Y rank is 2, descriptor says 3"});
  CHECK(run_status(p.plan, {{BARACUDA_ARG_X, x}, {BARACUDA_ARG_Y, tensor(BARACUDA_DTYPE_F32, {3, 7, 16})}}) ==
        BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"pad: arg Y shape[1] is 7, descriptor says 6"});
  baracuda_tensor_t rank9 = x;
  rank9.rank = 9;
  CHECK(run_status(p.plan, {{BARACUDA_ARG_X, rank9}, {BARACUDA_ARG_Y, tensor(BARACUDA_DTYPE_F32, {3, 6, 16})}}) ==
        BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg X rank is 9"});
}

TEST_CASE("pad: NULL data, misalignment, small capacity, bad strides", "[pad][validation]") {
  baracuda_pad_desc_t d = reflect_f32();
  TestPlan p(&d.header);
  const baracuda_tensor_t y = tensor(BARACUDA_DTYPE_F32, {3, 6, 16});
  baracuda_tensor_t x = tensor(BARACUDA_DTYPE_F32, {2, 3, 8});
  x.data = nullptr;
  CHECK(run_status(p.plan, {{BARACUDA_ARG_X, x}, {BARACUDA_ARG_Y, y}}) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg X data is NULL"});
  x = tensor(BARACUDA_DTYPE_F32, {2, 3, 8}, 2);
  CHECK(run_status(p.plan, {{BARACUDA_ARG_X, x}, {BARACUDA_ARG_Y, y}}) == BARACUDA_STATUS_MISALIGNED_OPERAND);
  require_message({"arg X data", "not aligned to 4 bytes"});
  x = tensor(BARACUDA_DTYPE_F32, {2, 3, 8});
  x.capacity = 47;
  CHECK(run_status(p.plan, {{BARACUDA_ARG_X, x}, {BARACUDA_ARG_Y, y}}) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg X reaches element 47 but capacity is 47"});
  x.capacity = -1;
  CHECK(run_status(p.plan, {{BARACUDA_ARG_X, x}, {BARACUDA_ARG_Y, y}}) == BARACUDA_STATUS_INVALID_PROBLEM);
  x = tensor(BARACUDA_DTYPE_F32, {2, 3, 8});
  x.strides[0] = -24;
  CHECK(run_status(p.plan, {{BARACUDA_ARG_X, x}, {BARACUDA_ARG_Y, y}}) == BARACUDA_STATUS_UNSUPPORTED);
  require_message({"arg X strides[0] is -24"});
  baracuda_tensor_t y_broadcast = y;
  y_broadcast.strides[0] = 0;
  CHECK(run_status(p.plan, {{BARACUDA_ARG_X, tensor(BARACUDA_DTYPE_F32, {2, 3, 8})}, {BARACUDA_ARG_Y, y_broadcast}}) ==
        BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg Y strides[0] is 0", "may not broadcast"});
}

TEST_CASE("pad: an input broadcast by stride 0 is accepted", "[pad][validation]") {
  baracuda_pad_desc_t d = reflect_f32();
  TestPlan p(&d.header);
  baracuda_tensor_t x = tensor(BARACUDA_DTYPE_F32, {2, 3, 8});
  x.strides[0] = 0;
  CHECK(baracuda_plan_check(p.plan, std::vector<baracuda_arg_t>{{BARACUDA_ARG_X, x},
                                                                 {BARACUDA_ARG_Y, tensor(BARACUDA_DTYPE_F32, {3, 6, 16})}}
                                        .data(),
                            2) == BARACUDA_STATUS_SUCCESS);
}

TEST_CASE("pad: a zero-size problem succeeds without a launch", "[pad][validation]") {
  baracuda_pad_desc_t d = pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_F32, BARACUDA_PAD_CONSTANT, {0, 5}, {0, 1}, {0, 1});
  TestPlan p(&d.header);
  baracuda_tensor_t x = tensor(BARACUDA_DTYPE_F32, {0, 5});
  baracuda_tensor_t y = tensor(BARACUDA_DTYPE_F32, {0, 7});
  x.data = y.data = nullptr;
  CHECK(run_status(p.plan, {{BARACUDA_ARG_X, x}, {BARACUDA_ARG_Y, y}}) == BARACUDA_STATUS_SUCCESS);
}

TEST_CASE("pad: no plan needs workspace, so any workspace is enough", "[pad][validation]") {
  baracuda_pad_desc_t d = pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_F32, BARACUDA_PAD_CONSTANT, {0}, {0}, {0});
  TestPlan p(&d.header);
  size_t need = 1;
  REQUIRE(baracuda_plan_workspace_size(p.plan, &need) == BARACUDA_STATUS_SUCCESS);
  CHECK(need == 0);
  baracuda_tensor_t x = tensor(BARACUDA_DTYPE_F32, {0});
  const baracuda_arg_t args[2] = {{BARACUDA_ARG_X, x}, {BARACUDA_ARG_Y, x}};
  CHECK(baracuda_plan_run(p.plan, args, 2, nullptr, 0, nullptr) == BARACUDA_STATUS_SUCCESS);
}
