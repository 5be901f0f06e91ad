// The candidate machinery on a test-only list: order, the select flags, the
// target arch, workspace limits and the UNSUPPORTED message listing every
// reason. The real ops' lists go through the same select_candidate.
#include <memory>
#include <string>

#include "core/candidates.hpp"
#include "core/error.hpp"
#include "cpu_helpers.hpp"
#include "reference/harness.hpp"

namespace {

using baracuda::Candidate;
using baracuda::int128;
using baracuda::SelectContext;
using baracuda::WhyNot;

struct Problem {
  int128 workspace;
};

// A plan that is only selected, never run.
struct SelectedPlan final : baracuda::Plan {
  void check(const baracuda_arg_t *, int32_t) const override {}
  void run(const baracuda_arg_t *, int32_t, void *, size_t, baracuda_stream_t) const override {}
};

WhyNot always(const Problem &, const SelectContext &) { return baracuda::serves(); }
WhyNot needs_sm90(const Problem &, const SelectContext &ctx) {
  if (ctx.target_sm < 90) return std::string("needs sm 90 or newer");
  return baracuda::serves();
}
int128 problem_workspace(const Problem &p) { return p.workspace; }
int128 no_workspace(const Problem &) { return 0; }
std::unique_ptr<baracuda::Plan> make(const Problem &, const SelectContext &) { return std::make_unique<SelectedPlan>(); }

constexpr baracuda::OpDef kOp = {99, "test_op", 0, nullptr, 0};

const Candidate<Problem> kList[] = {
    {{"vendor", BARACUDA_BACKEND_CUDNN, false, false}, always, no_workspace, make},
    {{"hopper", BARACUDA_BACKEND_BESPOKE, true, true}, needs_sm90, problem_workspace, make},
    {{"simt", BARACUDA_BACKEND_BESPOKE, true, false}, always, no_workspace, make},
};
const Candidate<Problem> kNoFallback[] = {kList[0], kList[1]};

baracuda_plan_info_t select_info(const Problem &problem, int32_t sm, uint32_t flags) {
  const auto plan = baracuda::select_candidate(kOp, BARACUDA_DTYPE_BF16, problem, SelectContext{sm, flags}, kList);
  return plan->info;
}

}  // namespace

TEST_CASE("select takes the first candidate the flags allow and the arch serves", "[select]") {
  const Problem small{1024};
  baracuda_plan_info_t info = select_info(small, 90, 0);
  CHECK(info.backend == BARACUDA_BACKEND_CUDNN);
  CHECK(info.deterministic == 0);
  CHECK(info.op == 99);
  CHECK(info.dtype == BARACUDA_DTYPE_BF16);
  CHECK(info.target_sm == 90);

  info = select_info(small, 90, BARACUDA_SELECT_BESPOKE_ONLY);
  CHECK(info.backend == BARACUDA_BACKEND_BESPOKE);
  CHECK(info.bit_stable == 1);
  CHECK(info.workspace_bytes == 1024);

  info = select_info(small, 90, BARACUDA_SELECT_DETERMINISTIC);
  CHECK(info.workspace_bytes == 1024);  // hopper: the vendor one is not deterministic

  info = select_info(small, 80, BARACUDA_SELECT_DETERMINISTIC);
  CHECK(info.bit_stable == 0);  // simt: hopper needs sm 90
  CHECK(info.workspace_bytes == 0);

  const Problem huge{int128{1} << 64};
  info = select_info(huge, 90, BARACUDA_SELECT_BESPOKE_ONLY);
  CHECK(info.bit_stable == 0);  // simt: hopper's workspace does not fit
}

TEST_CASE("when no candidate serves, UNSUPPORTED lists each one's reason", "[select]") {
  const Problem huge{int128{1} << 64};
  const SelectContext ctx{90, BARACUDA_SELECT_BESPOKE_ONLY};
  try {
    baracuda::select_candidate(kOp, BARACUDA_DTYPE_F32, huge, ctx, kNoFallback);
    FAIL("select_candidate returned a plan");
  } catch (const baracuda::Error &e) {
    CHECK(e.status() == BARACUDA_STATUS_UNSUPPORTED);
    INFO(e.message());
    CHECK(e.message().find("test_op: no implementation serves this problem on sm 90") != std::string::npos);
    CHECK(e.message().find("vendor: a vendor library, excluded by BARACUDA_SELECT_BESPOKE_ONLY") != std::string::npos);
    CHECK(e.message().find("hopper: its workspace would be 18446744073709551616 bytes, over 2^62") !=
          std::string::npos);
  }
  try {
    baracuda::select_candidate(kOp, BARACUDA_DTYPE_F32, Problem{0}, SelectContext{80, BARACUDA_SELECT_DETERMINISTIC},
                               kNoFallback);
    FAIL("select_candidate returned a plan");
  } catch (const baracuda::Error &e) {
    INFO(e.message());
    CHECK(e.message().find("vendor: not deterministic, excluded by BARACUDA_SELECT_DETERMINISTIC") !=
          std::string::npos);
    CHECK(e.message().find("hopper: needs sm 90 or newer") != std::string::npos);
  }
}

TEST_CASE("BARACUDA_FORCE_CANDIDATE: the named candidate alone, flags still apply; other names change nothing",
          "[select]") {
  SelectContext ctx{90, 0};
  ctx.forced_candidate = "simt";
  CHECK(baracuda::select_candidate(kOp, BARACUDA_DTYPE_F32, Problem{1024}, ctx, kList)->info.bit_stable == 0);
  ctx.forced_candidate = "not_in_this_list";
  CHECK(baracuda::select_candidate(kOp, BARACUDA_DTYPE_F32, Problem{1024}, ctx, kList)->info.backend ==
        BARACUDA_BACKEND_CUDNN);
  ctx.forced_candidate = "vendor";
  ctx.flags = BARACUDA_SELECT_BESPOKE_ONLY;
  try {
    baracuda::select_candidate(kOp, BARACUDA_DTYPE_F32, Problem{0}, ctx, kList);
    FAIL("select_candidate returned a plan");
  } catch (const baracuda::Error &e) {
    INFO(e.message());
    CHECK(e.status() == BARACUDA_STATUS_UNSUPPORTED);
    CHECK(e.message().find("vendor: a vendor library, excluded by BARACUDA_SELECT_BESPOKE_ONLY") != std::string::npos);
    CHECK(e.message().find("simt: BARACUDA_FORCE_CANDIDATE names vendor") != std::string::npos);
  }
}

TEST_CASE("every op selects with both select flags, and plan info names the chosen kernel", "[select]") {
  baracuda_select_options_t o = options_for(90);
  o.flags = BARACUDA_SELECT_DETERMINISTIC | BARACUDA_SELECT_BESPOKE_ONLY;
  auto kernel_of = [&](const baracuda_op_header_t *desc) {
    baracuda_plan_t plan = nullptr;
    REQUIRE(baracuda_plan_select(desc, &o, &plan) == BARACUDA_STATUS_SUCCESS);
    baracuda_plan_info_t info = BARACUDA_PLAN_INFO_INIT;
    REQUIRE(baracuda_plan_get_info(plan, &info) == BARACUDA_STATUS_SUCCESS);
    baracuda_plan_destroy(plan);
    CHECK(info.backend == BARACUDA_BACKEND_BESPOKE);
    CHECK(info.deterministic == 1);
    return std::string(info.kernel_name);
  };
  baracuda_pad_desc_t back = baracuda::check::pad_desc(BARACUDA_OP_PAD_BACKWARD, BARACUDA_DTYPE_BF16,
                                                       BARACUDA_PAD_CONSTANT, {4, 9}, {1, 2}, {2, 3});
  CHECK(kernel_of(&back.header) == "pad_gather_rows_b2_constant");  // the slice candidate
  back.mode = BARACUDA_PAD_REFLECT;
  CHECK(kernel_of(&back.header) == "pad_backward_rows_bf16_reflect");
  baracuda_write_slice_desc_t slice = baracuda::check::slice_desc(BARACUDA_DTYPE_U4, {4, 9}, {1, 1}, {3, 8});
  CHECK(kernel_of(&slice.header) == "write_slice_nibble (memcpy when dense)");
  slice.dtype = BARACUDA_DTYPE_COMPLEX64;
  CHECK(kernel_of(&slice.header) == "write_slice_rows_b16 (vectors when aligned, memcpy when dense)");
  baracuda_causal_conv1d_desc_t conv = BARACUDA_CAUSAL_CONV1D_UPDATE_DESC_INIT;
  conv.dtype = BARACUDA_DTYPE_F64;
  conv.batch = 2, conv.channels = 8;
  CHECK(kernel_of(&conv.header).rfind("causal_conv1d_update_w4_f64", 0) == 0);
}
