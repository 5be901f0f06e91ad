// Attention: which kernel select chooses per target sm, dtype and flags, and
// what plan info says about it. No GPU involved.
#include <stdlib.h>  // setenv, unsetenv

#include <string>

#include "sdpa_cpu_cases.hpp"

namespace {

struct Selected {
  baracuda_status_t status;
  baracuda_plan_info_t info;
  size_t workspace;
};

Selected select_for(const baracuda_sdpa_desc_t &d, int32_t sm, uint32_t flags = 0) {
  baracuda_select_options_t o = options_for(sm);
  o.flags = flags;
  baracuda_plan_t plan = nullptr;
  Selected s{baracuda_plan_select(&d.header, &o, &plan), BARACUDA_PLAN_INFO_INIT, 0};
  if (s.status == BARACUDA_STATUS_SUCCESS) {
    REQUIRE(baracuda_plan_get_info(plan, &s.info) == BARACUDA_STATUS_SUCCESS);
    REQUIRE(baracuda_plan_workspace_size(plan, &s.workspace) == BARACUDA_STATUS_SUCCESS);
  }
  baracuda_plan_destroy(plan);
  return s;
}

std::string name_of(baracuda_dtype_t dtype) {
  switch (dtype) {
    case BARACUDA_DTYPE_F16: return "f16";
    case BARACUDA_DTYPE_BF16: return "bf16";
    case BARACUDA_DTYPE_F32: return "f32";
    case BARACUDA_DTYPE_F32_STRICT: return "f32_strict";
    default: return "f64";
  }
}

bool tensor_cores(baracuda_dtype_t dtype) { return dtype == BARACUDA_DTYPE_F16 || dtype == BARACUDA_DTYPE_BF16; }

const baracuda_dtype_t kDtypes[] = {BARACUDA_DTYPE_F16, BARACUDA_DTYPE_BF16, BARACUDA_DTYPE_F32, BARACUDA_DTYPE_F64,
                                    BARACUDA_DTYPE_F32_STRICT};

// The forward's variant: f32's tensor-core kernel is chosen where tf32 MMAs
// far outrun the f32 CUDA cores (sm 80 and 90, not sm 86, 89 and 120); f16
// and bf16 take the Hopper kernel on sm 90 (every build serving sm 90 holds it).
std::string forward_variant(baracuda_dtype_t dtype, int32_t sm) {
  if (dtype == BARACUDA_DTYPE_F32 && (sm == 80 || sm == 90)) return "sm80_3xtf32";
  if (!tensor_cores(dtype)) return "simt";
  return sm == 89 ? "sm89" : sm == 90 ? "sm90_wgmma" : "sm80";
}

}  // namespace

TEST_CASE("sdpa: the forward is sm89's on sm 89, the Hopper kernel's on sm 90, sm80's on other archs, 3xtf32 for f32 "
          "where it fits, simt for f64 and f32_strict",
          "[sdpa][select]") {
  for (int32_t sm : {80, 86, 89, 90, 120}) {
    if (!build_serves(sm)) continue;
    for (baracuda_dtype_t dtype : kDtypes) {
      INFO("sm " << sm << " dtype " << name_of(dtype));
      const Selected s = select_for(sdpa_desc(BARACUDA_OP_SDPA, dtype), sm);
      INFO(baracuda_last_error_message());
      REQUIRE(s.status == BARACUDA_STATUS_SUCCESS);
      CHECK(std::string(s.info.kernel_name) == "sdpa_fwd_" + forward_variant(dtype, sm) + "_" + name_of(dtype) + "_d64");
      CHECK(s.info.op == BARACUDA_OP_SDPA);
      CHECK(s.info.dtype == dtype);
      CHECK(s.info.target_sm == sm);
      CHECK(s.info.backend == BARACUDA_BACKEND_BESPOKE);
      CHECK(s.info.deterministic == 1);
      CHECK(s.info.bit_stable == 1);
      CHECK(s.info.accumulator == sdpa_stats_dtype(dtype));
      CHECK(s.info.math_precision == sdpa_stats_dtype(dtype));
      CHECK(s.workspace == 0);
      CHECK(s.info.workspace_bytes == 0);
    }
  }
}

TEST_CASE("sdpa: f32's tensor-core forward serves every head size on sm 80 and 90; f32_strict never gets it",
          "[sdpa][select]") {
  for (int32_t sm : {80, 90}) {
    if (!build_serves(sm)) continue;
    for (int32_t d = 8; d <= 256; d += 8)
      for (baracuda_dtype_t dtype : {BARACUDA_DTYPE_F32, BARACUDA_DTYPE_F32_STRICT}) {
        baracuda_sdpa_desc_t desc = sdpa_desc(BARACUDA_OP_SDPA, dtype);
        desc.head_dim = d;
        desc.head_dim_v = 264 - d;
        INFO("sm " << sm << " D " << d << " dtype " << name_of(dtype));
        const Selected s = select_for(desc, sm);
        INFO(baracuda_last_error_message());
        REQUIRE(s.status == BARACUDA_STATUS_SUCCESS);
        const std::string variant = dtype == BARACUDA_DTYPE_F32 ? "sm80_3xtf32" : "simt";
        CHECK(std::string(s.info.kernel_name) ==
              "sdpa_fwd_" + variant + "_" + name_of(dtype) + "_d" + std::to_string(d) + "_dv" + std::to_string(264 - d));
      }
  }
}

TEST_CASE("sdpa: the backward is sm80's (atomics; the Hopper kernel's on sm 90) for f16/bf16, their "
          "deterministic siblings on request, simt for f32/f64",
          "[sdpa][select]") {
  for (int32_t sm : {80, 89, 90}) {
    if (!build_serves(sm)) continue;
    for (baracuda_dtype_t dtype : kDtypes)
      for (uint32_t flags : {0u, BARACUDA_SELECT_DETERMINISTIC, BARACUDA_SELECT_BESPOKE_ONLY}) {
        INFO("sm " << sm << " dtype " << name_of(dtype) << " flags " << flags);
        const Selected s = select_for(sdpa_desc(BARACUDA_OP_SDPA_BACKWARD, dtype), sm, flags);
        INFO(baracuda_last_error_message());
        REQUIRE(s.status == BARACUDA_STATUS_SUCCESS);
        const bool atomics = tensor_cores(dtype) && flags != BARACUDA_SELECT_DETERMINISTIC;
        const std::string variant = !tensor_cores(dtype) ? "simt"
                                    : !atomics           ? (sm == 90 ? "sm90_deterministic" : "sm80_deterministic")
                                    : sm == 90           ? "sm90_wgmma"
                                                         : "sm80";
        CHECK(std::string(s.info.kernel_name) == "sdpa_bwd_" + variant + "_" + name_of(dtype) + "_d64");
        CHECK(s.info.op == BARACUDA_OP_SDPA_BACKWARD);
        CHECK(s.info.deterministic == !atomics);
        CHECK(s.info.bit_stable == !atomics);
        CHECK(s.info.backend == BARACUDA_BACKEND_BESPOKE);
        CHECK(s.info.accumulator == sdpa_stats_dtype(dtype));
        // The workspace holds at least rowsum(dout * out), one value per query row.
        CHECK(s.workspace == s.info.workspace_bytes);
        CHECK(s.workspace > 0);
      }
  }
}

TEST_CASE("sdpa: kernel names carry D and Dv; empty problems name no launch", "[sdpa][select]") {
  baracuda_sdpa_desc_t d = sdpa_desc(BARACUDA_OP_SDPA_BACKWARD, BARACUDA_DTYPE_F32);
  d.head_dim = 96;
  d.head_dim_v = 128;
  CHECK(std::string(select_for(d, 90).info.kernel_name) == "sdpa_bwd_simt_f32_d96_dv128");
  d.batch = 0;
  const Selected empty = select_for(d, 90);
  CHECK(std::string(empty.info.kernel_name) == "sdpa_bwd_simt_f32_d96_dv128 (empty problem: no launch)");
  CHECK(empty.workspace == 0);
  // Keys that no query sees still get dk = dv = 0: a kernel runs.
  d = sdpa_desc(BARACUDA_OP_SDPA_BACKWARD, BARACUDA_DTYPE_F16);
  d.queries = 0;
  CHECK(std::string(select_for(d, 90).info.kernel_name) ==
        (build_serves(90) ? "sdpa_bwd_sm90_wgmma_f16_d64" : "sdpa_bwd_sm80_f16_d64"));
}

TEST_CASE("sdpa: UNSUPPORTED lists why each candidate refused", "[sdpa][select]") {
  baracuda_sdpa_desc_t d = sdpa_desc(BARACUDA_OP_SDPA, BARACUDA_DTYPE_BF16);
  d.head_dim = 272;
  CHECK(select_for(d, 90).status == BARACUDA_STATUS_UNSUPPORTED);
  require_message({"sdpa: no implementation serves this problem on sm 90",
                   "sdpa_fwd_cudnn: needs a device: its graph is built on the GPU at select (target_sm 90 was named)",
                   "sdpa_fwd_sm90_wgmma: head_dim 272 is over 256",
                   "sdpa_fwd_sm89: chosen only for target sm 89", "sdpa_fwd_sm80: head_dim 272 is over 256",
                   "sdpa_fwd_sm80_3xtf32: dtype bf16 is not served (f32)",
                   "sdpa_fwd_simt: dtype bf16 is not served (f32, f64, f32_strict)"});
  if (build_serves(89)) {
    baracuda_sdpa_desc_t f = sdpa_desc(BARACUDA_OP_SDPA, BARACUDA_DTYPE_F32);
    f.head_dim = 272;
    CHECK(select_for(f, 89).status == BARACUDA_STATUS_UNSUPPORTED);
    require_message({"sdpa_fwd_sm80_3xtf32: sm 89's tf32 MMAs do not outrun its f32 CUDA cores"});
  }
  // cuDNN's forward is not promised to repeat bit for bit.
  CHECK(select_for(d, 90, BARACUDA_SELECT_DETERMINISTIC).status == BARACUDA_STATUS_UNSUPPORTED);
  require_message({"sdpa_fwd_cudnn: not deterministic, excluded by BARACUDA_SELECT_DETERMINISTIC"});
  d.header.op = BARACUDA_OP_SDPA_BACKWARD;
  CHECK(select_for(d, 90, BARACUDA_SELECT_DETERMINISTIC).status == BARACUDA_STATUS_UNSUPPORTED);
  require_message({"sdpa_bwd_cudnn: not deterministic, excluded by BARACUDA_SELECT_DETERMINISTIC",
                   "sdpa_bwd_cudnn_deterministic: needs a device",
                   "sdpa_bwd_sm80: not deterministic, excluded by BARACUDA_SELECT_DETERMINISTIC",
                   "sdpa_bwd_sm80_deterministic: head_dim 272 is over 256"});
}

TEST_CASE("sdpa: a backward whose blocks need more shared memory than the target sm offers is refused at select",
          "[sdpa][select]") {
  struct Row {
    baracuda_dtype_t dtype;
    int32_t head_dim;
    int32_t sm;
    bool served;
  };
  // The tensor-core backward's 128 and 256 head tiles need over 99 KiB (sm 86 / 89 offer that much); the
  // f64 CUDA-core backward's 256 class needs it too, even with its compact tiles.
  for (const Row &r : {Row{BARACUDA_DTYPE_BF16, 64, 89, true}, Row{BARACUDA_DTYPE_BF16, 128, 89, false},
                       Row{BARACUDA_DTYPE_F16, 256, 86, false}, Row{BARACUDA_DTYPE_BF16, 128, 80, true},
                       Row{BARACUDA_DTYPE_BF16, 256, 90, true}, Row{BARACUDA_DTYPE_F64, 256, 89, false},
                       Row{BARACUDA_DTYPE_F64, 256, 90, true}, Row{BARACUDA_DTYPE_F32, 256, 89, true}}) {
    if (!build_serves(r.sm)) continue;
    INFO("sm " << r.sm << " dtype " << name_of(r.dtype) << " D " << r.head_dim);
    baracuda_sdpa_desc_t d = sdpa_desc(BARACUDA_OP_SDPA_BACKWARD, r.dtype);
    d.head_dim = r.head_dim;
    const Selected s = select_for(d, r.sm);
    INFO(baracuda_last_error_message());
    if (r.served) {
      CHECK(s.status == BARACUDA_STATUS_SUCCESS);
    } else {
      CHECK(s.status == BARACUDA_STATUS_UNSUPPORTED);
      CHECK(std::string(baracuda_last_error_message()).find("KiB of shared memory") != std::string::npos);
    }
  }
}

TEST_CASE("sdpa: the cuDNN candidates, forced, need a device; BESPOKE_ONLY excludes them first", "[sdpa][select]") {
  for (const char *forced : {"sdpa_fwd_cudnn", "sdpa_bwd_cudnn", "sdpa_bwd_cudnn_deterministic"}) {
    INFO(forced);
    const bool backward = std::string(forced).find("bwd") != std::string::npos;
    const baracuda_sdpa_desc_t d = sdpa_desc(backward ? BARACUDA_OP_SDPA_BACKWARD : BARACUDA_OP_SDPA);
    setenv("BARACUDA_FORCE_CANDIDATE", forced, 1);
    const Selected plain = select_for(d, 90);
    const std::string plain_message = baracuda_last_error_message();
    const Selected bespoke_only = select_for(d, 90, BARACUDA_SELECT_BESPOKE_ONLY);
    const std::string bespoke_message = baracuda_last_error_message();
    unsetenv("BARACUDA_FORCE_CANDIDATE");
    CHECK(plain.status == BARACUDA_STATUS_UNSUPPORTED);
    CHECK(plain_message.find(std::string(forced) + ": needs a device") != std::string::npos);
    CHECK(plain_message.find(std::string(backward ? "sdpa_bwd_sm80" : "sdpa_fwd_sm80") +
                             ": BARACUDA_FORCE_CANDIDATE names " + forced) != std::string::npos);
    CHECK(bespoke_only.status == BARACUDA_STATUS_UNSUPPORTED);
    CHECK(bespoke_message.find(std::string(forced) + ": a vendor library, excluded by BARACUDA_SELECT_BESPOKE_ONLY") !=
          std::string::npos);
  }
}

TEST_CASE("sdpa: the Hopper forward's plan asks for a workspace where its last round may be shared out",
          "[sdpa][select]") {
  if (!build_serves(90)) return;
  baracuda_sdpa_desc_t d = sdpa_desc(BARACUDA_OP_SDPA, BARACUDA_DTYPE_BF16);
  d.head_dim = 128;
  d.batch = 4;
  d.heads_q = d.heads_kv = 32;
  d.queries = d.keys = 4096;
  const uint32_t bespoke = BARACUDA_SELECT_BESPOKE_ONLY;
  const Selected open = select_for(d, 90, bespoke);
  d.causal = 1;
  const Selected causal = select_for(d, 90, bespoke);
  d.keys = 4096 + 128;  // a causal mask over more keys than queries: never shared
  const Selected causal_longer = select_for(d, 90, bespoke);
  d.keys = 4096;
  d.causal = 0;
  d.window_left = 1000;
  const Selected window = select_for(d, 90, bespoke);
  d.window_left = -1;
  d.head_dim = 64;
  const Selected narrow = select_for(d, 90, bespoke);
  d.head_dim = 128;
  d.batch = d.heads_q = d.heads_kv = 1;
  d.queries = 128;
  d.keys = 7 * 128;  // one tile of 7 key tiles: one block's work
  const Selected one_tile = select_for(d, 90, bespoke);
  REQUIRE(open.status == BARACUDA_STATUS_SUCCESS);
  CHECK(std::string(open.info.kernel_name) == "sdpa_fwd_sm90_wgmma_bf16_d128");
  // Two pieces a block on 132 SMs (256 consumer threads' 17 vectors of 16
  // bytes each), two tiles' arrival counts for 131 items
  // (sdpa_sm90_forward_workspace_bytes).
  CHECK(open.workspace == 2u * 132 * 256 * 17 * 16 + 131u * 2 * 2 * 4);
  CHECK(open.info.workspace_bytes == open.workspace);
  CHECK(open.info.deterministic == 1);
  CHECK(open.info.bit_stable == 1);
  REQUIRE(causal.status == BARACUDA_STATUS_SUCCESS);
  CHECK(causal.workspace == open.workspace);
  for (const Selected *s : {&narrow, &one_tile, &causal_longer, &window}) {
    REQUIRE(s->status == BARACUDA_STATUS_SUCCESS);
    CHECK(s->workspace == 0);
  }
}

TEST_CASE("sdpa: the Hopper forward serves f16 / bf16 on sm 90 first among the bespoke kernels, on no other sm",
          "[sdpa][select]") {
  if (!build_serves(90)) return;
  const char *forced = "sdpa_fwd_sm90_wgmma";
  baracuda_sdpa_desc_t d = sdpa_desc(BARACUDA_OP_SDPA, BARACUDA_DTYPE_BF16);
  d.head_dim = 96;  // served in the 128 tile
  const Selected on_90 = select_for(d, 90);
  const Selected bespoke_only = select_for(d, 90, BARACUDA_SELECT_BESPOKE_ONLY | BARACUDA_SELECT_DETERMINISTIC);
  setenv("BARACUDA_FORCE_CANDIDATE", forced, 1);
  const Selected on_89 = select_for(d, 89);
  const std::string on_89_message = baracuda_last_error_message();
  d.dtype = BARACUDA_DTYPE_F32;
  const Selected f32 = select_for(d, 90);
  const std::string f32_message = baracuda_last_error_message();
  unsetenv("BARACUDA_FORCE_CANDIDATE");
  REQUIRE(on_90.status == BARACUDA_STATUS_SUCCESS);
  CHECK(std::string(on_90.info.kernel_name) == "sdpa_fwd_sm90_wgmma_bf16_d96");
  CHECK(on_90.info.backend == BARACUDA_BACKEND_BESPOKE);
  CHECK(on_90.info.deterministic == 1);
  // D 96 runs in the 128 tile, whose plan keeps room to share out a short last round.
  CHECK(on_90.workspace > 0);
  CHECK(on_90.info.workspace_bytes == on_90.workspace);
  REQUIRE(bespoke_only.status == BARACUDA_STATUS_SUCCESS);
  CHECK(std::string(bespoke_only.info.kernel_name) == "sdpa_fwd_sm90_wgmma_bf16_d96");
  if (build_serves(89)) {
    CHECK(on_89.status == BARACUDA_STATUS_UNSUPPORTED);
    CHECK(on_89_message.find("sdpa_fwd_sm90_wgmma: chosen only for target sm 90") != std::string::npos);
  }
  CHECK(f32.status == BARACUDA_STATUS_UNSUPPORTED);
  CHECK(f32_message.find("sdpa_fwd_sm90_wgmma: dtype f32 is not served (f16, bf16)") != std::string::npos);
}

TEST_CASE("sdpa: the Hopper backward serves f16 / bf16 on sm 90 first, its deterministic sibling on request",
          "[sdpa][select]") {
  if (!build_serves(90)) return;
  baracuda_sdpa_desc_t d = sdpa_desc(BARACUDA_OP_SDPA_BACKWARD, BARACUDA_DTYPE_BF16);
  d.head_dim = 96;  // served in the 128 tile
  CHECK(std::string(select_for(d, 90).info.kernel_name) == "sdpa_bwd_sm90_wgmma_bf16_d96");
  CHECK(std::string(select_for(d, 90, BARACUDA_SELECT_DETERMINISTIC).info.kernel_name) ==
        "sdpa_bwd_sm90_deterministic_bf16_d96");
  // Past 128 columns too (the 256 tile, whose consumers wait for the turns).
  d.head_dim = 192;
  CHECK(std::string(select_for(d, 90).info.kernel_name) == "sdpa_bwd_sm90_wgmma_bf16_d192");
  CHECK(std::string(select_for(d, 90, BARACUDA_SELECT_DETERMINISTIC).info.kernel_name) ==
        "sdpa_bwd_sm90_deterministic_bf16_d192");
  struct Row {
    const char *candidate;
    int32_t head_dim;
    uint32_t flags;
    const char *refusal;  // null: served
  };
  for (const Row &r : {Row{"sdpa_bwd_sm90_wgmma", 96, 0, nullptr},
                       Row{"sdpa_bwd_sm90_wgmma", 96, BARACUDA_SELECT_DETERMINISTIC, "not deterministic"},
                       Row{"sdpa_bwd_sm90_wgmma", 192, 0, nullptr},
                       Row{"sdpa_bwd_sm90_deterministic", 96, 0, nullptr},
                       Row{"sdpa_bwd_sm90_deterministic", 96, BARACUDA_SELECT_DETERMINISTIC, nullptr},
                       Row{"sdpa_bwd_sm90_deterministic", 192, BARACUDA_SELECT_DETERMINISTIC, nullptr}}) {
    d.head_dim = r.head_dim;
    setenv("BARACUDA_FORCE_CANDIDATE", r.candidate, 1);
    const Selected s = select_for(d, 90, r.flags);
    const std::string message = baracuda_last_error_message();
    unsetenv("BARACUDA_FORCE_CANDIDATE");
    INFO(r.candidate << " D " << r.head_dim << " flags " << r.flags << ": " << message);
    if (r.refusal == nullptr) {
      REQUIRE(s.status == BARACUDA_STATUS_SUCCESS);
      CHECK(std::string(s.info.kernel_name) == std::string(r.candidate) + "_bf16_d" + std::to_string(r.head_dim));
      const bool deterministic = std::string(r.candidate) == "sdpa_bwd_sm90_deterministic";
      CHECK(s.info.deterministic == deterministic);
      CHECK(s.info.bit_stable == deterministic);
      CHECK(s.workspace > 0);
    } else {
      CHECK(s.status == BARACUDA_STATUS_UNSUPPORTED);
      CHECK(message.find(std::string(r.candidate) + ": " + r.refusal) != std::string::npos);
    }
  }
}

TEST_CASE("sdpa: the Hopper backward refuses at select the extents its launch cannot take, so that plan info names "
          "the kernel that runs",
          "[sdpa][select]") {
  if (!build_serves(90)) return;
  struct Row {
    int64_t batch, heads, keys;
    const char *refusal;
  };
  for (const Row &r : {Row{1, 2, int64_t{1} << 31, "queries or keys reach 2^31 - 1"},
                       Row{70000, 1, 64, "batch is over 65535"}, Row{1, 70000, 64, "heads_kv is over 65535"}}) {
    baracuda_sdpa_desc_t d = sdpa_desc(BARACUDA_OP_SDPA_BACKWARD, BARACUDA_DTYPE_BF16);
    d.batch = r.batch;
    d.heads_q = d.heads_kv = r.heads;
    d.keys = r.keys;
    for (const char *candidate : {"sdpa_bwd_sm90_wgmma", "sdpa_bwd_sm90_deterministic"}) {
      setenv("BARACUDA_FORCE_CANDIDATE", candidate, 1);
      const bool deterministic = std::string(candidate) == "sdpa_bwd_sm90_deterministic";
      const Selected s = select_for(d, 90, deterministic ? BARACUDA_SELECT_DETERMINISTIC : 0);
      const std::string message = baracuda_last_error_message();
      unsetenv("BARACUDA_FORCE_CANDIDATE");
      INFO(candidate << " B " << r.batch << " H " << r.heads << " K " << r.keys << ": " << message);
      CHECK(s.status == BARACUDA_STATUS_UNSUPPORTED);
      CHECK(message.find(std::string(candidate) + ": " + r.refusal) != std::string::npos);
    }
  }
  // Sequences past TMA's coordinates go to the sm_80 kernel, whose grid takes them.
  baracuda_sdpa_desc_t d = sdpa_desc(BARACUDA_OP_SDPA_BACKWARD, BARACUDA_DTYPE_BF16);
  d.keys = int64_t{1} << 31;
  CHECK(std::string(select_for(d, 90).info.kernel_name) == "sdpa_bwd_sm80_bf16_d64");
  CHECK(std::string(select_for(d, 90, BARACUDA_SELECT_DETERMINISTIC).info.kernel_name) ==
        "sdpa_bwd_sm80_deterministic_bf16_d64");
}
