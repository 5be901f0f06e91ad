// The extern "C" face: decodes arguments, forwards to the plan layer, and
// turns every exception into a status plus a thread-local message. No logic.
#include <cuda_runtime_api.h>

#include <cstring>
#include <new>

#include "baracuda/baracuda.h"
#include "baracuda_build_config.h"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/plan.hpp"
#include "core/registry.hpp"
#include "core/select_context.hpp"
#include "core/versioned.hpp"
#include "ops/alibi/alibi_slopes.hpp"

using baracuda::fail;

namespace {

template <class Body>
baracuda_status_t guarded(const char *fn, Body &&body) noexcept {
  try {
    body();
    return BARACUDA_STATUS_SUCCESS;
  } catch (const baracuda::Error &e) {
    try {
      baracuda::set_last_error(e.message());
    } catch (...) {
    }
    return e.status();
  } catch (const std::bad_alloc &) {
    try {
      baracuda::set_last_error(std::string(fn) + ": out of host memory");
    } catch (...) {
    }
    return -static_cast<baracuda_status_t>(cudaErrorMemoryAllocation);
  } catch (...) {
    try {
      baracuda::set_last_error(std::string(fn) + ": internal error");
    } catch (...) {
    }
    return BARACUDA_STATUS_INVALID_PROBLEM;
  }
}

void require_plan(const char *fn, baracuda_plan_t plan) {
  if (plan == nullptr) fail(BARACUDA_STATUS_INVALID_PROBLEM, fn, ": plan is NULL");
}

}  // namespace

extern "C" {

baracuda_status_t baracuda_plan_select(const baracuda_op_header_t *desc, const baracuda_select_options_t *opts,
                                       baracuda_plan_t *out_plan) {
  return guarded("baracuda_plan_select", [&] {
    if (out_plan == nullptr) fail(BARACUDA_STATUS_INVALID_PROBLEM, "baracuda_plan_select: out_plan is NULL");
    *out_plan = nullptr;
    if (desc == nullptr) fail(BARACUDA_STATUS_INVALID_PROBLEM, "baracuda_plan_select: desc is NULL");
    const baracuda::OpEntry *entry = baracuda::find_op(desc->op);
    if (entry == nullptr) fail(BARACUDA_STATUS_INVALID_PROBLEM, "baracuda_plan_select: op ", desc->op, " is not an op");
    const baracuda::SelectContext ctx = baracuda::resolve_select_options(entry->def->name, opts);
    *out_plan = entry->select(desc, ctx).release();
  });
}

baracuda_status_t baracuda_plan_workspace_size(baracuda_plan_t plan, size_t *bytes) {
  return guarded("baracuda_plan_workspace_size", [&] {
    require_plan("baracuda_plan_workspace_size", plan);
    if (bytes == nullptr) fail(BARACUDA_STATUS_INVALID_PROBLEM, "baracuda_plan_workspace_size: bytes is NULL");
    *bytes = plan->workspace_size();
  });
}

baracuda_status_t baracuda_plan_check(baracuda_plan_t plan, const baracuda_arg_t *args, int32_t num_args) {
  return guarded("baracuda_plan_check", [&] {
    require_plan("baracuda_plan_check", plan);
    plan->check(args, num_args);
  });
}

baracuda_status_t baracuda_plan_run(baracuda_plan_t plan, const baracuda_arg_t *args, int32_t num_args,
                                    void *workspace, size_t workspace_bytes, baracuda_stream_t stream) {
  return guarded("baracuda_plan_run", [&] {
    require_plan("baracuda_plan_run", plan);
    const size_t need = plan->workspace_size();
    if (workspace_bytes < need)
      fail(BARACUDA_STATUS_WORKSPACE_TOO_SMALL, "baracuda_plan_run: workspace_bytes is ", workspace_bytes,
           ", the plan needs ", need);
    if (need > 0 && workspace == nullptr)
      fail(BARACUDA_STATUS_INVALID_PROBLEM, "baracuda_plan_run: workspace is NULL, the plan needs ", need, " bytes");
    plan->run(args, num_args, workspace, workspace_bytes, stream);
  });
}

baracuda_status_t baracuda_plan_get_info(baracuda_plan_t plan, baracuda_plan_info_t *info) {
  return guarded("baracuda_plan_get_info", [&] {
    require_plan("baracuda_plan_get_info", plan);
    baracuda::check_struct_size("baracuda_plan_get_info", "info", info, info ? info->struct_size : 0,
                                sizeof(baracuda_plan_info_t), sizeof(baracuda_plan_info_t));
    baracuda_plan_info_t filled = plan->info;
    filled.struct_size = info->struct_size;
    std::memcpy(info, &filled, sizeof filled);
  });
}

void baracuda_plan_destroy(baracuda_plan_t plan) { delete plan; }

const char *baracuda_status_string(int32_t status) {
  switch (status) {
    case BARACUDA_STATUS_SUCCESS: return "SUCCESS";
    case BARACUDA_STATUS_MISALIGNED_OPERAND: return "MISALIGNED_OPERAND";
    case BARACUDA_STATUS_INVALID_PROBLEM: return "INVALID_PROBLEM";
    case BARACUDA_STATUS_UNSUPPORTED: return "UNSUPPORTED";
    case BARACUDA_STATUS_WORKSPACE_TOO_SMALL: return "WORKSPACE_TOO_SMALL";
    default: break;
  }
  if (status < 0) return cudaGetErrorName(static_cast<cudaError_t>(-status));
  return "UNKNOWN_STATUS";
}

const char *baracuda_last_error_message(void) { return baracuda::last_error(); }

static_assert(BARACUDA_BUILD_VERSION == BARACUDA_VERSION,
              "meson.build's project version and include/baracuda/core.h's BARACUDA_VERSION_* disagree");

uint32_t baracuda_version(void) { return BARACUDA_BUILD_VERSION; }

const char *baracuda_dtype_name(baracuda_dtype_t dtype) { return baracuda::dtype_name(dtype); }

int32_t baracuda_dtype_bits(baracuda_dtype_t dtype) { return baracuda::dtype_traits(dtype).bits; }

int32_t baracuda_op_list(int32_t *ops, int32_t capacity) {
  size_t count = 0;
  const baracuda::OpEntry *entries = baracuda::op_entries(&count);
  for (size_t i = 0; ops != nullptr && i < count && static_cast<int32_t>(i) < capacity; ++i) ops[i] = entries[i].def->id;
  return static_cast<int32_t>(count);
}

const char *baracuda_op_name(int32_t op) {
  const baracuda::OpEntry *e = baracuda::find_op(op);
  return e ? e->def->name : nullptr;
}

uint64_t baracuda_op_dtype_mask(int32_t op) {
  const baracuda::OpEntry *e = baracuda::find_op(op);
  return e ? e->def->dtypes : 0;
}

baracuda_status_t baracuda_get_build_info(baracuda_build_info_t *info) {
  return guarded("baracuda_get_build_info", [&] {
    baracuda::check_struct_size("baracuda_get_build_info", "info", info, info ? info->struct_size : 0,
                                sizeof(baracuda_build_info_t), sizeof(baracuda_build_info_t));
    baracuda_build_info_t filled = baracuda::build_info();
    filled.struct_size = info->struct_size;
    std::memcpy(info, &filled, sizeof filled);
  });
}

baracuda_status_t baracuda_alibi_slopes(int32_t num_heads, float *out) {
  return guarded("baracuda_alibi_slopes", [&] { baracuda::alibi::write_slopes(num_heads, out); });
}

}  // extern "C"
