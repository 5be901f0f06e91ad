// The probe's variants behind one C function for torch_vs.py, which times
// them beside PyTorch's cuDNN attention (its own cuDNN 9.19) in one process:
// linked with the variants' objects into libprobe.so (build.sh, where
// PROBE_TORCH_LIB is set). Contiguous bf16 [B, H, S, D] tensors, lse [B, H, S].
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "sdpa/sdpa_problem.h"

using baracuda::kernels::SdpaProblem;

int probe_forward_base(const void *, cudaStream_t);
__attribute__((weak)) int probe_forward_v1(const void *, cudaStream_t);
__attribute__((weak)) int probe_forward_v2(const void *, cudaStream_t);
__attribute__((weak)) int probe_forward_v3(const void *, cudaStream_t);
__attribute__((weak)) int probe_forward_v4(const void *, cudaStream_t);
extern "C" {
int probe_f16 = 0;

// 0 on a launch, 2 where the variant was not built or does not build the
// problem's tile, else the variant's code (a negated CUDA error, 1: refused).
int probe_torch_run(const char *name, void *q, void *k, void *v, void *o, float *lse, int64_t B, int64_t H,
                    int64_t S, int64_t D, int causal) {
  int (*run)(const void *, cudaStream_t) = std::strcmp(name, "base") == 0 ? probe_forward_base
                                           : std::strcmp(name, "v1") == 0 ? probe_forward_v1
                                           : std::strcmp(name, "v2") == 0 ? probe_forward_v2
                                           : std::strcmp(name, "v3") == 0 ? probe_forward_v3
                                           : std::strcmp(name, "v4") == 0 ? probe_forward_v4
                                                                          : nullptr;
  if (run == nullptr) return 2;
  SdpaProblem p{};
  p.batch = B;
  p.heads_q = p.heads_kv = H;
  p.queries = p.keys = S;
  p.head_dim = p.head_dim_v = D;
  p.scale = 1.0 / std::sqrt(double(D));
  p.causal = causal != 0;
  p.window_left = p.window_right = -1;
  const auto set = [&](auto &t, void *data) {
    t.data = data;
    t.stride[0] = H * S * D;
    t.stride[1] = S * D;
    t.stride[2] = D;
  };
  set(p.q, q);
  set(p.k, k);
  set(p.v, v);
  set(p.out, o);
  p.lse = lse;
  p.lse_stride[0] = H * S;
  p.lse_stride[1] = S;
  p.lse_stride[2] = 1;
  return run(&p, nullptr);
}
}
