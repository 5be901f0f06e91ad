// Attention: every bad descriptor and argument gets its status and a message
// naming it. Plans are selected for sm 90; nothing touches a GPU.
#include <cmath>
#include <limits>

#include "sdpa_cpu_cases.hpp"

namespace {

constexpr baracuda_status_t kInvalid = BARACUDA_STATUS_INVALID_PROBLEM;
constexpr baracuda_status_t kUnsupported = BARACUDA_STATUS_UNSUPPORTED;
constexpr int32_t kOps[] = {BARACUDA_OP_SDPA, BARACUDA_OP_SDPA_BACKWARD};

const char *op_name(int32_t op) { return op == BARACUDA_OP_SDPA ? "sdpa: " : "sdpa_backward: "; }

// desc, changed by edit, selects with status and a message holding fragment
// (after the op's name).
template <class Edit>
void expect_select(int32_t op, Edit edit, baracuda_status_t status, const std::string &fragment) {
  baracuda_sdpa_desc_t d = sdpa_desc(op);
  edit(d);
  CHECK(select_status(&d.header) == status);
  require_message({op_name(op) + fragment});
}

}  // namespace

TEST_CASE("sdpa: unknown causal, alignment, alibi, per_batch_slopes and reserved values are INVALID_PROBLEM",
          "[sdpa][validation]") {
  for (int32_t op : kOps) {
    baracuda_sdpa_desc_t d = sdpa_desc(op);
    CHECK(select_status(&d.header) == BARACUDA_STATUS_SUCCESS);
    expect_select(op, [](auto &x) { x.causal = 2; }, kInvalid, "causal is 2, must be 0 or 1");
    expect_select(op, [](auto &x) { x.alignment = 0; }, kInvalid, "alignment is 0");
    expect_select(op, [](auto &x) { x.alibi = 3; }, kInvalid, "alibi is 3");
    expect_select(op, [](auto &x) { x.per_batch_slopes = -1; }, kInvalid, "per_batch_slopes is -1, must be 0 or 1");
    expect_select(op, [](auto &x) { x.reserved0 = 4; }, kInvalid, "reserved0 is 4, must be 0");
    expect_select(op, [](auto &x) { x.header.struct_size = 12; }, kInvalid, "");
  }
}

TEST_CASE("sdpa: scale and softcap must be finite, softcap >= 0, windows -1 or >= 0", "[sdpa][validation]") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  for (int32_t op : kOps) {
    expect_select(op, [&](auto &x) { x.scale = nan; }, kInvalid, "scale is nan, must be finite");
    expect_select(op, [&](auto &x) { x.scale = -inf; }, kInvalid, "scale is -inf, must be finite");
    expect_select(op, [&](auto &x) { x.softcap = inf; }, kInvalid, "softcap is inf, must be finite");
    expect_select(op, [](auto &x) { x.softcap = -1; }, kInvalid, "softcap is -1, must be >= 0");
    expect_select(op, [](auto &x) { x.window_left = -2; }, kInvalid, "window_left is -2, must be -1");
    expect_select(op, [](auto &x) { x.window_right = -7; }, kInvalid, "window_right is -7, must be -1");
    // Negative scales, softcap, windows of any width and every option at once are served.
    baracuda_sdpa_desc_t d = sdpa_desc(op);
    d.scale = -0.5f;
    d.softcap = 30;
    d.causal = 1;
    d.alignment = BARACUDA_SDPA_BOTTOM_RIGHT;
    d.window_left = 0;
    d.window_right = std::numeric_limits<int64_t>::max();
    d.alibi = BARACUDA_ALIBI_SYMMETRIC;
    d.per_batch_slopes = 1;
    CHECK(select_status(&d.header) == BARACUDA_STATUS_SUCCESS);
  }
}

TEST_CASE("sdpa: head sizes are multiples of 8 (INVALID_PROBLEM otherwise), served up to 256", "[sdpa][validation]") {
  for (int32_t op : kOps) {
    for (int32_t bad : {0, -8, 12, 255})
      expect_select(op, [&](auto &x) { x.head_dim = bad; }, kInvalid,
                    "head_dim is " + std::to_string(bad) + ", must be a positive multiple of 8");
    for (int32_t bad : {-16, 20})
      expect_select(op, [&](auto &x) { x.head_dim_v = bad; }, kInvalid,
                    "head_dim_v is " + std::to_string(bad) + ", must be a positive multiple of 8");
    expect_select(op, [](auto &x) { x.head_dim = 264; }, kUnsupported, "no implementation serves");
    require_message({"head_dim 264 is over 256"});
    expect_select(op, [](auto &x) { x.head_dim_v = 512; }, kUnsupported, "no implementation serves");
    require_message({"head_dim_v 512 is over 256"});
    for (int32_t dv : {8, 256}) {
      baracuda_sdpa_desc_t d = sdpa_desc(op);
      d.head_dim = 8;
      d.head_dim_v = dv;
      CHECK(select_status(&d.header) == BARACUDA_STATUS_SUCCESS);
      d.head_dim = 256;
      CHECK(select_status(&d.header) == BARACUDA_STATUS_SUCCESS);
    }
  }
}

TEST_CASE("sdpa: heads_kv divides heads_q; extents are 0 to 2^62 with products under 2^62", "[sdpa][validation]") {
  for (int32_t op : kOps) {
    expect_select(op, [](auto &x) { x.heads_kv = 3; }, kInvalid, "heads_kv is 3, must divide heads_q (4)");
    expect_select(op, [](auto &x) { x.heads_kv = 8; }, kInvalid, "heads_kv is 8, must divide heads_q (4)");
    expect_select(op, [](auto &x) { x.heads_q = 0; }, kInvalid, "heads_kv is 2, must divide heads_q (0)");
    expect_select(op, [](auto &x) { x.batch = -1; }, kInvalid, "batch is -1, must be 0 to 2^62");
    expect_select(op, [](auto &x) { x.heads_q = -4; }, kInvalid, "heads_q is -4");
    expect_select(op, [](auto &x) { x.heads_kv = -2; }, kInvalid, "heads_kv is -2");
    expect_select(op, [](auto &x) { x.queries = -5; }, kInvalid, "queries is -5");
    expect_select(op, [](auto &x) { x.keys = (int64_t{1} << 62) + 1; }, kInvalid, "keys is 4611686018427387905");
    expect_select(op, [](auto &x) { x.queries = int64_t{1} << 60; }, kInvalid,
                  "Q [batch, heads_q, queries, head_dim] has over 2^62 elements");
    expect_select(op, [](auto &x) { x.keys = int64_t{1} << 58; }, kInvalid,
                  "K [batch, heads_kv, keys, head_dim] has over 2^62 elements");
    expect_select(op, [](auto &x) { x.keys = int64_t{1} << 56, x.head_dim = 8, x.head_dim_v = 256; }, kInvalid,
                  "V [batch, heads_kv, keys, head_dim_v] has over 2^62 elements");
    expect_select(op, [](auto &x) { x.queries = x.keys = 0, x.batch = x.heads_q = x.heads_kv = int64_t{1} << 32; }, kInvalid,
                  "SLOPES [batch, heads_q] has over 2^62 elements");
    // heads_kv 0 means heads_q; MQA (one kv head) and Q = K = 0 are served.
    for (int64_t hkv : {0, 1, 4}) {
      baracuda_sdpa_desc_t d = sdpa_desc(op);
      d.heads_kv = hkv;
      CHECK(select_status(&d.header) == BARACUDA_STATUS_SUCCESS);
    }
  }
}

TEST_CASE("sdpa: dtypes beyond f16, bf16, f32, f64, f32_strict are UNSUPPORTED", "[sdpa][validation]") {
  for (int32_t op : kOps) {
    expect_select(op, [](auto &x) { x.dtype = BARACUDA_DTYPE_FP8_E4M3; }, kUnsupported,
                  "dtype fp8_e4m3 is not served (f32, f16, bf16, f64, f32_strict)");
    expect_select(op, [](auto &x) { x.dtype = 0; }, kInvalid, "dtype 0 is not a dtype");
  }
}

TEST_CASE("sdpa: the arguments are checked against the descriptor", "[sdpa][validation]") {
  for (int32_t op : kOps) {
    const bool backward = op == BARACUDA_OP_SDPA_BACKWARD;
    baracuda_sdpa_desc_t d = sdpa_desc(op);
    TestPlan p(&d.header);
    std::vector<baracuda_arg_t> args = sdpa_args(BARACUDA_DTYPE_BF16, backward);
    CHECK(sdpa_check(p.plan, args) == BARACUDA_STATUS_SUCCESS);
    const int32_t roles[] = {BARACUDA_ARG_Q,    BARACUDA_ARG_K,  BARACUDA_ARG_V,  BARACUDA_ARG_OUT,
                             BARACUDA_ARG_DOUT, BARACUDA_ARG_DQ, BARACUDA_ARG_DK, BARACUDA_ARG_DV};
    for (int32_t role : roles) {
      if (!backward && (role == BARACUDA_ARG_DOUT || role >= BARACUDA_ARG_DQ)) continue;
      INFO("role " << role);
      args = sdpa_args(BARACUDA_DTYPE_BF16, backward);
      sdpa_arg(args, role).tensor.shape[2] += 1;
      CHECK(sdpa_check(p.plan, args) == kInvalid);
      require_message({op_name(op), "shape[2]"});
      args = sdpa_args(BARACUDA_DTYPE_BF16, backward);
      sdpa_arg(args, role).tensor.dtype = BARACUDA_DTYPE_F16;
      CHECK(sdpa_check(p.plan, args) == kInvalid);
      require_message({"dtype is f16, descriptor says bf16"});
      // The head-size axis must be dense.
      args = sdpa_args(BARACUDA_DTYPE_BF16, backward);
      baracuda_tensor_t &t = sdpa_arg(args, role).tensor;
      t = strided(t, {t.strides[0] * 2, t.strides[1] * 2, t.strides[2] * 2, 2});
      CHECK(sdpa_check(p.plan, args) == kUnsupported);
      require_message({op_name(op), "strides[3] is 2, only 1 is served on the head-size axis"});
      args = sdpa_args(BARACUDA_DTYPE_BF16, backward);
      args.erase(args.begin() + (&sdpa_arg(args, role) - args.data()));
      CHECK(sdpa_check(p.plan, args) == kInvalid);
      require_message({"is missing"});
    }
    args = sdpa_args(BARACUDA_DTYPE_BF16, backward);
    sdpa_arg(args, BARACUDA_ARG_K).tensor.capacity -= 1;
    CHECK(sdpa_check(p.plan, args) == kInvalid);
    require_message({"arg K reaches element", "capacity is"});
    args = sdpa_args(BARACUDA_DTYPE_BF16, backward);
    args.push_back({BARACUDA_ARG_SCORES, tensor(BARACUDA_DTYPE_BF16, {1})});
    CHECK(sdpa_check(p.plan, args) == kInvalid);
    require_message({"does not take"});
  }
}

TEST_CASE("sdpa: LSE is f32 (f64 for f64), optional in the forward, required in the backward", "[sdpa][validation]") {
  for (baracuda_dtype_t dtype : {BARACUDA_DTYPE_F16, BARACUDA_DTYPE_F64}) {
    baracuda_sdpa_desc_t d = sdpa_desc(BARACUDA_OP_SDPA, dtype);
    TestPlan fwd(&d.header);
    std::vector<baracuda_arg_t> args = sdpa_args(dtype, false);
    CHECK(sdpa_check(fwd.plan, args) == BARACUDA_STATUS_SUCCESS);
    sdpa_arg(args, BARACUDA_ARG_LSE).tensor.dtype = dtype == BARACUDA_DTYPE_F64 ? BARACUDA_DTYPE_F32 : dtype;
    CHECK(sdpa_check(fwd.plan, args) == kInvalid);
    require_message({"sdpa: arg LSE dtype is", dtype == BARACUDA_DTYPE_F64 ? "says f64" : "says f32"});
    args.pop_back();
    CHECK(sdpa_check(fwd.plan, args) == BARACUDA_STATUS_SUCCESS);
    // Any strides on LSE.
    args = sdpa_args(dtype, false);
    sdpa_arg(args, BARACUDA_ARG_LSE).tensor = strided(sdpa_arg(args, BARACUDA_ARG_LSE).tensor, {1, 2, 8});
    CHECK(sdpa_check(fwd.plan, args) == BARACUDA_STATUS_SUCCESS);

    d.header.op = BARACUDA_OP_SDPA_BACKWARD;
    TestPlan bwd(&d.header);
    args = sdpa_args(dtype, true);
    CHECK(sdpa_check(bwd.plan, args) == BARACUDA_STATUS_SUCCESS);
    args.erase(args.begin() + 4);
    CHECK(sdpa_check(bwd.plan, args) == kInvalid);
    require_message({"sdpa_backward: required arg LSE is missing"});
  }
}

TEST_CASE("sdpa: SLOPES is required with ALiBi and refused without, [Hq] or [B, Hq] in the LSE's dtype",
          "[sdpa][validation]") {
  for (int32_t op : kOps) {
    const bool backward = op == BARACUDA_OP_SDPA_BACKWARD;
    baracuda_sdpa_desc_t d = sdpa_desc(op);
    TestPlan plain(&d.header);
    std::vector<baracuda_arg_t> args = sdpa_args(BARACUDA_DTYPE_BF16, backward);
    args.push_back({BARACUDA_ARG_SLOPES, tensor(BARACUDA_DTYPE_F32, {4}, 9 << 20)});
    CHECK(sdpa_check(plain.plan, args) == kInvalid);
    require_message({op_name(op), "arg SLOPES is given but the descriptor's alibi is 0"});

    d.alibi = BARACUDA_ALIBI_SIGNED;
    TestPlan alibi(&d.header);
    CHECK(sdpa_check(alibi.plan, args) == BARACUDA_STATUS_SUCCESS);
    args.back().tensor.strides[0] = 0;  // one slope for every head: an input may broadcast
    CHECK(sdpa_check(alibi.plan, args) == BARACUDA_STATUS_SUCCESS);
    args.back().tensor = tensor(BARACUDA_DTYPE_BF16, {4}, 9 << 20);
    CHECK(sdpa_check(alibi.plan, args) == kInvalid);
    require_message({"arg SLOPES dtype is bf16, descriptor says f32"});
    args.back().tensor = tensor(BARACUDA_DTYPE_F32, {2, 4}, 9 << 20);
    CHECK(sdpa_check(alibi.plan, args) == kInvalid);
    require_message({"arg SLOPES rank is 2, descriptor says 1"});
    args.pop_back();
    CHECK(sdpa_check(alibi.plan, args) == kInvalid);
    require_message({op_name(op), "required arg SLOPES is missing (the descriptor asks for ALiBi)"});

    d.per_batch_slopes = 1;
    TestPlan per_batch(&d.header);
    args.push_back({BARACUDA_ARG_SLOPES, tensor(BARACUDA_DTYPE_F32, {2, 4}, 9 << 20)});
    CHECK(sdpa_check(per_batch.plan, args) == BARACUDA_STATUS_SUCCESS);
    args.back().tensor = tensor(BARACUDA_DTYPE_F32, {2, 3}, 9 << 20);
    CHECK(sdpa_check(per_batch.plan, args) == kInvalid);
    require_message({"arg SLOPES shape[1] is 3, descriptor says 4"});
  }
}

TEST_CASE("sdpa: outputs overlap no input and no other output; inputs may share a packed buffer",
          "[sdpa][validation]") {
  // Q, K and V as views of one packed [B, S, 3, H, D] buffer (H 4, S 6), and
  // the gradients of another: legal.
  baracuda_sdpa_desc_t d = sdpa_desc(BARACUDA_OP_SDPA_BACKWARD);
  d.heads_kv = 4;
  d.queries = d.keys = 6;
  TestPlan p(&d.header);
  const int64_t H = 4, S = 6, D = 64, bytes = 2;
  auto packed = [&](uintptr_t base, int64_t which) {
    baracuda_tensor_t t = tensor(BARACUDA_DTYPE_BF16, {2, H, S, D}, base + which * H * D * bytes);
    return strided(t, {S * 3 * H * D, D, 3 * H * D, 1});
  };
  std::vector<baracuda_arg_t> args = {{BARACUDA_ARG_Q, packed(0, 0)},
                                      {BARACUDA_ARG_K, packed(0, 1)},
                                      {BARACUDA_ARG_V, packed(0, 2)},
                                      {BARACUDA_ARG_OUT, tensor(BARACUDA_DTYPE_BF16, {2, H, S, D}, 3 << 20)},
                                      {BARACUDA_ARG_LSE, tensor(BARACUDA_DTYPE_F32, {2, H, S}, 4 << 20)},
                                      {BARACUDA_ARG_DOUT, tensor(BARACUDA_DTYPE_BF16, {2, H, S, D}, 5 << 20)},
                                      {BARACUDA_ARG_DQ, packed(6 << 20, 0)},
                                      {BARACUDA_ARG_DK, packed(6 << 20, 1)},
                                      {BARACUDA_ARG_DV, packed(6 << 20, 2)}};
  CHECK(sdpa_check(p.plan, args) == BARACUDA_STATUS_SUCCESS);
  // DV one element into DK's rows.
  std::vector<baracuda_arg_t> bad = args;
  bad[8].tensor = packed((6 << 20) + bytes, 1);
  CHECK(sdpa_check(p.plan, bad) == kInvalid);
  require_message({"sdpa_backward: arg DK overlaps arg DV"});
  // DQ written over Q, and over OUT (an input of the backward).
  bad = args;
  bad[6].tensor = packed(0, 0);
  CHECK(sdpa_check(p.plan, bad) == kInvalid);
  require_message({"arg DQ overlaps arg Q"});
  bad = args;
  bad[6].tensor = tensor(BARACUDA_DTYPE_BF16, {2, H, S, D}, 3 << 20);
  CHECK(sdpa_check(p.plan, bad) == kInvalid);
  require_message({"arg DQ overlaps arg OUT"});
  // DK sharing one kv head (head stride 0) would write one place twice.
  bad = args;
  bad[7].tensor.strides[1] = 0;
  CHECK(sdpa_check(p.plan, bad) == kInvalid);
  require_message({"arg DK strides[1] is 0 over extent 4", "may not broadcast"});

  // The forward: OUT into V's slot, LSE into OUT's rows.
  d.header.op = BARACUDA_OP_SDPA;
  TestPlan fwd(&d.header);
  std::vector<baracuda_arg_t> f(args.begin(), args.begin() + 5);
  CHECK(sdpa_check(fwd.plan, f) == BARACUDA_STATUS_SUCCESS);
  f[3].tensor = packed(0, 2);
  CHECK(sdpa_check(fwd.plan, f) == kInvalid);
  require_message({"sdpa: arg OUT overlaps arg V"});
  f = std::vector<baracuda_arg_t>(args.begin(), args.begin() + 5);
  f[4].tensor = tensor(BARACUDA_DTYPE_F32, {2, H, S}, (3 << 20) + 64);
  CHECK(sdpa_check(fwd.plan, f) == kInvalid);
  require_message({"sdpa: arg OUT overlaps arg LSE"});
  // K and V sharing one kv head in the forward: inputs may broadcast.
  f = std::vector<baracuda_arg_t>(args.begin(), args.begin() + 5);
  f[1].tensor.strides[1] = f[2].tensor.strides[1] = 0;
  CHECK(sdpa_check(fwd.plan, f) == BARACUDA_STATUS_SUCCESS);
}

TEST_CASE("sdpa: empty problems validate their arguments and run with no launch", "[sdpa][validation]") {
  for (int32_t op : kOps) {
    const bool backward = op == BARACUDA_OP_SDPA_BACKWARD;
    baracuda_sdpa_desc_t d = sdpa_desc(op);
    d.queries = d.keys = 0;
    TestPlan p(&d.header);
    baracuda_plan_info_t info = BARACUDA_PLAN_INFO_INIT;
    REQUIRE(baracuda_plan_get_info(p.plan, &info) == BARACUDA_STATUS_SUCCESS);
    CHECK(std::string(info.kernel_name).find("(empty problem: no launch)") != std::string::npos);
    CHECK(info.workspace_bytes == 0);
    std::vector<baracuda_arg_t> args = sdpa_args(BARACUDA_DTYPE_BF16, backward);
    for (baracuda_arg_t &a : args) {
      if (a.tensor.shape[2] == 5 || a.tensor.shape[2] == 7) a.tensor.shape[2] = 0;
      a.tensor.data = nullptr;
      a.tensor.capacity = 0;
    }
    CHECK(baracuda_plan_run(p.plan, args.data(), static_cast<int32_t>(args.size()), nullptr, 0, nullptr) ==
          BARACUDA_STATUS_SUCCESS);
    args[0].tensor.shape[3] = 32;
    CHECK(baracuda_plan_run(p.plan, args.data(), static_cast<int32_t>(args.size()), nullptr, 0, nullptr) == kInvalid);
    require_message({"arg Q shape[3] is 32, descriptor says 64"});
  }
  // Rows with no key still write out = 0 and lse = -inf: a kernel runs.
  baracuda_sdpa_desc_t d = sdpa_desc(BARACUDA_OP_SDPA);
  d.keys = 0;
  TestPlan p(&d.header);
  baracuda_plan_info_t info = BARACUDA_PLAN_INFO_INIT;
  REQUIRE(baracuda_plan_get_info(p.plan, &info) == BARACUDA_STATUS_SUCCESS);
  CHECK(std::string(info.kernel_name) == (build_serves(90) ? "sdpa_fwd_sm90_wgmma_bf16_d64" : "sdpa_fwd_sm80_bf16_d64"));
}
