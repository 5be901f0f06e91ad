// Warp pairs (SdpaTcConfig::warp_pairs) for the tensor-core forward: the
// two warps of a pair own the same 16 m_atoms query rows; each computes S
// for its half of the key tile's keys and O for its half of the value
// columns. A warp's O for all 256 columns of 32 rows would not fit its
// registers, and with 16-row warps every K and V fragment read from shared
// memory feeds one MMA tile: the 256 tile's 16-row warps issued 144
// ldmatrix (x4) for 256 MMAs a key tile, the pairs' 32-row warps 100.
//
// A pair meets twice a key tile, at a named barrier of its 64 threads: its
// rows' maxima over both halves of the keys, then P (rounded to the
// element type, as P V takes it) and the rows' partial sums. Each warp
// keeps the whole row's running max and sum, so the two agree bit for bit,
// and both equal a single warp's over the whole key tile: the max is exact,
// a thread's tree over its 8-key blocks is the sum of its two halves' trees,
// and P V runs the key steps in the same order.
#pragma once

#include <cstdint>

#include "sdpa/sdpa_tc_heuristics.h"
#include "sdpa/sdpa_tc_primitives.cuh"

namespace baracuda::kernels::sdpa_tc {

// This warp's and its partner's places in the block's exchange area (per
// warp: P's rows, then a slot for maxima and one for sums), and the pair's
// barrier. KeyBlocks: a warp's 8-key blocks of S.
template <int MAtoms, int KeyBlocks>
struct WarpPairExchange {
  static constexpr SdpaTcConfig kRows{2, MAtoms, KeyBlocks * 16, 1, 1};
  static constexpr uint32_t kPRowBytes = sdpa_tc_pair_p_row_bytes(kRows);
  static constexpr uint32_t kPBytes = 16 * MAtoms * kPRowBytes;
  static constexpr uint32_t kSlotBytes = sdpa_tc_pair_slot_bytes(kRows);
  static constexpr uint32_t kWarpBytes = sdpa_tc_pair_warp_bytes(kRows);
  static_assert(kPBytes + 2 * kSlotBytes == kWarpBytes && kPRowBytes % 16 == 0, "16-byte rows for ldmatrix");

  uint32_t mine, partner;
  uint32_t barrier;  // 1 + the pair's index: barrier 0 is __syncthreads'

  __device__ explicit WarpPairExchange(uint32_t area) {
    const uint32_t warp = threadIdx.x / 32;
    mine = area + warp * kWarpBytes;
    partner = area + (warp ^ 1u) * kWarpBytes;
    barrier = 1 + warp / 2;
  }

  __device__ __forceinline__ void meet() const { asm volatile("bar.sync %0, 64;\n" ::"r"(barrier) : "memory"); }

  // Slot `slot` (0: maxima, 1: sums) of v, lane by lane, consecutive 8-byte pairs per row tile.
  __device__ __forceinline__ void put(int slot, const float (&v)[MAtoms][2]) const {
    const uint32_t at = mine + kPBytes + slot * kSlotBytes + threadIdx.x % 32 * 8;
#pragma unroll
    for (int a = 0; a < MAtoms; ++a)
      asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(at + a * 256), "f"(v[a][0]), "f"(v[a][1]) : "memory");
  }
  __device__ __forceinline__ void get(int slot, float (&v)[MAtoms][2]) const {
    const uint32_t at = partner + kPBytes + slot * kSlotBytes + threadIdx.x % 32 * 8;
#pragma unroll
    for (int a = 0; a < MAtoms; ++a)
      asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];\n" : "=f"(v[a][0]), "=f"(v[a][1]) : "r"(at + a * 256) : "memory");
  }

  // Each row's max over the partner's keys as well: the same lane of both
  // warps holds the same rows.
  __device__ __forceinline__ void max_with_partner(float (&mx)[MAtoms][2]) const {
    put(0, mx);
    meet();
    float other[MAtoms][2];
    get(0, other);
#pragma unroll
    for (int a = 0; a < MAtoms; ++a)
#pragma unroll
      for (int hr = 0; hr < 2; ++hr) mx[a][hr] = fmaxf(mx[a][hr], other[a][hr]);
  }

  // This warp's P (rounded pairs, p[a][nb][hr]: row 16 a + lane / 4 + 8 hr,
  // keys 8 nb + 2 (lane % 4) and the next) and its rows' partial sums go
  // to the exchange, and the partner's sums come back, once both have stored.
  // sm_90 stores P by stmatrix (4 stores for 16), elsewhere 4 bytes a store.
  __device__ __forceinline__ void trade(const uint32_t (&p)[MAtoms][KeyBlocks][2], const float (&sums)[MAtoms][2],
                                        float (&partner_sums)[MAtoms][2]) const {
    const int lane = static_cast<int>(threadIdx.x) % 32;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    // Four 8 x 8 matrices a store: rows 0-7 and 8-15 of key blocks nb and nb + 1 (lane l: row l % 8 of matrix l / 8).
    const uint32_t at = mine + static_cast<uint32_t>(lane % 8 + (lane >> 3 & 1) * 8) * kPRowBytes +
                        static_cast<uint32_t>(lane >> 4) * 16;
#pragma unroll
    for (int a = 0; a < MAtoms; ++a)
#pragma unroll
      for (int nb = 0; nb < KeyBlocks; nb += 2)
        asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(
                         at + 16 * a * kPRowBytes + nb * 16),
                     "r"(p[a][nb][0]), "r"(p[a][nb][1]), "r"(p[a][nb + 1][0]), "r"(p[a][nb + 1][1])
                     : "memory");
#else
    const uint32_t row0 = mine + static_cast<uint32_t>(lane / 4) * kPRowBytes + static_cast<uint32_t>(lane % 4) * 4;
#pragma unroll
    for (int a = 0; a < MAtoms; ++a)
#pragma unroll
      for (int nb = 0; nb < KeyBlocks; ++nb)
#pragma unroll
        for (int hr = 0; hr < 2; ++hr)
          asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(row0 + (16 * a + 8 * hr) * kPRowBytes + nb * 16),
                       "r"(p[a][nb][hr])
                       : "memory");
#endif
    put(1, sums);
    meet();
    get(1, partner_sums);
  }

  // P of the warp whose exchange is at `p` as mma A fragments: its 16-key step `step`, row tile a.
  __device__ __forceinline__ void p_fragment(uint32_t (&frag)[4], uint32_t p, int a, int step) const {
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const uint32_t row = static_cast<uint32_t>(16 * a + lane % 8 + (lane >> 3 & 1) * 8);
    ldmatrix_x4(frag, p + row * kPRowBytes + static_cast<uint32_t>(step * 32 + (lane >> 4) * 16));
  }
};

}  // namespace baracuda::kernels::sdpa_tc
