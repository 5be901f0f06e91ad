// ALiBi: every bad descriptor and argument gets its status and a message
// naming it. Plans are selected for sm 90; nothing touches a GPU.
#include "cpu_helpers.hpp"

namespace {

constexpr baracuda_status_t kInvalid = BARACUDA_STATUS_INVALID_PROBLEM;
constexpr baracuda_status_t kUnsupported = BARACUDA_STATUS_UNSUPPORTED;

baracuda_alibi_desc_t alibi_desc(int32_t op, baracuda_dtype_t dtype = BARACUDA_DTYPE_BF16) {
  baracuda_alibi_desc_t d = BARACUDA_ALIBI_DESC_INIT;
  d.header.op = op;
  d.dtype = dtype;
  d.batch = 2;
  d.heads = 4;
  d.queries = 3;
  d.keys = 16;
  return d;
}

baracuda_status_t check_status(baracuda_plan_t plan, const std::vector<baracuda_arg_t> &args) {
  return baracuda_plan_check(plan, args.data(), static_cast<int32_t>(args.size()));
}

// The forward's arguments, well formed: SCORES, SLOPES [H] (f32), Y.
std::vector<baracuda_arg_t> forward_args(baracuda_dtype_t dtype = BARACUDA_DTYPE_BF16) {
  return {{BARACUDA_ARG_SCORES, tensor(dtype, {2, 4, 3, 16})},
          {BARACUDA_ARG_SLOPES, tensor(BARACUDA_DTYPE_F32, {4}, 1 << 20)},
          {BARACUDA_ARG_Y, tensor(dtype, {2, 4, 3, 16}, 2 << 20)}};
}

// The backward's arguments, well formed: DY, DSCORES, DSLOPES [H] (f32).
std::vector<baracuda_arg_t> backward_args(baracuda_dtype_t dtype = BARACUDA_DTYPE_BF16) {
  return {{BARACUDA_ARG_DY, tensor(dtype, {2, 4, 3, 16})},
          {BARACUDA_ARG_DSCORES, tensor(dtype, {2, 4, 3, 16}, 1 << 20)},
          {BARACUDA_ARG_DSLOPES, tensor(BARACUDA_DTYPE_F32, {4}, 2 << 20)}};
}

}  // namespace

TEST_CASE("alibi: unknown convention, alignment, per_batch_slopes and reserved fields are INVALID_PROBLEM",
          "[alibi][validation]") {
  for (int32_t op : {BARACUDA_OP_ALIBI, BARACUDA_OP_ALIBI_BACKWARD}) {
    baracuda_alibi_desc_t d = alibi_desc(op);
    CHECK(select_status(&d.header) == BARACUDA_STATUS_SUCCESS);
    d.convention = 3;
    CHECK(select_status(&d.header) == kInvalid);
    require_message({"alibi", "convention is 3"});
    d = alibi_desc(op);
    d.alignment = 0;
    CHECK(select_status(&d.header) == kInvalid);
    require_message({"alignment is 0"});
    d = alibi_desc(op);
    d.per_batch_slopes = 2;
    CHECK(select_status(&d.header) == kInvalid);
    require_message({"per_batch_slopes is 2, must be 0 or 1"});
    d = alibi_desc(op);
    d.reserved0 = 5;
    CHECK(select_status(&d.header) == kInvalid);
    require_message({"reserved0 is 5, must be 0"});
    d = alibi_desc(op);
    d.header.struct_size = 8;
    CHECK(select_status(&d.header) == kInvalid);
  }
}

TEST_CASE("alibi: every convention, alignment and slope shape is served", "[alibi][validation]") {
  for (int32_t op : {BARACUDA_OP_ALIBI, BARACUDA_OP_ALIBI_BACKWARD})
    for (int32_t convention : {BARACUDA_ALIBI_SIGNED, BARACUDA_ALIBI_SYMMETRIC})
      for (int32_t alignment : {BARACUDA_ALIBI_TOP_LEFT, BARACUDA_ALIBI_BOTTOM_RIGHT})
        for (int32_t per_batch : {0, 1}) {
          baracuda_alibi_desc_t d = alibi_desc(op);
          d.convention = convention;
          d.alignment = alignment;
          d.per_batch_slopes = per_batch;
          CHECK(select_status(&d.header) == BARACUDA_STATUS_SUCCESS);
        }
}

TEST_CASE("alibi: negative extents and over 2^62 elements are INVALID_PROBLEM", "[alibi][validation]") {
  baracuda_alibi_desc_t d = alibi_desc(BARACUDA_OP_ALIBI);
  d.heads = -1;
  CHECK(select_status(&d.header) == kInvalid);
  require_message({"alibi: heads is -1"});
  d = alibi_desc(BARACUDA_OP_ALIBI_BACKWARD);
  d.keys = -3;
  CHECK(select_status(&d.header) == kInvalid);
  require_message({"alibi_backward: keys is -3"});
  d = alibi_desc(BARACUDA_OP_ALIBI);
  d.queries = d.keys = int64_t{1} << 31;
  CHECK(select_status(&d.header) == kInvalid);
  require_message({"SCORES [batch, heads, queries, keys] has over 2^62 elements"});
  // B * H over 2^62 with no scores at all: the slopes alone are too many.
  d = alibi_desc(BARACUDA_OP_ALIBI_BACKWARD);
  d.batch = d.heads = int64_t{1} << 32;
  d.queries = 0;
  CHECK(select_status(&d.header) == kInvalid);
  require_message({"SLOPES [batch, heads] has over 2^62 elements"});
}

TEST_CASE("alibi: dtypes beyond f32, f16, bf16, f64 are UNSUPPORTED", "[alibi][validation]") {
  for (int32_t op : {BARACUDA_OP_ALIBI, BARACUDA_OP_ALIBI_BACKWARD}) {
    baracuda_alibi_desc_t d = alibi_desc(op, BARACUDA_DTYPE_I32);
    CHECK(select_status(&d.header) == kUnsupported);
    require_message({"dtype i32 is not served"});
    d.dtype = 99;
    CHECK(select_status(&d.header) == kInvalid);
    require_message({"dtype 99 is not a dtype"});
  }
}

TEST_CASE("alibi: slopes are f32 or the scores' dtype, f64 for f64", "[alibi][validation]") {
  baracuda_alibi_desc_t d = alibi_desc(BARACUDA_OP_ALIBI, BARACUDA_DTYPE_F16);
  for (baracuda_dtype_t s : {BARACUDA_DTYPE_INVALID, BARACUDA_DTYPE_F32, BARACUDA_DTYPE_F16}) {
    d.slopes_dtype = s;
    CHECK(select_status(&d.header) == BARACUDA_STATUS_SUCCESS);
  }
  d.slopes_dtype = BARACUDA_DTYPE_BF16;
  CHECK(select_status(&d.header) == kUnsupported);
  require_message({"alibi: slopes_dtype bf16 is not served with dtype f16 (f32 or f16)"});
  d.slopes_dtype = 77;
  CHECK(select_status(&d.header) == kInvalid);
  require_message({"slopes_dtype 77 is not a dtype"});
  d = alibi_desc(BARACUDA_OP_ALIBI_BACKWARD, BARACUDA_DTYPE_F64);
  d.slopes_dtype = BARACUDA_DTYPE_F32;
  CHECK(select_status(&d.header) == kUnsupported);
  require_message({"slopes_dtype f32 is not served with dtype f64 (f64)"});
  d.slopes_dtype = BARACUDA_DTYPE_F64;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_SUCCESS);
}

TEST_CASE("alibi: plans are deterministic, bit-stable, and accumulate in f32 (f64 for f64)", "[alibi][validation]") {
  for (int32_t op : {BARACUDA_OP_ALIBI, BARACUDA_OP_ALIBI_BACKWARD})
    for (baracuda_dtype_t dtype : {BARACUDA_DTYPE_BF16, BARACUDA_DTYPE_F64}) {
      baracuda_alibi_desc_t d = alibi_desc(op, dtype);
      TestPlan p(&d.header);
      baracuda_plan_info_t info = BARACUDA_PLAN_INFO_INIT;
      REQUIRE(baracuda_plan_get_info(p.plan, &info) == BARACUDA_STATUS_SUCCESS);
      CHECK(info.op == op);
      CHECK(info.dtype == dtype);
      CHECK(info.deterministic == 1);
      CHECK(info.bit_stable == 1);
      CHECK(info.accumulator == (dtype == BARACUDA_DTYPE_F64 ? BARACUDA_DTYPE_F64 : BARACUDA_DTYPE_F32));
    }
}

TEST_CASE("alibi: the forward's arguments are checked against the descriptor", "[alibi][validation]") {
  baracuda_alibi_desc_t d = alibi_desc(BARACUDA_OP_ALIBI);
  TestPlan p(&d.header);
  std::vector<baracuda_arg_t> args = forward_args();
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_SUCCESS);
  args[0].tensor = tensor(BARACUDA_DTYPE_BF16, {2, 4, 3, 15});
  CHECK(check_status(p.plan, args) == kInvalid);
  require_message({"alibi", "SCORES", "shape[3]"});
  args = forward_args();
  args[1].tensor = tensor(BARACUDA_DTYPE_F32, {5}, 1 << 20);
  CHECK(check_status(p.plan, args) == kInvalid);
  require_message({"alibi", "SLOPES", "shape[0]"});
  args[1].tensor = tensor(BARACUDA_DTYPE_F32, {2, 4}, 1 << 20);  // [B, H] without per_batch_slopes
  CHECK(check_status(p.plan, args) == kInvalid);
  require_message({"SLOPES"});
  args = forward_args();
  args[1].tensor = tensor(BARACUDA_DTYPE_BF16, {4}, 1 << 20);
  CHECK(check_status(p.plan, args) == kInvalid);
  require_message({"SLOPES", "f32"});
  args = forward_args();
  args.pop_back();
  CHECK(check_status(p.plan, args) == kInvalid);
  require_message({"required arg Y is missing"});
  args = forward_args();
  args[2].role = BARACUDA_ARG_DSCORES;
  CHECK(check_status(p.plan, args) == kInvalid);
  require_message({"does not take"});
  // One slope for all heads: stride 0 is allowed on an input.
  args = forward_args();
  args[1].tensor.strides[0] = 0;
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_SUCCESS);
}

TEST_CASE("alibi: [B, H] slopes with per_batch_slopes", "[alibi][validation]") {
  baracuda_alibi_desc_t d = alibi_desc(BARACUDA_OP_ALIBI);
  d.per_batch_slopes = 1;
  TestPlan p(&d.header);
  std::vector<baracuda_arg_t> args = forward_args();
  CHECK(check_status(p.plan, args) == kInvalid);
  require_message({"SLOPES"});
  args[1].tensor = tensor(BARACUDA_DTYPE_F32, {2, 4}, 1 << 20);
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_SUCCESS);
  args[1].tensor = tensor(BARACUDA_DTYPE_F32, {2, 3}, 1 << 20);
  CHECK(check_status(p.plan, args) == kInvalid);
  require_message({"SLOPES", "shape[1]"});
}

TEST_CASE("alibi: a keys stride other than 1 is UNSUPPORTED; outer strides are free", "[alibi][validation]") {
  baracuda_alibi_desc_t d = alibi_desc(BARACUDA_OP_ALIBI);
  TestPlan p(&d.header);
  std::vector<baracuda_arg_t> args = forward_args();
  args[0].tensor = strided(args[0].tensor, {384, 96, 32, 2});
  CHECK(check_status(p.plan, args) == kUnsupported);
  require_message({"alibi: arg SCORES strides[3] is 2, only 1 is served on the keys axis"});
  args = forward_args();
  args[2].tensor = strided(args[2].tensor, {480, 120, 40, 1});  // rows padded to 40
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_SUCCESS);
  baracuda_alibi_desc_t b = alibi_desc(BARACUDA_OP_ALIBI_BACKWARD);
  TestPlan bp(&b.header);
  args = backward_args();
  args[1].tensor = strided(args[1].tensor, {576, 144, 48, 3});
  CHECK(check_status(bp.plan, args) == kUnsupported);
  require_message({"alibi_backward: arg DSCORES strides[3] is 3"});
}

TEST_CASE("alibi: in place is the same view; the slopes share no data", "[alibi][validation]") {
  baracuda_alibi_desc_t d = alibi_desc(BARACUDA_OP_ALIBI);
  TestPlan p(&d.header);
  std::vector<baracuda_arg_t> args = forward_args();
  args[2].tensor = args[0].tensor;
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_SUCCESS);
  args[2].tensor = strided(args[0].tensor, {384, 96, 32, 1});
  CHECK(check_status(p.plan, args) == kInvalid);
  require_message({"alibi: arg Y shares its data with SCORES but strides[0] is 384, not 192"});
  args = forward_args();
  args[2].tensor.data = args[1].tensor.data;
  CHECK(check_status(p.plan, args) == kInvalid);
  require_message({"alibi: arg SLOPES shares its data with Y"});
  args = forward_args();
  args[1].tensor.data = args[0].tensor.data;  // two inputs
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_SUCCESS);

  baracuda_alibi_desc_t b = alibi_desc(BARACUDA_OP_ALIBI_BACKWARD);
  TestPlan bp(&b.header);
  args = backward_args();
  args[1].tensor = args[0].tensor;
  CHECK(check_status(bp.plan, args) == BARACUDA_STATUS_SUCCESS);
  args = backward_args();
  args[2].tensor.data = args[0].tensor.data;
  CHECK(check_status(bp.plan, args) == kInvalid);
  require_message({"alibi_backward: arg DSLOPES shares its data with DY"});
  args = backward_args();
  args[2].tensor.data = args[1].tensor.data;
  CHECK(check_status(bp.plan, args) == kInvalid);
  require_message({"alibi_backward: arg DSLOPES shares its data with DSCORES"});
}

TEST_CASE("alibi_backward: either output may be left out, not both", "[alibi][validation]") {
  baracuda_alibi_desc_t d = alibi_desc(BARACUDA_OP_ALIBI_BACKWARD);
  TestPlan p(&d.header);
  std::vector<baracuda_arg_t> args = backward_args();
  CHECK(check_status(p.plan, {args[0], args[1]}) == BARACUDA_STATUS_SUCCESS);
  CHECK(check_status(p.plan, {args[0], args[2]}) == BARACUDA_STATUS_SUCCESS);
  CHECK(check_status(p.plan, {args[0]}) == kInvalid);
  require_message({"alibi_backward: both outputs, DSCORES and DSLOPES, are left out"});
  CHECK(check_status(p.plan, {args[1], args[2]}) == kInvalid);
  require_message({"required arg DY is missing"});
  // Outputs may not broadcast.
  args[2].tensor.strides[0] = 0;
  CHECK(check_status(p.plan, args) == kInvalid);
  require_message({"DSLOPES"});
}

TEST_CASE("alibi_backward: the workspace holds one partial sum per tile", "[alibi][validation]") {
  baracuda_alibi_desc_t d = alibi_desc(BARACUDA_OP_ALIBI_BACKWARD);
  d.queries = 2048;
  d.keys = 2048;
  TestPlan p(&d.header);
  size_t bytes = 0;
  REQUIRE(baracuda_plan_workspace_size(p.plan, &bytes) == BARACUDA_STATUS_SUCCESS);
  CHECK(bytes == 2 * 4 * 512 * sizeof(float));  // bf16: 4 rows of 2048 per tile
  const std::vector<baracuda_arg_t> args = {
      {BARACUDA_ARG_DY, tensor(BARACUDA_DTYPE_BF16, {2, 4, 2048, 2048})},
      {BARACUDA_ARG_DSLOPES, tensor(BARACUDA_DTYPE_F32, {4}, uintptr_t{1} << 30)}};
  CHECK(baracuda_plan_run(p.plan, args.data(), 2, fake_device_pointer(uintptr_t{2} << 30), bytes - 1, nullptr) ==
        BARACUDA_STATUS_WORKSPACE_TOO_SMALL);
  CHECK(baracuda_plan_run(p.plan, args.data(), 2, nullptr, bytes, nullptr) == kInvalid);
  require_message({"workspace is NULL"});
  baracuda_alibi_desc_t f = alibi_desc(BARACUDA_OP_ALIBI);
  TestPlan forward(&f.header);
  REQUIRE(baracuda_plan_workspace_size(forward.plan, &bytes) == BARACUDA_STATUS_SUCCESS);
  CHECK(bytes == 0);
}

TEST_CASE("alibi: empty problems select; the backward names its zeroing of dslopes", "[alibi][validation]") {
  baracuda_alibi_desc_t d = alibi_desc(BARACUDA_OP_ALIBI_BACKWARD);
  d.queries = 0;
  TestPlan p(&d.header);
  baracuda_plan_info_t info = BARACUDA_PLAN_INFO_INIT;
  REQUIRE(baracuda_plan_get_info(p.plan, &info) == BARACUDA_STATUS_SUCCESS);
  CHECK(std::string(info.kernel_name) == "alibi_backward_bf16_f32_slopes (dslopes zeroed)");
  CHECK(info.workspace_bytes == 0);
  d.header.op = BARACUDA_OP_ALIBI;
  TestPlan f(&d.header);
  REQUIRE(baracuda_plan_get_info(f.plan, &info) == BARACUDA_STATUS_SUCCESS);
  CHECK(std::string(info.kernel_name).find("no launch") != std::string::npos);
}
