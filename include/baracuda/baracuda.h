/*
 * baracuda-kernels: the umbrella header. Include this one.
 *
 *   core.h           status codes, dtypes, tensors, arguments, plans, errors
 *   causal_conv1d.h  causal conv1d (Mamba): forward, backward, decode update
 *   pad.h            pad and pad backward
 *   write_slice.h    write_slice (KV-cache append)
 *
 * A whole life cycle, error handling left out:
 *
 *     baracuda_pad_desc_t desc = BARACUDA_PAD_DESC_INIT;
 *     desc.dtype = BARACUDA_DTYPE_F32; desc.mode = BARACUDA_PAD_REFLECT; desc.rank = 2;
 *     desc.input_shape[0] = 4; desc.input_shape[1] = 100; desc.pad_low[1] = 3; desc.pad_high[1] = 5;
 *     baracuda_plan_t plan;
 *     baracuda_plan_select(&desc.header, NULL, &plan);
 *     baracuda_arg_t args[2] = {{BARACUDA_ARG_X, x_tensor}, {BARACUDA_ARG_Y, y_tensor}};
 *     baracuda_plan_run(plan, args, 2, NULL, 0, stream);
 *     baracuda_plan_destroy(plan);
 */
#ifndef BARACUDA_BARACUDA_H
#define BARACUDA_BARACUDA_H

#include "baracuda/alibi.h"
#include "baracuda/causal_conv1d.h"
#include "baracuda/core.h"
#include "baracuda/pad.h"
#include "baracuda/sdpa.h"
#include "baracuda/write_slice.h"

#endif /* BARACUDA_BARACUDA_H */
