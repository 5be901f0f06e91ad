// causal conv1d: every bad descriptor and argument gets its status and a
// message naming it. Plans are selected for sm 90; nothing touches a GPU.
#include "cpu_helpers.hpp"

namespace {

baracuda_causal_conv1d_desc_t conv_desc(int32_t op, baracuda_dtype_t dtype = BARACUDA_DTYPE_BF16) {
  baracuda_causal_conv1d_desc_t d = BARACUDA_CAUSAL_CONV1D_DESC_INIT;
  d.header.op = op;
  d.dtype = dtype;
  d.width = 4;
  d.batch = 2;
  d.channels = 8;
  d.seq_len = 16;
  d.state_len = 3;
  return d;
}

baracuda_status_t check_status(baracuda_plan_t plan, const std::vector<baracuda_arg_t> &args) {
  return baracuda_plan_check(plan, args.data(), static_cast<int32_t>(args.size()));
}

// The forward's arguments, well formed: X, WEIGHT, Y.
std::vector<baracuda_arg_t> forward_args(baracuda_dtype_t dtype = BARACUDA_DTYPE_BF16) {
  return {{BARACUDA_ARG_X, tensor(dtype, {2, 8, 16})},
          {BARACUDA_ARG_WEIGHT, tensor(dtype, {8, 4}, 1 << 20)},
          {BARACUDA_ARG_Y, tensor(dtype, {2, 8, 16}, 2 << 20)}};
}

// The backward's required arguments, well formed: X, WEIGHT (of `weights`), DY, DX.
std::vector<baracuda_arg_t> backward_args(baracuda_dtype_t weights = BARACUDA_DTYPE_BF16) {
  return {{BARACUDA_ARG_X, tensor(BARACUDA_DTYPE_BF16, {2, 8, 16})},
          {BARACUDA_ARG_WEIGHT, tensor(weights, {8, 4}, 1 << 20)},
          {BARACUDA_ARG_DY, tensor(BARACUDA_DTYPE_BF16, {2, 8, 16}, 2 << 20)},
          {BARACUDA_ARG_DX, tensor(BARACUDA_DTYPE_BF16, {2, 8, 16}, 3 << 20)}};
}

// A one-token update with a state of 5 entries, and its arguments over a STATE of state_shape.
baracuda_causal_conv1d_desc_t update_desc() {
  baracuda_causal_conv1d_desc_t d = conv_desc(BARACUDA_OP_CAUSAL_CONV1D_UPDATE);
  d.seq_len = 1;
  d.state_len = 5;
  return d;
}
std::vector<baracuda_arg_t> update_args(std::vector<int64_t> state_shape) {
  return {{BARACUDA_ARG_X, tensor(BARACUDA_DTYPE_BF16, {2, 8})},
          {BARACUDA_ARG_WEIGHT, tensor(BARACUDA_DTYPE_BF16, {8, 4}, 1 << 20)},
          {BARACUDA_ARG_Y, tensor(BARACUDA_DTYPE_BF16, {2, 8}, 2 << 20)},
          {BARACUDA_ARG_STATE, tensor(BARACUDA_DTYPE_BF16, std::move(state_shape), 3 << 20)}};
}

}  // namespace

TEST_CASE("causal_conv1d: widths other than 2 to 8 are UNSUPPORTED, below 1 INVALID", "[causal_conv1d][validation]") {
  for (int32_t op : {BARACUDA_OP_CAUSAL_CONV1D, BARACUDA_OP_CAUSAL_CONV1D_BACKWARD, BARACUDA_OP_CAUSAL_CONV1D_UPDATE}) {
    baracuda_causal_conv1d_desc_t d = conv_desc(op);
    d.state_len = 7;
    for (int32_t w = 2; w <= 8; ++w) {
      d.width = w;
      CHECK(select_status(&d.header) == BARACUDA_STATUS_SUCCESS);
    }
  }
  baracuda_causal_conv1d_desc_t d = conv_desc(BARACUDA_OP_CAUSAL_CONV1D);
  d.width = 9;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_UNSUPPORTED);
  require_message({"causal_conv1d: no implementation serves", "causal_conv1d_fwd: width 9 is not served (2 to 8)"});
  d = conv_desc(BARACUDA_OP_CAUSAL_CONV1D_UPDATE);
  d.width = 9;
  d.state_len = 8;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_UNSUPPORTED);
  require_message({"causal_conv1d_update: width 9 is not served (2 to 8)"});
  d = conv_desc(BARACUDA_OP_CAUSAL_CONV1D);
  d.width = 1;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_UNSUPPORTED);
  d.width = 0;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"width is 0, must be >= 1"});
}

TEST_CASE("causal_conv1d: SEQ_IDX is an I32 [batch, seq_len] of the forward and the backward",
          "[causal_conv1d][validation]") {
  baracuda_causal_conv1d_desc_t d = conv_desc(BARACUDA_OP_CAUSAL_CONV1D);
  TestPlan p(&d.header);
  std::vector<baracuda_arg_t> args = forward_args();
  args.push_back({BARACUDA_ARG_SEQ_IDX, tensor(BARACUDA_DTYPE_I32, {2, 16}, 3 << 20)});
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_SUCCESS);
  args.back().tensor = tensor(BARACUDA_DTYPE_I64, {2, 16}, 3 << 20);
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"causal_conv1d: arg SEQ_IDX dtype is i64, descriptor says i32"});
  args.back().tensor = tensor(BARACUDA_DTYPE_I32, {2, 15}, 3 << 20);
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"causal_conv1d: arg SEQ_IDX shape[1] is 15, descriptor says 16"});
  args.back().tensor = tensor(BARACUDA_DTYPE_I32, {2, 8, 16}, 3 << 20);
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"causal_conv1d: arg SEQ_IDX rank is 3, descriptor says 2"});
  args.back().tensor = tensor(BARACUDA_DTYPE_I32, {2, 16});
  args.back().tensor.data = nullptr;
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg SEQ_IDX"});

  baracuda_causal_conv1d_desc_t b = conv_desc(BARACUDA_OP_CAUSAL_CONV1D_BACKWARD);
  TestPlan backward(&b.header);
  args = backward_args();
  args.push_back({BARACUDA_ARG_SEQ_IDX, tensor(BARACUDA_DTYPE_I32, {2, 16}, 4 << 20)});
  CHECK(check_status(backward.plan, args) == BARACUDA_STATUS_SUCCESS);
  args.back().tensor = tensor(BARACUDA_DTYPE_I32, {3, 16}, 4 << 20);
  CHECK(check_status(backward.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"causal_conv1d_backward: arg SEQ_IDX shape[0] is 3, descriptor says 2"});

  baracuda_causal_conv1d_desc_t u = update_desc();
  TestPlan update(&u.header);
  args = update_args({2, 8, 5});
  args.push_back({BARACUDA_ARG_SEQ_IDX, tensor(BARACUDA_DTYPE_I32, {2, 1}, 4 << 20)});
  CHECK(check_status(update.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"which causal_conv1d_update does not take"});
}

TEST_CASE("causal_conv1d: dtypes beyond f32, f16, bf16, f64 are UNSUPPORTED", "[causal_conv1d][validation]") {
  for (int32_t op : {BARACUDA_OP_CAUSAL_CONV1D, BARACUDA_OP_CAUSAL_CONV1D_BACKWARD, BARACUDA_OP_CAUSAL_CONV1D_UPDATE}) {
    baracuda_causal_conv1d_desc_t d = conv_desc(op, BARACUDA_DTYPE_I32);
    CHECK(select_status(&d.header) == BARACUDA_STATUS_UNSUPPORTED);
    require_message({"dtype i32 is not served"});
    d.dtype = 99;
    CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
    require_message({"dtype 99 is not a dtype"});
  }
}

TEST_CASE("causal_conv1d: negative extents and unknown activations are INVALID_PROBLEM",
          "[causal_conv1d][validation]") {
  baracuda_causal_conv1d_desc_t d = conv_desc(BARACUDA_OP_CAUSAL_CONV1D);
  d.channels = -1;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"channels is -1"});
  d = conv_desc(BARACUDA_OP_CAUSAL_CONV1D);
  d.activation = 7;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"activation is 7"});
  d = conv_desc(BARACUDA_OP_CAUSAL_CONV1D);
  d.batch = d.channels = int64_t{1} << 40;
  d.seq_len = 0;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"causal_conv1d: a [batch, channels, width] tensor has over 2^62 elements"});
  d = conv_desc(BARACUDA_OP_CAUSAL_CONV1D);
  d.header.struct_size = 8;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
}

TEST_CASE("causal_conv1d_update: a state shorter than the window is INVALID_PROBLEM", "[causal_conv1d][validation]") {
  baracuda_causal_conv1d_desc_t d = conv_desc(BARACUDA_OP_CAUSAL_CONV1D_UPDATE);
  d.state_len = 2;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"state_len is 2, must be >= width - 1 (3)"});
}

TEST_CASE("causal_conv1d: plans say they are deterministic and accumulate in f32 (f64 for f64)",
          "[causal_conv1d][validation]") {
  for (int32_t op : {BARACUDA_OP_CAUSAL_CONV1D, BARACUDA_OP_CAUSAL_CONV1D_BACKWARD, BARACUDA_OP_CAUSAL_CONV1D_UPDATE})
    for (baracuda_dtype_t dtype : {BARACUDA_DTYPE_BF16, BARACUDA_DTYPE_F64}) {
      baracuda_causal_conv1d_desc_t d = conv_desc(op, dtype);
      TestPlan p(&d.header);
      baracuda_plan_info_t info = BARACUDA_PLAN_INFO_INIT;
      REQUIRE(baracuda_plan_get_info(p.plan, &info) == BARACUDA_STATUS_SUCCESS);
      CHECK(info.op == op);
      CHECK(info.deterministic == 1);
      CHECK(info.accumulator == (dtype == BARACUDA_DTYPE_F64 ? BARACUDA_DTYPE_F64 : BARACUDA_DTYPE_F32));
    }
}

TEST_CASE("causal_conv1d_backward: the workspace holds the dw/db partial sums", "[causal_conv1d][validation]") {
  baracuda_causal_conv1d_desc_t d = conv_desc(BARACUDA_OP_CAUSAL_CONV1D_BACKWARD);
  d.seq_len = 1000;  // so small a problem takes the backward's shortest chunks, of 16: 63 per sequence
  TestPlan p(&d.header);
  size_t bytes = 0;
  REQUIRE(baracuda_plan_workspace_size(p.plan, &bytes) == BARACUDA_STATUS_SUCCESS);
  CHECK(bytes == 2 * 63 * 8 * 5 * sizeof(float));
  {  // enough channels to fill the GPU with chunks of 256: 4 per sequence
    baracuda_causal_conv1d_desc_t wide = d;
    wide.channels = 1 << 17;
    TestPlan q(&wide.header);
    size_t wide_bytes = 0;
    REQUIRE(baracuda_plan_workspace_size(q.plan, &wide_bytes) == BARACUDA_STATUS_SUCCESS);
    CHECK(wide_bytes == size_t{2} * 4 * (1 << 17) * 5 * sizeof(float));
  }
  const std::vector<baracuda_arg_t> args = {{BARACUDA_ARG_X, tensor(BARACUDA_DTYPE_BF16, {2, 8, 1000})},
                                            {BARACUDA_ARG_WEIGHT, tensor(BARACUDA_DTYPE_BF16, {8, 4}, 1 << 20)},
                                            {BARACUDA_ARG_DY, tensor(BARACUDA_DTYPE_BF16, {2, 8, 1000}, 2 << 20)},
                                            {BARACUDA_ARG_DX, tensor(BARACUDA_DTYPE_BF16, {2, 8, 1000}, 3 << 20)}};
  CHECK(baracuda_plan_run(p.plan, args.data(), 4, fake_device_pointer(4 << 20), bytes - 1, nullptr) ==
        BARACUDA_STATUS_WORKSPACE_TOO_SMALL);
  CHECK(baracuda_plan_run(p.plan, args.data(), 4, nullptr, bytes, nullptr) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"workspace is NULL"});
  baracuda_causal_conv1d_desc_t f = conv_desc(BARACUDA_OP_CAUSAL_CONV1D);
  TestPlan forward(&f.header);
  REQUIRE(baracuda_plan_workspace_size(forward.plan, &bytes) == BARACUDA_STATUS_SUCCESS);
  CHECK(bytes == 0);
}

TEST_CASE("causal_conv1d: every argument's shape and dtype is checked by name", "[causal_conv1d][validation]") {
  baracuda_causal_conv1d_desc_t d = conv_desc(BARACUDA_OP_CAUSAL_CONV1D);
  TestPlan p(&d.header);
  std::vector<baracuda_arg_t> args = forward_args();
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_SUCCESS);
  args[1].tensor = tensor(BARACUDA_DTYPE_BF16, {8, 3}, 1 << 20);
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"causal_conv1d: arg WEIGHT shape[1] is 3, descriptor says 4"});
  args = forward_args();
  args.push_back({BARACUDA_ARG_BIAS, tensor(BARACUDA_DTYPE_BF16, {7}, 3 << 20)});
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg BIAS shape[0] is 7"});
  args = forward_args();
  args.push_back({BARACUDA_ARG_INITIAL_STATES, tensor(BARACUDA_DTYPE_F32, {2, 8, 3}, 3 << 20)});
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg INITIAL_STATES dtype is f32"});
  args = forward_args();
  args.push_back({BARACUDA_ARG_FINAL_STATES, tensor(BARACUDA_DTYPE_BF16, {2, 8, 4}, 3 << 20)});
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg FINAL_STATES shape[2] is 4, descriptor says 3"});
  args = forward_args();
  args[0].tensor = tensor(BARACUDA_DTYPE_BF16, {2, 8});
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg X rank is 2, descriptor says 3"});
  args = forward_args();
  args.pop_back();
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"required arg Y is missing"});
  args = forward_args();
  args.push_back({BARACUDA_ARG_DY, tensor(BARACUDA_DTYPE_BF16, {2, 8, 16})});
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"role 5 (DY), which causal_conv1d does not take"});
}

TEST_CASE("causal_conv1d: an output may not be its input", "[causal_conv1d][validation]") {
  baracuda_causal_conv1d_desc_t d = conv_desc(BARACUDA_OP_CAUSAL_CONV1D);
  TestPlan p(&d.header);
  std::vector<baracuda_arg_t> args = forward_args();
  args[2].tensor = args[0].tensor;
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"shares its data with an input"});
}

TEST_CASE("causal_conv1d_backward: DB needs BIAS, DX is required", "[causal_conv1d][validation]") {
  baracuda_causal_conv1d_desc_t d = conv_desc(BARACUDA_OP_CAUSAL_CONV1D_BACKWARD);
  TestPlan p(&d.header);
  std::vector<baracuda_arg_t> args = {{BARACUDA_ARG_X, tensor(BARACUDA_DTYPE_BF16, {2, 8, 16})},
                                      {BARACUDA_ARG_WEIGHT, tensor(BARACUDA_DTYPE_BF16, {8, 4}, 1 << 20)},
                                      {BARACUDA_ARG_DY, tensor(BARACUDA_DTYPE_BF16, {2, 8, 16}, 2 << 20)},
                                      {BARACUDA_ARG_DB, tensor(BARACUDA_DTYPE_BF16, {8}, 3 << 20)}};
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"required arg DX is missing"});
  args.push_back({BARACUDA_ARG_DX, tensor(BARACUDA_DTYPE_BF16, {2, 8, 16}, 4 << 20)});
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg DB is given without BIAS"});
  args.push_back({BARACUDA_ARG_BIAS, tensor(BARACUDA_DTYPE_BF16, {8}, 5 << 20)});
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_SUCCESS);
}

TEST_CASE("causal_conv1d_update: STATE and CACHE_SEQLENS are checked", "[causal_conv1d][validation]") {
  baracuda_causal_conv1d_desc_t d = update_desc();
  TestPlan p(&d.header);
  std::vector<baracuda_arg_t> args = update_args({2, 8, 5});
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_SUCCESS);
  args[3].tensor = tensor(BARACUDA_DTYPE_BF16, {2, 8, 3}, 3 << 20);
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg STATE shape[2] is 3, descriptor says 5"});
  args[3].tensor = tensor(BARACUDA_DTYPE_BF16, {2, 8, 5}, 3 << 20);
  args.push_back({BARACUDA_ARG_CACHE_SEQLENS, tensor(BARACUDA_DTYPE_I64, {2}, 4 << 20)});
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg CACHE_SEQLENS dtype is i64, descriptor says i32"});
}

TEST_CASE("causal_conv1d: weight_dtype is 0, the dtype, or f32 beside f16 and bf16", "[causal_conv1d][validation]") {
  for (int32_t op : {BARACUDA_OP_CAUSAL_CONV1D, BARACUDA_OP_CAUSAL_CONV1D_BACKWARD, BARACUDA_OP_CAUSAL_CONV1D_UPDATE}) {
    for (baracuda_dtype_t dtype : {BARACUDA_DTYPE_F16, BARACUDA_DTYPE_BF16})
      for (baracuda_dtype_t weights : {baracuda_dtype_t{0}, dtype, baracuda_dtype_t{BARACUDA_DTYPE_F32}}) {
        baracuda_causal_conv1d_desc_t d = conv_desc(op, dtype);
        d.weight_dtype = weights;
        CHECK(select_status(&d.header) == BARACUDA_STATUS_SUCCESS);
      }
    baracuda_causal_conv1d_desc_t d = conv_desc(op, BARACUDA_DTYPE_F32);
    d.weight_dtype = BARACUDA_DTYPE_F32;
    CHECK(select_status(&d.header) == BARACUDA_STATUS_SUCCESS);
    d.weight_dtype = BARACUDA_DTYPE_F16;
    CHECK(select_status(&d.header) == BARACUDA_STATUS_UNSUPPORTED);
    require_message({"weight_dtype f16 beside dtype f32 is not served"});
    d = conv_desc(op, BARACUDA_DTYPE_F64);
    d.weight_dtype = BARACUDA_DTYPE_F32;
    CHECK(select_status(&d.header) == BARACUDA_STATUS_UNSUPPORTED);
    require_message({"weight_dtype f32 beside dtype f64 is not served"});
    d = conv_desc(op, BARACUDA_DTYPE_BF16);
    d.weight_dtype = BARACUDA_DTYPE_F16;
    CHECK(select_status(&d.header) == BARACUDA_STATUS_UNSUPPORTED);
    require_message({"weight_dtype f16 beside dtype bf16 is not served"});
    d.weight_dtype = 99;
    CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
    require_message({"weight_dtype 99 is not a dtype"});
  }
}

TEST_CASE("causal_conv1d: WEIGHT, BIAS, DW and DB have weight_dtype, the rest dtype", "[causal_conv1d][validation]") {
  baracuda_causal_conv1d_desc_t d = conv_desc(BARACUDA_OP_CAUSAL_CONV1D);
  d.weight_dtype = BARACUDA_DTYPE_F32;
  TestPlan forward(&d.header);
  baracuda_plan_info_t info = BARACUDA_PLAN_INFO_INIT;
  REQUIRE(baracuda_plan_get_info(forward.plan, &info) == BARACUDA_STATUS_SUCCESS);
  CHECK(std::string(info.kernel_name).find("bf16_f32w") != std::string::npos);
  std::vector<baracuda_arg_t> args = forward_args();
  CHECK(check_status(forward.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"causal_conv1d: arg WEIGHT dtype is bf16, descriptor says f32"});
  args[1].tensor = tensor(BARACUDA_DTYPE_F32, {8, 4}, 1 << 20);
  CHECK(check_status(forward.plan, args) == BARACUDA_STATUS_SUCCESS);
  args.push_back({BARACUDA_ARG_BIAS, tensor(BARACUDA_DTYPE_BF16, {8}, 3 << 20)});
  CHECK(check_status(forward.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg BIAS dtype is bf16, descriptor says f32"});
  args.back().tensor = tensor(BARACUDA_DTYPE_F32, {8}, 3 << 20);
  CHECK(check_status(forward.plan, args) == BARACUDA_STATUS_SUCCESS);
  args[0].tensor = tensor(BARACUDA_DTYPE_F32, {2, 8, 16});
  CHECK(check_status(forward.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg X dtype is f32, descriptor says bf16"});

  d.header.op = BARACUDA_OP_CAUSAL_CONV1D_BACKWARD;
  TestPlan backward(&d.header);
  args = backward_args(BARACUDA_DTYPE_F32);
  args.push_back({BARACUDA_ARG_BIAS, tensor(BARACUDA_DTYPE_F32, {8}, 4 << 20)});
  args.push_back({BARACUDA_ARG_DW, tensor(BARACUDA_DTYPE_F32, {8, 4}, 5 << 20)});
  args.push_back({BARACUDA_ARG_DB, tensor(BARACUDA_DTYPE_F32, {8}, 6 << 20)});
  CHECK(check_status(backward.plan, args) == BARACUDA_STATUS_SUCCESS);
  args[5].tensor = tensor(BARACUDA_DTYPE_BF16, {8, 4}, 5 << 20);
  CHECK(check_status(backward.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"causal_conv1d_backward: arg DW dtype is bf16, descriptor says f32"});
  args[5].tensor = tensor(BARACUDA_DTYPE_F32, {8, 4}, 5 << 20);
  args[6].tensor = tensor(BARACUDA_DTYPE_BF16, {8}, 6 << 20);
  CHECK(check_status(backward.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg DB dtype is bf16, descriptor says f32"});
  args[6].tensor = tensor(BARACUDA_DTYPE_F32, {8}, 6 << 20);
  args[3].tensor = tensor(BARACUDA_DTYPE_F32, {2, 8, 16}, 3 << 20);
  CHECK(check_status(backward.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg DX dtype is f32, descriptor says bf16"});
}

TEST_CASE("causal_conv1d_backward: DFINAL_STATES is [B, C, W-1] of dtype", "[causal_conv1d][validation]") {
  baracuda_causal_conv1d_desc_t d = conv_desc(BARACUDA_OP_CAUSAL_CONV1D_BACKWARD);
  TestPlan p(&d.header);
  std::vector<baracuda_arg_t> args = backward_args();
  args.push_back({BARACUDA_ARG_DFINAL_STATES, tensor(BARACUDA_DTYPE_BF16, {2, 8, 3}, 4 << 20)});
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_SUCCESS);
  args[4].tensor = tensor(BARACUDA_DTYPE_BF16, {2, 8, 4}, 4 << 20);
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg DFINAL_STATES shape[2] is 4, descriptor says 3"});
  args[4].tensor = tensor(BARACUDA_DTYPE_F32, {2, 8, 3}, 4 << 20);
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg DFINAL_STATES dtype is f32, descriptor says bf16"});
  baracuda_causal_conv1d_desc_t f = conv_desc(BARACUDA_OP_CAUSAL_CONV1D);
  TestPlan forward(&f.header);
  args = forward_args();
  args.push_back({BARACUDA_ARG_DFINAL_STATES, tensor(BARACUDA_DTYPE_BF16, {2, 8, 3}, 4 << 20)});
  CHECK(check_status(forward.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"(DFINAL_STATES), which causal_conv1d does not take"});
}

TEST_CASE("causal_conv1d_update: CONV_STATE_INDICES makes STATE a pool of any rows", "[causal_conv1d][validation]") {
  baracuda_causal_conv1d_desc_t d = update_desc();
  TestPlan p(&d.header);
  std::vector<baracuda_arg_t> args = update_args({7, 8, 5});
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg STATE shape[0] is 7, descriptor says 2"});
  args.push_back({BARACUDA_ARG_CONV_STATE_INDICES, tensor(BARACUDA_DTYPE_I32, {2}, 4 << 20)});
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_SUCCESS);
  args[3].tensor = tensor(BARACUDA_DTYPE_BF16, {1, 8, 5}, 3 << 20);  // a pool smaller than the batch
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_SUCCESS);
  args[3].tensor.shape[0] = -1;
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg STATE shape[0] is -1, must be >= 0"});
  args[3].tensor = tensor(BARACUDA_DTYPE_BF16, {7, 8, 4}, 3 << 20);
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg STATE shape[2] is 4, descriptor says 5"});
  args[3].tensor = tensor(BARACUDA_DTYPE_BF16, {7, 8, 5}, 3 << 20);
  args[4].tensor = tensor(BARACUDA_DTYPE_I64, {2}, 4 << 20);
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg CONV_STATE_INDICES dtype is i64, descriptor says i32"});
  args[4].tensor = tensor(BARACUDA_DTYPE_I32, {3}, 4 << 20);
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"arg CONV_STATE_INDICES shape[0] is 3, descriptor says 2"});
  args[4].tensor = tensor(BARACUDA_DTYPE_I32, {2}, 4 << 20);
  args.push_back({BARACUDA_ARG_CACHE_SEQLENS, tensor(BARACUDA_DTYPE_I32, {2}, 5 << 20)});
  CHECK(check_status(p.plan, args) == BARACUDA_STATUS_SUCCESS);
}
