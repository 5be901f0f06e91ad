// The ABI functions themselves: names, version, registry, plan life cycle
// and their NULL / struct_size failures.
#include <cstring>

#include "cpu_helpers.hpp"
#include "reference/harness.hpp"

using baracuda::check::pad_desc;

TEST_CASE("status_string names every library status and negated CUDA errors", "[abi]") {
  CHECK(std::string(baracuda_status_string(0)) == "SUCCESS");
  CHECK(std::string(baracuda_status_string(1)) == "MISALIGNED_OPERAND");
  CHECK(std::string(baracuda_status_string(2)) == "INVALID_PROBLEM");
  CHECK(std::string(baracuda_status_string(3)) == "UNSUPPORTED");
  CHECK(std::string(baracuda_status_string(4)) == "WORKSPACE_TOO_SMALL");
  CHECK(std::string(baracuda_status_string(-2)) == "cudaErrorMemoryAllocation");
  CHECK(std::string(baracuda_status_string(99)) == "UNKNOWN_STATUS");
}

TEST_CASE("version is major*10000 + minor*100 + patch and matches the build info", "[abi]") {
  baracuda_build_info_t b = BARACUDA_BUILD_INFO_INIT;
  REQUIRE(baracuda_get_build_info(&b) == BARACUDA_STATUS_SUCCESS);
  CHECK(b.version == baracuda_version());
  CHECK(baracuda_version() == 100);
  CHECK(b.num_sass_archs >= 1);
  CHECK(b.ptx_arch >= 80);
}

TEST_CASE("dtype names and widths follow the fixed dtype table", "[abi]") {
  CHECK(std::string(baracuda_dtype_name(BARACUDA_DTYPE_BF16)) == "bf16");
  CHECK(std::string(baracuda_dtype_name(0)) == "invalid");
  CHECK(std::string(baracuda_dtype_name(BARACUDA_DTYPE_COUNT)) == "invalid");
  CHECK(baracuda_dtype_bits(BARACUDA_DTYPE_S4) == 4);
  CHECK(baracuda_dtype_bits(BARACUDA_DTYPE_COMPLEX64) == 128);
  CHECK(baracuda_dtype_bits(BARACUDA_DTYPE_BIN) == 1);
  CHECK(baracuda_dtype_bits(-1) == 0);
}

TEST_CASE("the registry lists every op with its dtypes", "[abi]") {
  REQUIRE(baracuda_op_list(nullptr, 0) == 10);
  int32_t ops[10];
  REQUIRE(baracuda_op_list(ops, 10) == 10);
  CHECK(std::string(baracuda_op_name(ops[0])) == "pad");
  CHECK(std::string(baracuda_op_name(ops[1])) == "pad_backward");
  CHECK(std::string(baracuda_op_name(ops[2])) == "write_slice");
  CHECK(std::string(baracuda_op_name(ops[3])) == "causal_conv1d");
  CHECK(std::string(baracuda_op_name(ops[4])) == "causal_conv1d_backward");
  CHECK(std::string(baracuda_op_name(ops[5])) == "causal_conv1d_update");
  CHECK(std::string(baracuda_op_name(ops[6])) == "alibi");
  CHECK(std::string(baracuda_op_name(ops[7])) == "alibi_backward");
  CHECK(std::string(baracuda_op_name(ops[8])) == "sdpa");
  CHECK(std::string(baracuda_op_name(ops[9])) == "sdpa_backward");
  CHECK(baracuda_op_dtype_mask(BARACUDA_OP_CAUSAL_CONV1D) ==
        ((1u << BARACUDA_DTYPE_F32) | (1u << BARACUDA_DTYPE_F16) | (1u << BARACUDA_DTYPE_BF16) | (1u << BARACUDA_DTYPE_F64)));
  CHECK(baracuda_op_name(999) == nullptr);
  CHECK((baracuda_op_dtype_mask(BARACUDA_OP_PAD) >> BARACUDA_DTYPE_S4 & 1) == 0);
  CHECK((baracuda_op_dtype_mask(BARACUDA_OP_WRITE_SLICE) >> BARACUDA_DTYPE_S4 & 1) == 1);
  CHECK((baracuda_op_dtype_mask(BARACUDA_OP_PAD_BACKWARD) >> BARACUDA_DTYPE_I32 & 1) == 0);
  CHECK(baracuda_op_dtype_mask(999) == 0);
}

TEST_CASE("the contiguous tensor helper fills row-major strides and capacity", "[abi]") {
  const int64_t shape[3] = {2, 3, 5};
  baracuda_tensor_t t = baracuda_tensor_contiguous(nullptr, BARACUDA_DTYPE_F32, 3, shape);
  CHECK(t.strides[0] == 15);
  CHECK(t.strides[1] == 5);
  CHECK(t.strides[2] == 1);
  CHECK(t.capacity == 30);
  CHECK(t.shape[3] == 0);
}

TEST_CASE("select rejects NULL desc, NULL out_plan and unknown ops", "[abi]") {
  baracuda_plan_t plan;
  CHECK(baracuda_plan_select(nullptr, nullptr, &plan) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"desc is NULL"});
  baracuda_pad_desc_t d = pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_F32, 0, {4}, {1}, {1});
  CHECK(baracuda_plan_select(&d.header, nullptr, nullptr) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"out_plan is NULL"});
  d.header.op = 77;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"op 77"});
}

TEST_CASE("plan functions reject a NULL plan", "[abi]") {
  size_t bytes = 0;
  baracuda_plan_info_t info = BARACUDA_PLAN_INFO_INIT;
  CHECK(baracuda_plan_workspace_size(nullptr, &bytes) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"plan is NULL"});
  CHECK(baracuda_plan_check(nullptr, nullptr, 0) == BARACUDA_STATUS_INVALID_PROBLEM);
  CHECK(baracuda_plan_run(nullptr, nullptr, 0, nullptr, 0, nullptr) == BARACUDA_STATUS_INVALID_PROBLEM);
  CHECK(baracuda_plan_get_info(nullptr, &info) == BARACUDA_STATUS_INVALID_PROBLEM);
  baracuda_plan_destroy(nullptr);
}

TEST_CASE("workspace_size and get_info reject NULL outputs", "[abi]") {
  baracuda_pad_desc_t d = pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_F32, 0, {4}, {1}, {1});
  TestPlan p(&d.header);
  CHECK(baracuda_plan_workspace_size(p.plan, nullptr) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"bytes is NULL"});
  CHECK(baracuda_plan_get_info(p.plan, nullptr) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"info is NULL"});
}

TEST_CASE("plan info reports op, dtype, arch, backend and guarantees", "[abi]") {
  baracuda_pad_desc_t d = pad_desc(BARACUDA_OP_PAD_BACKWARD, BARACUDA_DTYPE_BF16, BARACUDA_PAD_REFLECT, {4, 9},
                                   {0, 2}, {0, 3});
  TestPlan p(&d.header);
  baracuda_plan_info_t info = BARACUDA_PLAN_INFO_INIT;
  REQUIRE(baracuda_plan_get_info(p.plan, &info) == BARACUDA_STATUS_SUCCESS);
  CHECK(info.op == BARACUDA_OP_PAD_BACKWARD);
  CHECK(info.dtype == BARACUDA_DTYPE_BF16);
  CHECK(info.target_sm == 90);
  CHECK(info.backend == BARACUDA_BACKEND_BESPOKE);
  CHECK(info.math_precision == BARACUDA_DTYPE_F32);
  CHECK(info.accumulator == BARACUDA_DTYPE_F32);
  CHECK(info.deterministic == 1);
  CHECK(info.bit_stable == 1);
  CHECK(info.workspace_bytes == 0);
  CHECK(std::string(info.kernel_name) == "pad_backward_rows_bf16_reflect");
  size_t bytes = 1;
  CHECK(baracuda_plan_workspace_size(p.plan, &bytes) == BARACUDA_STATUS_SUCCESS);
  CHECK(bytes == 0);
}

TEST_CASE("get_info rejects a struct_size smaller than the published one", "[abi]") {
  baracuda_pad_desc_t d = pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_F32, 0, {4}, {1}, {1});
  TestPlan p(&d.header);
  baracuda_plan_info_t info = BARACUDA_PLAN_INFO_INIT;
  info.struct_size = 8;
  CHECK(baracuda_plan_get_info(p.plan, &info) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"struct_size is 8"});
}

TEST_CASE("a descriptor struct_size smaller than published is INVALID_PROBLEM", "[abi]") {
  baracuda_pad_desc_t d = pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_F32, 0, {4}, {1}, {1});
  d.header.struct_size = sizeof(d) - 8;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"pad", "struct_size"});
}

TEST_CASE("a larger descriptor from a newer caller is read when its tail is zero", "[abi]") {
  struct Newer {
    baracuda_pad_desc_t base;
    int64_t future_field;
  } n{};
  n.base = pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_F32, 0, {4}, {1}, {1});
  n.base.header.struct_size = sizeof(Newer);
  CHECK(select_status(&n.base.header) == BARACUDA_STATUS_SUCCESS);
  n.future_field = 5;
  CHECK(select_status(&n.base.header) == BARACUDA_STATUS_UNSUPPORTED);
  require_message({"non-zero"});
}

TEST_CASE("select options are versioned and their flags checked", "[abi]") {
  baracuda_pad_desc_t d = pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_F32, 0, {4}, {1}, {1});
  baracuda_plan_t plan = nullptr;
  baracuda_select_options_t o = options_for(90);
  o.struct_size = 4;
  CHECK(baracuda_plan_select(&d.header, &o, &plan) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"select options struct_size is 4"});
  o = options_for(90);
  o.flags = 0x80;
  CHECK(baracuda_plan_select(&d.header, &o, &plan) == BARACUDA_STATUS_UNSUPPORTED);
  o = options_for(90);
  o.flags = BARACUDA_SELECT_DETERMINISTIC | BARACUDA_SELECT_BESPOKE_ONLY;
  CHECK(baracuda_plan_select(&d.header, &o, &plan) == BARACUDA_STATUS_SUCCESS);
  baracuda_plan_destroy(plan);
}

TEST_CASE("the last error message is per thread and survives later successes", "[abi]") {
  baracuda_plan_t plan;
  REQUIRE(baracuda_plan_select(nullptr, nullptr, &plan) == BARACUDA_STATUS_INVALID_PROBLEM);
  const std::string before = baracuda_last_error_message();
  CHECK(baracuda_version() > 0);
  CHECK(before == baracuda_last_error_message());
}
