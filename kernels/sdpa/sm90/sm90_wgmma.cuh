// Warpgroup MMA (wgmma, sm_90a) for the Hopper attention kernel: shared-memory
// matrix descriptors of 128-byte-swizzled tiles, the async group's fences and
// waits, and m64nNk16 products with f32 accumulators for N = 64, 128 and 256,
// A from shared memory (SS) or from registers (RS). A warpgroup's accumulator
// d[N/8][4] has mma.sync's layout per warp: warp w of the group holds rows
// 16 w + lane / 4 (elements 0, 1) and + 8 (elements 2, 3), columns
// 8 block + 2 (lane % 4) + element % 2, so the m16n8 score code applies as is.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "sdpa/sdpa_tc_primitives.cuh"

namespace baracuda::kernels::sm90 {

// The descriptor of an operand tile laid out as TMA's 128-byte swizzle
// writes it: rows of 128 bytes in 1024-byte atoms of 8 rows (the start must
// keep the atom's 1024-byte alignment but for the K offset inside a row).
// K-major operands ignore leading_bytes; MN-major ones step by it from one
// 64-element column slab to the next. stride_bytes: from one 8-row atom to the next.
__device__ __forceinline__ uint64_t sw128_descriptor(uint32_t address, uint32_t leading_bytes,
                                                     uint32_t stride_bytes) {
  return static_cast<uint64_t>((address & 0x3FFFFu) >> 4) | static_cast<uint64_t>(leading_bytes >> 4) << 16 |
         static_cast<uint64_t>(stride_bytes >> 4) << 32 | uint64_t{1} << 62;
}

// A descriptor moved `bytes` further into shared memory (the start field
// holds the address / 16 and the window is 256 KiB: no carry out of it).
__device__ __forceinline__ uint64_t sw128_advance(uint64_t descriptor, uint32_t bytes) {
  return descriptor + (bytes >> 4);
}

// A descriptor as its two 32-bit words, so that moving it through a tile
// is one 32-bit add to the start field (address / 16 in the low word's 14
// bits, which the 256 KiB window keeps from carrying) where ptxas otherwise
// rebuilds the whole descriptor from the address for every product.
struct Sw128Descriptor {
  uint32_t lo, hi;
  __device__ static Sw128Descriptor of(uint32_t address, uint32_t leading_bytes, uint32_t stride_bytes) {
    const uint64_t d = sw128_descriptor(address, leading_bytes, stride_bytes);
    return {static_cast<uint32_t>(d), static_cast<uint32_t>(d >> 32)};
  }
  // The descriptor `bytes` further on (a multiple of 16).
  __device__ uint64_t at(uint32_t bytes) const {
    uint64_t d;
    asm("mov.b64 %0, {%1, %2};\n" : "=l"(d) : "r"(lo + (bytes >> 4)), "r"(hi));
    return d;
  }
};

// The same value, opaque to the compiler: addresses and descriptors derived
// from it inside a loop are computed where they are used instead of hoisted
// out of it, where dozens of them would crowd the registers (and spill).
__device__ __forceinline__ uint64_t opaque(uint64_t x) {
  asm volatile("" : "+l"(x));
  return x;
}
__device__ __forceinline__ uint32_t opaque(uint32_t x) {
  asm volatile("" : "+r"(x));
  return x;
}

// Orders this thread's register writes before the wgmmas issued next.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
// Waits until at most Pending committed groups are still running.
template <int Pending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending) : "memory");
}

// Pins registers an async wgmma reads or writes: the compiler may not move
// their uses across this point (the wgmma itself is invisible to it).
template <int Blocks>
__device__ __forceinline__ void fence_registers(float (&d)[Blocks][4]) {
#pragma unroll
  for (int i = 0; i < Blocks; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e) asm volatile("" : "+f"(d[i][e])::"memory");
}
template <int Blocks>
__device__ __forceinline__ void fence_registers(uint32_t (&a)[Blocks][4]) {
#pragma unroll
  for (int i = 0; i < Blocks; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e) asm volatile("" : "+r"(a[i][e])::"memory");
}

// Four 8x8 16-bit matrices from registers into shared memory, each
// transposed: r[m] holds matrix m in mma.sync's accumulator layout (lane l:
// row l / 4, columns 2 (l % 4) and + 1, the first in the low half), and lane
// l gives the address of stored row l % 8 of matrix l / 8, which receives
// the matrix's column l % 8 (16 contiguous bytes).
__device__ __forceinline__ void stmatrix_x4_trans(uint32_t address, const uint32_t (&r)[4]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(address), "r"(r[0]),
               "r"(r[1]), "r"(r[2]), "r"(r[3])
               : "memory");
}

// The same, untransposed: lane l gives the address of row l % 8 of matrix
// l / 8, which receives that row (16 contiguous bytes).
__device__ __forceinline__ void stmatrix_x4(uint32_t address, const uint32_t (&r)[4]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(address), "r"(r[0]), "r"(r[1]),
               "r"(r[2]), "r"(r[3])
               : "memory");
}

// An accumulator d (8-column blocks) as RS wgmma A fragments rounded to T:
// fragment kk holds columns 16 kk to 16 kk + 15 (blocks 2 kk and 2 kk + 1).
template <class T, int Blocks>
__device__ __forceinline__ void accumulator_to_a_fragments(uint32_t (&a)[Blocks / 2][4], const float (&d)[Blocks][4]) {
#pragma unroll
  for (int kk = 0; kk < Blocks / 2; ++kk) {
    a[kk][0] = sdpa_tc::pack2<T>(d[2 * kk][0], d[2 * kk][1]);
    a[kk][1] = sdpa_tc::pack2<T>(d[2 * kk][2], d[2 * kk][3]);
    a[kk][2] = sdpa_tc::pack2<T>(d[2 * kk + 1][0], d[2 * kk + 1][1]);
    a[kk][3] = sdpa_tc::pack2<T>(d[2 * kk + 1][2], d[2 * kk + 1][3]);
  }
}

#define BARACUDA_WGMMA_D16 "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" "}"
#define BARACUDA_WGMMA_D32 "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" "}"
#define BARACUDA_WGMMA_D40 "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39" "}"
#define BARACUDA_WGMMA_D64 "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" "}"
#define BARACUDA_WGMMA_D128 "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" "}"
#define BARACUDA_WGMMA_ACC4(i) "+f"(d[i][0]), "+f"(d[i][1]), "+f"(d[i][2]), "+f"(d[i][3])
#define BARACUDA_WGMMA_ACC32(i)                                                                   \
  BARACUDA_WGMMA_ACC4(i), BARACUDA_WGMMA_ACC4(i + 1), BARACUDA_WGMMA_ACC4(i + 2),                 \
      BARACUDA_WGMMA_ACC4(i + 3), BARACUDA_WGMMA_ACC4(i + 4), BARACUDA_WGMMA_ACC4(i + 5),         \
      BARACUDA_WGMMA_ACC4(i + 6), BARACUDA_WGMMA_ACC4(i + 7)
#define BARACUDA_WGMMA_ACC16 \
  BARACUDA_WGMMA_ACC4(0), BARACUDA_WGMMA_ACC4(1), BARACUDA_WGMMA_ACC4(2), BARACUDA_WGMMA_ACC4(3)
#define BARACUDA_WGMMA_ACC40 BARACUDA_WGMMA_ACC32(0), BARACUDA_WGMMA_ACC4(8), BARACUDA_WGMMA_ACC4(9)
#define BARACUDA_WGMMA_ACC64 BARACUDA_WGMMA_ACC32(0), BARACUDA_WGMMA_ACC32(8)
#define BARACUDA_WGMMA_ACC128 BARACUDA_WGMMA_ACC64, BARACUDA_WGMMA_ACC32(16), BARACUDA_WGMMA_ACC32(24)

// d = A B (accumulate 0) or d += A B, B from shared memory through b_desc,
// K-major (TransB 0) or MN-major (1). SS: A from shared memory through
// a_desc, K-major. RS: A from registers (a[4]: mma.sync's A fragment per
// warp). A_OPS, SCALE_OP, TRANS_OP: the operand numbers of A and B, of
// accumulate and of TransB, after the accumulators.
#define BARACUDA_WGMMA_SS_A(TRANS_A, N, TYPE, DREGS, A_OPS, SCALE_OP, TRANS_OP, ...)                 \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" SCALE_OP ", 0;\n"                                     \
               "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TYPE "." TYPE " " DREGS ", " A_OPS         \
               ", p, 1, 1, " TRANS_A ", %" TRANS_OP ";\n}\n"                                                \
               : __VA_ARGS__                                                                               \
               : "l"(a_desc), "l"(b_desc), "r"(accumulate), "n"(TransB))
#define BARACUDA_WGMMA_SS(N, TYPE, DREGS, ACC, A_OPS, SCALE_OP, TRANS_OP) \
  BARACUDA_WGMMA_SS_A("0", N, TYPE, DREGS, A_OPS, SCALE_OP, TRANS_OP, ACC)
// The same with A MN-major (transposed: its M elements contiguous, laid out
// as MN-major B operands are; 16-bit types only).
#define BARACUDA_WGMMA_SS_TA(N, TYPE, DREGS, ACC, A_OPS, SCALE_OP, TRANS_OP) \
  BARACUDA_WGMMA_SS_A("1", N, TYPE, DREGS, A_OPS, SCALE_OP, TRANS_OP, ACC)
#define BARACUDA_WGMMA_RS(N, TYPE, DREGS, ACC, A_OPS, SCALE_OP, TRANS_OP)                                   \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" SCALE_OP ", 0;\n"                                     \
               "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TYPE "." TYPE " " DREGS ", " A_OPS         \
               ", p, 1, 1, %" TRANS_OP ";\n}\n"                                                             \
               : ACC                                                                                       \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_desc), "r"(accumulate), "n"(TransB))

// One m64nNk16 product of T (__half or __nv_bfloat16) with A from shared
// memory: S's key tiles. N 80 at D 256, where N 64 left the product at shared
// memory's bandwidth (A and B, 4 KiB a k-step).
template <class T, int N, int TransB>
__device__ __forceinline__ void wgmma_ss(float (&d)[N / 8][4], uint64_t a_desc, uint64_t b_desc, int accumulate) {
  static_assert(N == 64 || N == 80 || N == 128 || N == 256, "the kernel's key tiles use N 64, 80, 128 and 256");
  if constexpr (std::is_same_v<T, __half>) {
    if constexpr (N == 64) BARACUDA_WGMMA_SS(64, "f16", BARACUDA_WGMMA_D32, BARACUDA_WGMMA_ACC32(0), "%32, %33", "34", "35");
    else if constexpr (N == 80) BARACUDA_WGMMA_SS(80, "f16", BARACUDA_WGMMA_D40, BARACUDA_WGMMA_ACC40, "%40, %41", "42", "43");
    else if constexpr (N == 128) BARACUDA_WGMMA_SS(128, "f16", BARACUDA_WGMMA_D64, BARACUDA_WGMMA_ACC64, "%64, %65", "66", "67");
    else BARACUDA_WGMMA_SS(256, "f16", BARACUDA_WGMMA_D128, BARACUDA_WGMMA_ACC128, "%128, %129", "130", "131");
  } else {
    if constexpr (N == 64) BARACUDA_WGMMA_SS(64, "bf16", BARACUDA_WGMMA_D32, BARACUDA_WGMMA_ACC32(0), "%32, %33", "34", "35");
    else if constexpr (N == 80) BARACUDA_WGMMA_SS(80, "bf16", BARACUDA_WGMMA_D40, BARACUDA_WGMMA_ACC40, "%40, %41", "42", "43");
    else if constexpr (N == 128) BARACUDA_WGMMA_SS(128, "bf16", BARACUDA_WGMMA_D64, BARACUDA_WGMMA_ACC64, "%64, %65", "66", "67");
    else BARACUDA_WGMMA_SS(256, "bf16", BARACUDA_WGMMA_D128, BARACUDA_WGMMA_ACC128, "%128, %129", "130", "131");
  }
}

// The same with A from registers.
template <class T, int N, int TransB>
__device__ __forceinline__ void wgmma_rs(float (&d)[N / 8][4], const uint32_t (&a)[4], uint64_t b_desc,
                                         int accumulate) {
  static_assert(N == 64 || N == 128 || N == 256, "the kernel's tiles use N 64, 128 and 256");
  if constexpr (std::is_same_v<T, __half>) {
    if constexpr (N == 64) BARACUDA_WGMMA_RS(64, "f16", BARACUDA_WGMMA_D32, BARACUDA_WGMMA_ACC32(0), "{%32, %33, %34, %35}, %36", "37", "38");
    else if constexpr (N == 128) BARACUDA_WGMMA_RS(128, "f16", BARACUDA_WGMMA_D64, BARACUDA_WGMMA_ACC64, "{%64, %65, %66, %67}, %68", "69", "70");
    else BARACUDA_WGMMA_RS(256, "f16", BARACUDA_WGMMA_D128, BARACUDA_WGMMA_ACC128, "{%128, %129, %130, %131}, %132", "133", "134");
  } else {
    if constexpr (N == 64) BARACUDA_WGMMA_RS(64, "bf16", BARACUDA_WGMMA_D32, BARACUDA_WGMMA_ACC32(0), "{%32, %33, %34, %35}, %36", "37", "38");
    else if constexpr (N == 128) BARACUDA_WGMMA_RS(128, "bf16", BARACUDA_WGMMA_D64, BARACUDA_WGMMA_ACC64, "{%64, %65, %66, %67}, %68", "69", "70");
    else BARACUDA_WGMMA_RS(256, "bf16", BARACUDA_WGMMA_D128, BARACUDA_WGMMA_ACC128, "{%128, %129, %130, %131}, %132", "133", "134");
  }
}

// The backward's 256 tile, where its two consumers split each step's
// products: m64n32k16 with A and B K-major from shared memory (a consumer's
// 32 queries of S^T and dP^T), and m64n128k16 with A MN-major (dV and dK
// from P^T and dS^T kept as P and dS, queries by keys, in shared memory).
template <class T>
__device__ __forceinline__ void wgmma_ss_n32(float (&d)[4][4], uint64_t a_desc, uint64_t b_desc, int accumulate) {
  constexpr int TransB = 0;
  if constexpr (std::is_same_v<T, __half>)
    BARACUDA_WGMMA_SS(32, "f16", BARACUDA_WGMMA_D16, BARACUDA_WGMMA_ACC16, "%16, %17", "18", "19");
  else
    BARACUDA_WGMMA_SS(32, "bf16", BARACUDA_WGMMA_D16, BARACUDA_WGMMA_ACC16, "%16, %17", "18", "19");
}
template <class T, int TransB>
__device__ __forceinline__ void wgmma_ss_n128_ta(float (&d)[16][4], uint64_t a_desc, uint64_t b_desc,
                                                 int accumulate) {
  if constexpr (std::is_same_v<T, __half>)
    BARACUDA_WGMMA_SS_TA(128, "f16", BARACUDA_WGMMA_D64, BARACUDA_WGMMA_ACC64, "%64, %65", "66", "67");
  else
    BARACUDA_WGMMA_SS_TA(128, "bf16", BARACUDA_WGMMA_D64, BARACUDA_WGMMA_ACC64, "%64, %65", "66", "67");
}

#undef BARACUDA_WGMMA_SS
#undef BARACUDA_WGMMA_SS_A
#undef BARACUDA_WGMMA_SS_TA
#undef BARACUDA_WGMMA_RS
#undef BARACUDA_WGMMA_ACC128
#undef BARACUDA_WGMMA_ACC64
#undef BARACUDA_WGMMA_ACC40
#undef BARACUDA_WGMMA_ACC16
#undef BARACUDA_WGMMA_ACC32
#undef BARACUDA_WGMMA_ACC4
#undef BARACUDA_WGMMA_D128
#undef BARACUDA_WGMMA_D64
#undef BARACUDA_WGMMA_D40
#undef BARACUDA_WGMMA_D32
#undef BARACUDA_WGMMA_D16

}  // namespace baracuda::kernels::sm90
