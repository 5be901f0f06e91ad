// A tensor's Conv1dView from its data and three strides, for the conv1d
// probes' C entries (which take contiguous tensors as raw pointers).
#pragma once

#include <cstdint>

#include "causal_conv1d/conv1d_problem.h"

namespace {

baracuda::kernels::Conv1dView view(void *data, int64_t s0, int64_t s1, int64_t s2) {
  baracuda::kernels::Conv1dView v;
  v.data = data;
  v.stride[0] = s0, v.stride[1] = s1, v.stride[2] = s2;
  return v;
}

}  // namespace
