// Selection by target_sm, with no GPU involved.
#include "cpu_helpers.hpp"
#include "reference/harness.hpp"

using baracuda::check::pad_desc;

TEST_CASE("every op selects for sm 80, 89 and 90 when the build has them", "[select]") {
  baracuda_pad_desc_t pad = pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_BF16, BARACUDA_PAD_REFLECT, {4, 9}, {1, 2}, {2, 3});
  baracuda_pad_desc_t back = pad;
  back.header.op = BARACUDA_OP_PAD_BACKWARD;
  baracuda_write_slice_desc_t slice = baracuda::check::slice_desc(BARACUDA_DTYPE_S4, {4, 9}, {1, 1}, {3, 8});
  baracuda_causal_conv1d_desc_t conv = BARACUDA_CAUSAL_CONV1D_DESC_INIT;
  conv.dtype = BARACUDA_DTYPE_BF16;
  conv.batch = 2, conv.channels = 8, conv.seq_len = 16;
  baracuda_causal_conv1d_desc_t conv_back = conv, conv_update = conv;
  conv_back.header.op = BARACUDA_OP_CAUSAL_CONV1D_BACKWARD;
  conv_update.header.op = BARACUDA_OP_CAUSAL_CONV1D_UPDATE;
  conv_update.state_len = 3;
  const baracuda_op_header_t *descs[] = {&pad.header,  &back.header,      &slice.header,
                                         &conv.header, &conv_back.header, &conv_update.header};
  for (int32_t sm : {80, 89, 90}) {
    const bool served = build_serves(sm);
    for (const baracuda_op_header_t *desc : descs) {
      baracuda_select_options_t o = options_for(sm);
      baracuda_plan_t plan = nullptr;
      const baracuda_status_t s = baracuda_plan_select(desc, &o, &plan);
      INFO("sm " << sm << " op " << desc->op << ": " << baracuda_last_error_message());
      CHECK(s == (served ? BARACUDA_STATUS_SUCCESS : BARACUDA_STATUS_UNSUPPORTED));
      if (s == BARACUDA_STATUS_SUCCESS) {
        baracuda_plan_info_t info = BARACUDA_PLAN_INFO_INIT;
        REQUIRE(baracuda_plan_get_info(plan, &info) == BARACUDA_STATUS_SUCCESS);
        CHECK(info.target_sm == sm);
      }
      baracuda_plan_destroy(plan);
    }
  }
}

TEST_CASE("an arch older than every compiled one is UNSUPPORTED", "[select]") {
  baracuda_pad_desc_t d = pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_F32, 0, {4}, {1}, {1});
  baracuda_select_options_t o = options_for(75);
  baracuda_plan_t plan = nullptr;
  CHECK(baracuda_plan_select(&d.header, &o, &plan) == BARACUDA_STATUS_UNSUPPORTED);
  require_message({"target sm 75 is not served"});
  CHECK(plan == nullptr);
}

TEST_CASE("a newer arch is served through the embedded PTX", "[select]") {
  baracuda_pad_desc_t d = pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_F32, 0, {4}, {1}, {1});
  baracuda_select_options_t o = options_for(120);
  baracuda_plan_t plan = nullptr;
  CHECK(baracuda_plan_select(&d.header, &o, &plan) == BARACUDA_STATUS_SUCCESS);
  baracuda_plan_destroy(plan);
}

TEST_CASE("a negative target_sm is INVALID_PROBLEM", "[select]") {
  baracuda_pad_desc_t d = pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_F32, 0, {4}, {1}, {1});
  baracuda_select_options_t o = options_for(-5);
  baracuda_plan_t plan = nullptr;
  CHECK(baracuda_plan_select(&d.header, &o, &plan) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"target_sm is -5"});
}
