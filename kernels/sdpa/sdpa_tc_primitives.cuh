// Warp-level tensor-core building blocks of the sm_80 attention kernels,
// forward and backward: mma.sync m16n8k16 (and m16n8k8 tf32) with f32 accumulators, ldmatrix,
// cp.async, reductions and conversions. Shared memory is addressed either by
// a 32-bit shared-window address (kernels that keep their tile offsets as
// such) or by a pointer. Fragment layouts are PTX's: in a 16x8 accumulator
// lane l holds rows l/4 and l/4 + 8, columns 2(l%4) and 2(l%4) + 1.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "common/shared_address.cuh"

namespace baracuda::kernels::sdpa_tc {

// One 16x8x16 product: c += a b (a: 4 registers of a 16x16 row-major tile,
// b: 2 registers of a 16x8 column-major tile).
template <class T>
__device__ __forceinline__ void mma_16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  if constexpr (std::is_same_v<T, __half>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

// One 16x8x8 tf32 product: c += a b, the operands' f32 bits read as tf32
// (the low 13 mantissa bits ignored). a: a 16x8 row-major tile, lane l holding
// (l/4, l%4), (l/4 + 8, l%4), (l/4, l%4 + 4), (l/4 + 8, l%4 + 4); b: an 8x8
// column-major tile, lane l holding (l%4, l/4) and (l%4 + 4, l/4). Not
// volatile: free of side effects, so the compiler may interleave it.
__device__ __forceinline__ void mma_1688_tf32(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Every accumulator of a warp's [tiles][blocks] of 16x8 MMA results to 0.
template <int Tiles, int Blocks>
__device__ __forceinline__ void zero_accumulators(float (&acc)[Tiles][Blocks][4]) {
#pragma unroll
  for (int a = 0; a < Tiles; ++a)
#pragma unroll
    for (int nb = 0; nb < Blocks; ++nb)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[a][nb][e] = 0.f;
}

// Four 8x8 16-bit matrices; lane l gives the address of row l%8 of matrix l/8.
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t smem_addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr));
}
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void *smem_row) {
  ldmatrix_x4(r, shared_address(smem_row));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t smem_addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const void *smem_row) {
  ldmatrix_x4_trans(r, shared_address(smem_row));
}

// 16 bytes global -> shared without a register stop, bypassing L1; the
// bytes past src_bytes (0 or 16) are zeros and read nothing (the tail rows
// and columns of a tile).
__device__ __forceinline__ void cp_async_16(uint32_t smem_addr, const void *gmem, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr), "l"(gmem), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_16(void *smem, const void *gmem, bool valid) {
  cp_async_16(shared_address(smem), gmem, valid ? 16 : 0);
}
// 4 bytes global -> shared (a row's lse or delta), zeros when !valid.
__device__ __forceinline__ void cp_async_4(void *smem, const void *gmem, bool valid) {
  const uint32_t addr = shared_address(smem);
  const int src_bytes = valid ? 4 : 0;
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(addr), "l"(gmem), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int Pending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
}

// addr[0] += a, addr[1] += b in global memory when `add`, fire and forget;
// one vector reduction from sm_90 on (addr 8-byte aligned). The condition
// is the instruction's predicate: a branch around each reduction would split
// the code the compiler schedules it with.
__device__ __forceinline__ void red_add_f32x2_if(bool add, float *addr, float a, float b) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.b32 p, %3, 0;\n @p red.global.add.v2.f32 [%0], {%1, %2};\n}\n" ::"l"(addr),
      "f"(a), "f"(b), "r"(static_cast<int>(add))
      : "memory");
#else
  if (add) {
    atomicAdd(addr, a);
    atomicAdd(addr + 1, b);
  }
#endif
}

// 2^x by the special-function unit alone (exp2f adds range fix-ups around
// it); relative error about 2^-22, 0 for -inf.
__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// Two floats as one register of two 16-bit values, the first in the low half.
template <class T>
__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  if constexpr (std::is_same_v<T, __half>) {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const uint32_t *>(&h);
  } else {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const uint32_t *>(&h);
  }
}


}  // namespace baracuda::kernels::sdpa_tc
