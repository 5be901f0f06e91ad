/* The public header compiles as strict C99 and its helpers work from C. */
#include <stddef.h>

#include "baracuda/baracuda.h"

int main(void) {
  const int64_t shape[2] = {3, 4};
  baracuda_tensor_t t = baracuda_tensor_contiguous(NULL, BARACUDA_DTYPE_F32, 2, shape);
  baracuda_pad_desc_t pad = BARACUDA_PAD_DESC_INIT;
  baracuda_write_slice_desc_t slice = BARACUDA_WRITE_SLICE_DESC_INIT;
  baracuda_select_options_t opts = BARACUDA_SELECT_OPTIONS_INIT;
  baracuda_plan_info_t info = BARACUDA_PLAN_INFO_INIT;
  baracuda_arg_t arg;
  arg.role = BARACUDA_ARG_X;
  arg.tensor = t;
  if (t.strides[0] != 4 || t.capacity != 12) return 1;
  if (pad.header.struct_size != sizeof pad || pad.header.op != BARACUDA_OP_PAD) return 1;
  if (slice.header.op != BARACUDA_OP_WRITE_SLICE || opts.device != -1 || info.struct_size != sizeof info) return 1;
  if (offsetof(baracuda_arg_t, tensor) != 8 || sizeof(baracuda_tensor_t) != 152) return 1;
  return baracuda_version() > 0 && arg.role == 1 ? 0 : 1;
}
