// Every op the library serves: one line each.
#include "core/registry.hpp"

#include "ops/alibi/alibi_ops.hpp"
#include "ops/causal_conv1d/causal_conv1d_ops.hpp"
#include "ops/pad/pad_ops.hpp"
#include "ops/sdpa/sdpa_ops.hpp"
#include "ops/write_slice/write_slice_ops.hpp"

namespace baracuda {

namespace {
const OpEntry kOps[] = {
    {&pad::kPad, pad::select_pad},
    {&pad::kPadBackward, pad::select_pad_backward},
    {&write_slice::kWriteSlice, write_slice::select_write_slice},
    {&causal_conv1d::kForward, causal_conv1d::select_forward},
    {&causal_conv1d::kBackward, causal_conv1d::select_backward},
    {&causal_conv1d::kUpdate, causal_conv1d::select_update},
    {&alibi::kForward, alibi::select_forward},
    {&alibi::kBackward, alibi::select_backward},
    {&sdpa::kForward, sdpa::select_forward},
    {&sdpa::kBackward, sdpa::select_backward},
};
}  // namespace

const OpEntry *op_entries(size_t *count) {
  *count = sizeof(kOps) / sizeof(kOps[0]);
  return kOps;
}

const OpEntry *find_op(int32_t op) {
  for (const OpEntry &e : kOps)
    if (e.def->id == op) return &e;
  return nullptr;
}

}  // namespace baracuda
