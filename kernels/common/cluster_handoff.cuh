// One value from each block of a thread-block cluster into the first
// block's shared memory (sm_90), without a cluster barrier after the work.
// A cluster barrier's arrive would have to release everything the block
// wrote before it, so every sender would first wait until its global stores
// had landed; here each sender's value is an st.async that completes on an
// mbarrier in the receiver, and only the receiver waits, for the bytes.
//
// Protocol: the receiver (rank 0) opens the hand-off before its cluster
// barrier arrive (every block arrives once, relaxed, anywhere before its
// send); a sender waits on that barrier phase, so the receiver's mbarrier is
// initialized, then sends and may exit. The receiver waits for the bytes.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/mbarrier.cuh"

namespace baracuda::kernels {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

// Receiver, one thread, before the cluster barrier arrive: bar expects
// `bytes` of st.async in its phase 0.
__device__ __forceinline__ void handoff_open(uint64_t *bar, uint32_t bytes) {
  mbarrier_init(shared_address(bar), 1);
  mbarrier_arrive_expect_bytes(shared_address(bar), bytes);
  mbarrier_init_fence();
}

// Every thread of a block, once, before the send: this block has started
// (relaxed: it publishes nothing but the receiver's mbarrier, which its
// fence released, so it does not wait for the block's earlier stores).
__device__ __forceinline__ void handoff_arrive() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}

// Sender, every thread (the barrier wait is .aligned), then one thread
// sends: value into `slot` of block `rank`, counted on that block's bar.
template <class A>
__device__ __forceinline__ void handoff_send(A *slot, uint64_t *bar, A value, unsigned rank, bool sender_thread) {
  static_assert(sizeof(A) == 4 || sizeof(A) == 8, "st.async moves 32- or 64-bit values");
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
  if (!sender_thread) return;
  uint32_t remote_slot, remote_bar;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_slot) : "r"(shared_address(slot)), "r"(rank));
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_bar) : "r"(shared_address(bar)), "r"(rank));
  if constexpr (sizeof(A) == 4)
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(remote_slot),
                 "r"(__float_as_uint(value)), "r"(remote_bar)
                 : "memory");
  else
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b64 [%0], %1, [%2];" ::"r"(remote_slot),
                 "l"(__double_as_longlong(value)), "r"(remote_bar)
                 : "memory");
}

// Receiver: until every announced byte has arrived (and is visible).
__device__ __forceinline__ void handoff_wait(uint64_t *bar) { mbarrier_wait_cluster(shared_address(bar), 0); }

#endif

}  // namespace baracuda::kernels
