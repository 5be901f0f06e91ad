#include "alibi/alibi_impl.cuh"

BARACUDA_ALIBI_ENTRIES(kAlibiBf16, __nv_bfloat16);
