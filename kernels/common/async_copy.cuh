// Global-to-shared copies that do not pass through registers (cp.async,
// sm_80 and later): a block can keep many tiles' bytes in flight without
// spending registers on them, which is what memory-bound kernels with a
// heavy per-element body lack.
#pragma once

#include "common/shared_address.cuh"

namespace baracuda::kernels {

// 16 bytes, both addresses 16-byte aligned; cached in L2 only (streamed data).
__device__ __forceinline__ void async_copy16(void *shared, const void *global) {
  const unsigned to = shared_address(shared);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to), "l"(global) : "memory");
}

// The same copy with L2's prefetch hint of the 128 bytes around it: where a
// block copies runs of consecutive vectors (the pad forward's slot tiles,
// H200 session 21: 0.5-2 points of copy ahead of the plain copy on rank-5
// rows; a 256-byte hint 0.5-1.5 behind this one; its row tiles' short rows,
// session 22).
__device__ __forceinline__ void async_copy16_prefetch128(void *shared, const void *global) {
  const unsigned to = shared_address(shared);
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n" ::"r"(to), "l"(global) : "memory");
}

// L2 fetches `bytes` (a multiple of 16) from `global` (16-byte aligned) on,
// with one bulk prefetch (sm_90 and later; nothing before): nothing lands in
// shared memory or registers, so that a block can ask for a tile it will not
// run itself.
__device__ __forceinline__ void prefetch_l2_bulk(const void *global, uint32_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;\n" ::"l"(global), "r"(bytes) : "memory");
#endif
}

// Closes the group of the copies this thread issued since the last commit.
__device__ __forceinline__ void async_copy_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Waits until at most Pending of this thread's groups are still in flight.
template <int Pending>
__device__ __forceinline__ void async_copy_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
}

// Runs items 0 .. items-1 of a block through a ring of Stages shared buffers:
// load(i, stage) issues item i's copies (and may store into the stage
// directly), use(i, stage) reads the stage once every thread's copies have
// landed, while the next Stages - 1 items' copies are in flight. Every
// thread of the block calls it with the same items.
template <int Stages, class Load, class Use>
__device__ __forceinline__ void stream_stages(int64_t items, Load &&load, Use &&use) {
  static_assert(Stages >= 2, "a ring needs a stage to fill while another is used");
#pragma unroll
  for (int s = 0; s < Stages - 1; ++s) {
    if (s < items) load(int64_t{s}, s);
    async_copy_commit();
  }
  int used = 0, filled = Stages - 1;  // the stages of items i and i + Stages - 1
  for (int64_t i = 0; i < items; ++i) {
    // filled's stage was used by item i - 1, released by the barrier below.
    if (i + Stages - 1 < items) load(i + Stages - 1, filled);
    async_copy_commit();
    async_copy_wait<Stages - 1>();
    __syncthreads();
    use(i, used);
    __syncthreads();
    used = used + 1 == Stages ? 0 : used + 1;
    filled = filled + 1 == Stages ? 0 : filled + 1;
  }
}

}  // namespace baracuda::kernels
