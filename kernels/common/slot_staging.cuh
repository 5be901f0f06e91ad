// A row tile's source windows staged into their shared-memory slots
// (common/row_tiles.h), a row a thread. On sm_90 each row is one bulk copy
// by the copy engine, all of a block's completing on one mbarrier: a few
// instructions a row, where staging by 16-byte cp.async costs some thirty a
// vector and, on tiles of short rows, as many instructions as writing the
// tile's output. Elsewhere the row's thread issues its cp.async copies.
// The few bytes of a row outside the input's 16-byte-aligned span (its first
// and last rows) are loaded element by element, so no read leaves the input.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/async_copy.cuh"
#include "common/element_words.cuh"
#include "common/mbarrier.cuh"
#include "common/shared_address.cuh"

namespace baracuda::kernels {

#ifdef __CUDACC__

// The input's bytes [begin, end): what a slot's copies may read.
struct SlotSource {
  uintptr_t begin, end;
};

// Readies the block's barrier (bar: a static __shared__ word); every thread calls it.
__device__ __forceinline__ void slot_staging_begin(uint64_t *bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (threadIdx.x == 0) {
    mbarrier_init(shared_address(bar), blockDim.x);
    mbarrier_init_fence();
  }
#endif
  __syncthreads();
}

// Copies the 16-byte-aligned bytes [from, to) of the input into shared memory at dst.
__device__ __forceinline__ void slot_copy_aligned(uint4 *dst, uintptr_t from, uintptr_t to, uint64_t *bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const uint32_t bytes = static_cast<uint32_t>(to - from), b = shared_address(bar);
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" ::"r"(b), "r"(bytes) : "memory");
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
          shared_address(dst)),
      "l"(from), "r"(bytes), "r"(b)
      : "memory");
#else
  for (uintptr_t at = from; at < to; at += 16, ++dst) async_copy16(dst, reinterpret_cast<const void *>(at));
#endif
}

// Stages the `window` elements from input element `source` into the slot
// (from the 16-byte boundary at or before the element; the slot's bytes
// outside the window are not to be read) and returns how many elements
// precede the window in the slot.
template <int Bytes>
__device__ __forceinline__ int32_t stage_slot_row(uint4 *slot, const void *in, int64_t source, int32_t window,
                                                  const SlotSource &src, uint64_t *bar) {
  using E = typename Word<Bytes>::type;
  const uintptr_t first = reinterpret_cast<uintptr_t>(in) + static_cast<uintptr_t>(source) * Bytes;
  const uintptr_t end = first + static_cast<uintptr_t>(window) * Bytes;
  const uintptr_t base = first & ~uintptr_t{15};
  const uintptr_t inside_begin = (src.begin + 15) & ~uintptr_t{15}, inside_end = src.end & ~uintptr_t{15};
  uintptr_t from = base > inside_begin ? base : inside_begin;
  uintptr_t to = (end + 15) & ~uintptr_t{15};
  to = to < inside_end ? to : inside_end;
  if (to <= from) from = to = first;  // all of it element by element
  else slot_copy_aligned(slot + (from - base) / 16, from, to, bar);
  // The window's elements outside [from, to): fewer than 16 bytes each side but for tiny inputs.
  E *elems = reinterpret_cast<E *>(slot);
  for (uintptr_t at = first; at < from && at < end; at += Bytes) elems[(at - base) / Bytes] = *reinterpret_cast<const E *>(at);
  for (uintptr_t at = to > first ? to : first; at < end; at += Bytes)
    elems[(at - base) / Bytes] = *reinterpret_cast<const E *>(at);
  return static_cast<int32_t>((first - base) / Bytes);
}

// Returns once every row of the block is staged; every thread calls it, after
// its last stage_slot_row. round: how many times the block called it before
// (a block that restages its slots syncs before it does).
__device__ __forceinline__ void slot_staging_finish(uint64_t *bar, uint32_t round) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // The arrival releases this thread's element stores; the wait acquires everyone's and the copies.
  mbarrier_arrive(shared_address(bar));
  mbarrier_wait(shared_address(bar), round & 1);
#else
  async_copy_commit();
  async_copy_wait<0>();
  __syncthreads();
#endif
}

#endif  // __CUDACC__

}  // namespace baracuda::kernels
