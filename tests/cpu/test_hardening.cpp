// Extremes of extents, strides and workspace sizes: every sum and product of
// them is checked at select (or check) in 128 bits, so none wraps into a
// crash or a wrong answer later. Nothing touches a GPU.
#include "cpu_helpers.hpp"
#include "reference/harness.hpp"

using baracuda::check::pad_desc;

namespace {

constexpr int64_t k2to62 = int64_t{1} << 62;

}  // namespace

TEST_CASE("pad: an output extent past int64 is INVALID_PROBLEM at select, for every mode and both directions",
          "[hardening]") {
  struct Axis {
    int32_t mode;
    int64_t n, lo, hi;
    const char *sum;
  };
  // Each passes its mode's own rule (pad < n for reflect, <= n for circular).
  const Axis axes[] = {
      {BARACUDA_PAD_REPLICATE, 1, k2to62, k2to62 - 1, "9223372036854775808"},
      {BARACUDA_PAD_REFLECT, k2to62, k2to62 - 1, k2to62 - 1, "13835058055282163710"},
      {BARACUDA_PAD_CIRCULAR, k2to62, k2to62, k2to62, "13835058055282163712"},
      {BARACUDA_PAD_CONSTANT, k2to62, k2to62, k2to62, "13835058055282163712"},
  };
  for (int32_t op : {BARACUDA_OP_PAD, BARACUDA_OP_PAD_BACKWARD})
    for (const Axis &a : axes) {
      baracuda_pad_desc_t d = pad_desc(op, BARACUDA_DTYPE_F32, a.mode, {a.n}, {a.lo}, {a.hi});
      INFO("op " << op << " mode " << a.mode);
      CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
      require_message({"axis 0 output extent is ", a.sum, "must be 0 to 2^62"});
    }
}

TEST_CASE("pad: pads beyond 2^62 are refused by name", "[hardening]") {
  baracuda_pad_desc_t d = pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_F32, BARACUDA_PAD_CONSTANT, {4}, {1}, {1});
  d.pad_high[0] = INT64_MIN;
  CHECK(select_status(&d.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"pad: pad_high[0] is -9223372036854775808, must be -2^62 to 2^62"});
}

TEST_CASE("a 0 extent after large ones makes an empty tensor, not one over 2^62 elements", "[hardening]") {
  const int64_t big = int64_t{1} << 40;
  baracuda_pad_desc_t d = pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_F32, BARACUDA_PAD_CONSTANT, {big, big, 0},
                                   {0, 0, 0}, {0, 0, 0});
  TestPlan p(&d.header);
  std::vector<baracuda_arg_t> args = {{BARACUDA_ARG_X, tensor(BARACUDA_DTYPE_F32, {big, big, 0})},
                                      {BARACUDA_ARG_Y, tensor(BARACUDA_DTYPE_F32, {big, big, 0}, 1 << 20)}};
  CHECK(baracuda_plan_check(p.plan, args.data(), 2) == BARACUDA_STATUS_SUCCESS);
  // Zero elements: run returns before any CUDA call, so this holds without a GPU.
  CHECK(baracuda_plan_run(p.plan, args.data(), 2, nullptr, 0, nullptr) == BARACUDA_STATUS_SUCCESS);

  baracuda_write_slice_desc_t s = baracuda::check::slice_desc(BARACUDA_DTYPE_F16, {big, big, 0}, {0, 0, 0}, {1, 1, 0});
  CHECK(select_status(&s.header) == BARACUDA_STATUS_SUCCESS);
  s.dest_shape[2] = 2;
  CHECK(select_status(&s.header) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"write_slice: dest has over 2^62 elements"});
}

TEST_CASE("causal_conv1d_backward: a workspace past 2^62 bytes is UNSUPPORTED at select, never wrapped",
          "[hardening]") {
  baracuda_causal_conv1d_desc_t d = BARACUDA_CAUSAL_CONV1D_BACKWARD_DESC_INIT;
  d.dtype = BARACUDA_DTYPE_F32;
  d.width = 3;
  d.batch = 1, d.channels = int64_t{1} << 60, d.seq_len = 1;
  // 1 * ceil(1 / 256) * 2^60 * (3 + 1) * 4 bytes = 2^64, which 64-bit math wraps to 0.
  CHECK(select_status(&d.header) == BARACUDA_STATUS_UNSUPPORTED);
  require_message({"causal_conv1d_backward: no implementation serves",
                   "causal_conv1d_bwd: its workspace would be 18446744073709551616 bytes, over 2^62"});
  d.channels = int64_t{1} << 20;
  TestPlan p(&d.header);
  size_t bytes = 0;
  REQUIRE(baracuda_plan_workspace_size(p.plan, &bytes) == BARACUDA_STATUS_SUCCESS);
  CHECK(bytes == (size_t{1} << 20) * 4 * 4);
}

TEST_CASE("a view reaching past element 2^62 is INVALID_PROBLEM, its reach never printed negative", "[hardening]") {
  baracuda_pad_desc_t d = pad_desc(BARACUDA_OP_PAD, BARACUDA_DTYPE_F32, BARACUDA_PAD_CONSTANT, {3, 4, 4}, {0, 0, 1},
                                   {0, 0, 1});
  TestPlan p(&d.header);
  baracuda_tensor_t x = tensor(BARACUDA_DTYPE_F32, {3, 4, 4});
  // 2 * 2^62 + 3 * 2^62 + 3 * 2^62 = 2^65: a 64-bit sum would read 0.
  x.strides[0] = x.strides[1] = x.strides[2] = k2to62;
  x.capacity = 48;
  std::vector<baracuda_arg_t> args = {{BARACUDA_ARG_X, x}, {BARACUDA_ARG_Y, tensor(BARACUDA_DTYPE_F32, {3, 4, 6}, 1 << 20)}};
  CHECK(baracuda_plan_check(p.plan, args.data(), 2) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"pad: arg X reaches beyond element 2^62"});
  const std::string message = baracuda_last_error_message();
  CHECK(message.find('-') == std::string::npos);
  // Within 2^62 but past capacity: the exact element is named.
  x.strides[0] = int64_t{1} << 40, x.strides[1] = 4, x.strides[2] = 1;
  args[0].tensor = x;
  CHECK(baracuda_plan_check(p.plan, args.data(), 2) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"pad: arg X reaches element 2199023255567 but capacity is 48"});
}
