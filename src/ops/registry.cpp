// Every op the library serves: one line each.
#include "core/registry.hpp"

#include "ops/causal_conv1d/causal_conv1d_ops.hpp"
#include "ops/pad/pad_ops.hpp"
#include "ops/write_slice/write_slice_ops.hpp"

namespace baracuda {

namespace {
const OpEntry kOps[] = {
    {BARACUDA_OP_PAD, "pad", pad::pad_dtypes(), pad::select_pad},
    {BARACUDA_OP_PAD_BACKWARD, "pad_backward", pad::pad_backward_dtypes(), pad::select_pad_backward},
    {BARACUDA_OP_WRITE_SLICE, "write_slice", write_slice::write_slice_dtypes(), write_slice::select_write_slice},
    {BARACUDA_OP_CAUSAL_CONV1D, "causal_conv1d", causal_conv1d::causal_conv1d_dtypes(), causal_conv1d::select_forward},
    {BARACUDA_OP_CAUSAL_CONV1D_BACKWARD, "causal_conv1d_backward", causal_conv1d::causal_conv1d_dtypes(),
     causal_conv1d::select_backward},
    {BARACUDA_OP_CAUSAL_CONV1D_UPDATE, "causal_conv1d_update", causal_conv1d::causal_conv1d_dtypes(),
     causal_conv1d::select_update},
};
}  // namespace

const OpEntry *op_entries(size_t *count) {
  *count = sizeof(kOps) / sizeof(kOps[0]);
  return kOps;
}

const OpEntry *find_op(int32_t op) {
  for (const OpEntry &e : kOps)
    if (e.op == op) return &e;
  return nullptr;
}

}  // namespace baracuda
