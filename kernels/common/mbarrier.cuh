// mbarriers in shared memory (sm_90): initialization, arrivals that announce
// the bytes of asynchronous copies or stores completing on the barrier, and
// phase waits. Shared by the Hopper attention kernel's TMA ring and the
// cluster hand-off (common/cluster_handoff.cuh). Barriers are named by their
// 32-bit shared-memory address.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/shared_address.cuh"

namespace baracuda::kernels {

__device__ __forceinline__ void mbarrier_init(uint32_t bar, uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(arrivals) : "memory");
}

// Makes the initialized barriers visible to the copy engine and to the
// cluster's other blocks before any copy or remote store names them.
__device__ __forceinline__ void mbarrier_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// One arrival that also announces `bytes` of copies completing on bar in this phase.
__device__ __forceinline__ void mbarrier_arrive_expect_bytes(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}

__device__ __forceinline__ void mbarrier_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

// Blocks until the phase of parity `parity` has completed.
__device__ __forceinline__ void mbarrier_wait(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n.reg .pred done;\n"
      "retry:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra retry;\n"
      "}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}

// The same, acquiring at cluster scope: what other blocks of the cluster
// stored (st.async completing on bar) is visible after it.
__device__ __forceinline__ void mbarrier_wait_cluster(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n.reg .pred done;\n"
      "retry:\n"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra retry;\n"
      "}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}

}  // namespace baracuda::kernels
