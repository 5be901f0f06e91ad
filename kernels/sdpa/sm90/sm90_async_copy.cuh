// Hopper's copy engine and its barriers for the attention kernel: tile
// copies by cp.async.bulk.tensor completing on an mbarrier
// (common/mbarrier.cuh), named barriers, and setmaxnreg, which moves
// registers from the producer warpgroup to the consumers.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "common/mbarrier.cuh"

namespace baracuda::kernels::sm90 {

// The box of `map` at coordinates (c0 innermost .. c3) into shared memory at
// dst, its bytes counted on bar. map: a __grid_constant__ parameter's address.
__device__ __forceinline__ void tma_load_4d(uint32_t dst, const CUtensorMap *map, uint32_t bar, int32_t c0,
                                            int32_t c1, int32_t c2, int32_t c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6}], "
      "[%2];\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}

// Adds a shared-memory box into `map`'s f32 tensor at coordinates (c0
// innermost .. c3), element by element; the box's parts outside the tensor
// are dropped. Completes in this thread's bulk group (bulk_commit, bulk_wait_read).
__device__ __forceinline__ void tma_reduce_add_4d(const CUtensorMap *map, uint32_t src, int32_t c0, int32_t c1,
                                                  int32_t c2, int32_t c3) {
  asm volatile(
      "cp.reduce.async.bulk.tensor.4d.global.shared::cta.add.tile.bulk_group [%0, {%2, %3, %4, %5}], [%1];\n" ::"l"(
          reinterpret_cast<uint64_t>(map)),
      "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}
// A shared-memory box stored into `map`'s tensor at coordinates (c0
// innermost .. c3); the box's parts outside the tensor are not written.
// Completes in this thread's bulk group (bulk_commit, bulk_wait_read).
__device__ __forceinline__ void tma_store_4d(const CUtensorMap *map, uint32_t src, int32_t c0, int32_t c1, int32_t c2,
                                             int32_t c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5}], [%1];\n" ::"l"(
          reinterpret_cast<uint64_t>(map)),
      "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
// Waits until this thread's committed bulk groups but the Pending most recent
// have read their shared memory.
template <int Pending = 0>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(Pending) : "memory");
}
// Waits until they have completed.
__device__ __forceinline__ void bulk_wait() { asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"); }

// Orders this thread's ordinary shared-memory stores before what the async
// proxy (wgmma, TMA) reads there after the next barrier.
__device__ __forceinline__ void fence_async_shared() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// Orders this thread's global-memory accesses of the generic proxy against
// those of the async proxy (bulk copies and reductions), either way.
__device__ __forceinline__ void fence_async_global() { asm volatile("fence.proxy.async.global;\n" ::: "memory"); }

// Named barrier `id` (1 to 15; 0 is __syncthreads') of `threads` threads:
// sync waits for all of them, arrive counts the caller in and goes on.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
// atomicAdd(counter, 1)'s old value where `add`, else 0, as one predicated
// instruction: no branch around it.
__device__ __forceinline__ uint32_t atomic_add_if(uint32_t *counter, bool add) {
  uint32_t old;
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.u32 p, %2, 0;\n mov.u32 %0, 0;\n @p atom.global.add.u32 %0, [%1], 1;\n}\n"
      : "=r"(old)
      : "l"(counter), "r"(static_cast<uint32_t>(add))
      : "memory");
  return old;
}

// named_barrier_sync that also tells every thread whether any passed true.
__device__ __forceinline__ bool named_barrier_or(int id, int threads, bool value) {
  uint32_t any;
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.u32 p, %1, 0;\n bar.red.or.pred p, %2, %3, p;\n selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(any)
      : "r"(static_cast<uint32_t>(value)), "r"(id), "r"(threads)
      : "memory");
  return any != 0;
}

// Registers per thread of the calling warpgroup from here on (multiples of 8, 24 to 256).
template <int Registers>
__device__ __forceinline__ void release_registers_to() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Registers));
}
template <int Registers>
__device__ __forceinline__ void claim_registers_to() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Registers));
}

}  // namespace baracuda::kernels::sm90
