// The staged tree's sm_80 backward, bf16, as the library builds it.
#include "sdpa/sdpa_backward_bf16.cu"
#include "sdpa/sdpa_backward_bf16_h64.cu"
#include "sdpa/sdpa_backward_bf16_h128.cu"
#include "sdpa/sdpa_backward_bf16_h256.cu"
#include "sdpa/sdpa_backward_workspace.cu"
