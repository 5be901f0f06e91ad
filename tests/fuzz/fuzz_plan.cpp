// libFuzzer target: arbitrary descriptors, select options, plan-info structs
// and argument arrays through select, workspace_size, get_info, check and
// destroy, with target_sm always set (no GPU is touched). run() is never
// called. Beyond ASan/UBSan/LSan and libFuzzer's timeout, it aborts on any
// break of the C ABI's contract (include/baracuda/core.h):
//   - a status other than 0..4, or a negative one other than host out of
//     memory (with target_sm set, no CUDA call may happen at all);
//   - a failure whose baracuda_last_error_message() is empty, was left over
//     from the previous call, or names neither the op nor the entry point;
//   - select succeeding without a plan, or failing without NULLing it;
//   - get_info disagreeing with select and workspace_size.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_input.hpp"

namespace {

// A message no call under test can leave: what a NULL plan's workspace query says.
std::string plant_sentinel_message() {
  baracuda_plan_workspace_size(nullptr, nullptr);
  return baracuda_last_error_message();
}

[[noreturn]] void contract_broken(const char *call, baracuda_status_t status, const char *why) {
  std::fprintf(stderr, "contract broken: %s returned %d (%s): %s\n  last error message: \"%s\"\n", call, status,
               baracuda_status_string(status), why, baracuda_last_error_message());
  std::abort();
}

// Runs one ABI call and holds its status and message to the contract.
template <class Call>
baracuda_status_t checked(const char *call, const char *op_name, Call &&body) {
  const std::string sentinel = plant_sentinel_message();
  const baracuda_status_t status = body();
  if (status > BARACUDA_STATUS_WORKSPACE_TOO_SMALL) contract_broken(call, status, "status above 4");
  if (status < 0 && status != -static_cast<baracuda_status_t>(cudaErrorMemoryAllocation))
    contract_broken(call, status, "a CUDA error although target_sm keeps the GPU out of it");
  if (status == BARACUDA_STATUS_SUCCESS) return status;
  const char *message = baracuda_last_error_message();
  if (message == nullptr || message[0] == '\0') contract_broken(call, status, "empty error message");
  if (sentinel == message) contract_broken(call, status, "the error message is the previous call's");
  if (std::strstr(message, "baracuda_") == nullptr && (op_name == nullptr || std::strstr(message, op_name) == nullptr))
    contract_broken(call, status, "the error message names neither the op nor the entry point");
  return status;
}

void probe_plan(baracuda_plan_t plan, const char *op_name, int32_t op, int32_t target_sm, uint8_t calls,
                std::vector<uint8_t> &info_buf, std::vector<baracuda_arg_t> &args, int32_t num_args) {
  size_t workspace = 0;
  const baracuda_status_t ws = checked("baracuda_plan_workspace_size", op_name, [&] {
    return baracuda_plan_workspace_size(plan, (calls & fuzz::kNullWorkspaceBytes) ? nullptr : &workspace);
  });

  auto *info = reinterpret_cast<baracuda_plan_info_t *>(info_buf.data());
  const baracuda_status_t got = checked("baracuda_plan_get_info", op_name, [&] {
    return baracuda_plan_get_info(plan, (calls & fuzz::kNullInfo) ? nullptr : info);
  });
  if (got == BARACUDA_STATUS_SUCCESS) {
    if (info->op != op) contract_broken("baracuda_plan_get_info", got, "info.op is not the descriptor's op");
    if (info->target_sm != target_sm) contract_broken("baracuda_plan_get_info", got, "info.target_sm is not the selected one");
    if (ws == BARACUDA_STATUS_SUCCESS && info->workspace_bytes != workspace)
      contract_broken("baracuda_plan_get_info", got, "info.workspace_bytes disagrees with workspace_size");
    if (std::memchr(info->kernel_name, '\0', sizeof info->kernel_name) == nullptr)
      contract_broken("baracuda_plan_get_info", got, "kernel_name is not NUL-terminated");
  }

  const baracuda_arg_t *arg_ptr = (calls & fuzz::kNullArgs) ? nullptr : args.data();
  const int repeats = (calls & fuzz::kCheckTwice) ? 2 : 1;
  baracuda_status_t first = 0;
  for (int i = 0; i < repeats; ++i) {
    const baracuda_status_t s =
        checked("baracuda_plan_check", op_name, [&] { return baracuda_plan_check(plan, arg_ptr, num_args); });
    if (i == 0) first = s;
    // A plan is immutable after select: the same arguments get the same answer.
    if (s != first) contract_broken("baracuda_plan_check", s, "a second check of the same arguments differs");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::Reader in(data, size);
  fuzz::FuzzControl control;
  in.read(&control, sizeof control);

  // The caller always owns the header, whatever struct_size it declares.
  const uint32_t desc_size = control.desc_size;
  std::vector<uint8_t> desc_buf = in.bytes(desc_size < sizeof(baracuda_op_header_t) ? sizeof(baracuda_op_header_t)
                                                                                    : desc_size);
  auto *desc = reinterpret_cast<baracuda_op_header_t *>(desc_buf.data());
  desc->struct_size = desc_size;

  const uint16_t options_size = control.options_size < fuzz::kMinOptionsSize ? fuzz::kMinOptionsSize
                                                                            : control.options_size;
  std::vector<uint8_t> options_buf = in.bytes(options_size);
  auto *opts = reinterpret_cast<baracuda_select_options_t *>(options_buf.data());
  const int32_t target_sm = fuzz::kTargetSms[control.sm_index % fuzz::kNumTargetSms];
  opts->struct_size = options_size;
  opts->target_sm = target_sm;

  const uint16_t info_size = control.info_size < sizeof(uint32_t) ? sizeof(uint32_t) : control.info_size;
  std::vector<uint8_t> info_buf = in.bytes(info_size);
  reinterpret_cast<baracuda_plan_info_t *>(info_buf.data())->struct_size = control.info_size;

  const int32_t num_args = control.num_args;
  std::vector<baracuda_arg_t> args(num_args > 0 ? num_args : 0);
  for (baracuda_arg_t &a : args) {
    in.read(&a, sizeof a);
    a.tensor.data = fuzz::fake_pointer(reinterpret_cast<uintptr_t>(a.tensor.data));
  }

  const char *op_name = baracuda_op_name(desc->op);
  baracuda_plan_t plan = reinterpret_cast<baracuda_plan_t>(fuzz::kFakeDeviceBase);
  const bool null_out = control.calls & fuzz::kNullOutPlan;
  const baracuda_status_t selected = checked("baracuda_plan_select", op_name, [&] {
    return baracuda_plan_select((control.calls & fuzz::kNullDesc) ? nullptr : desc, opts, null_out ? nullptr : &plan);
  });
  if (null_out) return 0;
  if (selected != BARACUDA_STATUS_SUCCESS) {
    if (plan != nullptr) contract_broken("baracuda_plan_select", selected, "failed but left *out_plan set");
    return 0;
  }
  if (plan == nullptr) contract_broken("baracuda_plan_select", selected, "succeeded with a NULL plan");
  probe_plan(plan, op_name, desc->op, target_sm, control.calls, info_buf, args, num_args);
  baracuda_plan_destroy(plan);
  return 0;
}
