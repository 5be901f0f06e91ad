// The staged tree's sm_80 backward, f16, as the library builds it.
#include "sdpa/sdpa_backward_f16.cu"
#include "sdpa/sdpa_backward_f16_h64.cu"
#include "sdpa/sdpa_backward_f16_h128.cu"
#include "sdpa/sdpa_backward_f16_h256.cu"
