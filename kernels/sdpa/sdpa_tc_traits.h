// The tensor-core forward kernels' tuning knobs, all in one place. Plain
// constants, host-includable: the heuristics size grids and shared memory
// from them and the kernels compile against them.
#pragma once

namespace baracuda::kernels {

// The forward variants: sm80 (4 warps, K/V ring of `stages` tiles), its
// sm89 sibling (256-thread blocks, double-buffered K/V, every tile within
// Ada's 99 KiB of shared memory per block), and sm80 wide: the sm80 kernel
// at the 256 tile with tiles for blocks of up to 227 KiB (sm 90, 100-103),
// which the sm80 entry takes where the device's blocks hold them.
enum class SdpaTcVariant { kSm80, kSm89, kSm80Wide };

// Where a key-loop iteration of the ring issues the next K/V tile's copies:
// before its S = Q K^T products, after them (under the softmax), K's before
// and V's after, or a share after each 16-column step of the products. The
// one-slot pipeline (stages = 1) has its own.
enum class SdpaTcCopies { kBeforeScores, kAfterScores, kSplit, kAmongScores };

// Where P's exponentials run: in the softmax, before P V; among P V's
// products, each step's 16 keys just before them (the rows' maxima side by
// side), where the compiler schedules them; or pinned there one step ahead.
enum class SdpaTcExponentials { kInSoftmax, kInPv, kPinnedInPv };

struct SdpaTcConfig {
  int warps;       // a block's warps, each owning m_atoms * 16 query rows
  int m_atoms;     // 16-row mma tiles per warp: two share every K/V fragment read from shared memory
  int block_n;     // keys per K/V tile, a multiple of 16
  int stages;      // K/V tiles in the cp.async ring; 1: one K and one V slot, each refilled under the other's product
  int min_blocks;  // blocks per SM the register allocation is capped for
  SdpaTcCopies copies = SdpaTcCopies::kBeforeScores;
  bool lazy_rescale = false;  // a warp whose rows' maxima all stayed put skips O's rescale (by exactly 1)
  bool rows_together = false;  // the softmax reduces all of a thread's rows side by side
  SdpaTcExponentials exponentials = SdpaTcExponentials::kInSoftmax;
};

// head_dim_tile: the head size the kernel is compiled for (64, 128, 256);
// D and Dv round up to it. Per thread, the O accumulator takes
// m_atoms * head_dim_tile / 2 floats and the scores m_atoms * block_n / 2;
// the rest of the 255 registers goes to fragments in flight. The sm80 and
// sm89 configs fit 99 KiB of shared memory, so both run on any GPU from
// sm_80 on. Measured on the H200 (bf16, the attention table's shapes; every
// config timed in one run, bench/NOTES.md session 13): two 16-row tiles per
// warp beat one with twice the warps (half the shared-memory reads per MMA);
// 64-key tiles beat 32 and 48 (3% at D 128), a third stage gains 6% at D 64
// and nothing at 128; one K and one V slot (FlashAttention-2's pipeline)
// trail the two-stage ring by 1-6%. At D 256 the wide tiles, 8 warps x 64
// keys in a two-stage ring (192 KiB), run 11% (causal 6%) ahead of the
// 99 KiB ones.
constexpr SdpaTcConfig sdpa_tc_config(SdpaTcVariant variant, int head_dim_tile) {
  if (variant == SdpaTcVariant::kSm89) {
    if (head_dim_tile <= 128) return {8, 1, 64, 2, 2};
    return {8, 1, 16, 2, 1};
  }
  if (head_dim_tile <= 64) return {4, 2, 64, 3, 1, SdpaTcCopies::kAmongScores, false, false, SdpaTcExponentials::kInPv};
  if (head_dim_tile <= 128) return {4, 2, 64, 2, 1, SdpaTcCopies::kBeforeScores, false, false, SdpaTcExponentials::kInPv};
  if (variant == SdpaTcVariant::kSm80Wide) return {8, 1, 64, 2, 1};
  return {4, 1, 32, 2, 2};
}

}  // namespace baracuda::kernels
