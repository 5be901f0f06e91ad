// The tensor-core forward kernels' tuning knobs, all in one place. Plain
// constants, host-includable: the heuristics size grids and shared memory
// from them and the kernels compile against them.
#pragma once

namespace baracuda::kernels {

// The two forward variants: sm80 (4 warps, K/V ring of `stages` tiles) and
// its sm89 sibling (256-thread blocks, double-buffered K/V, every tile within
// Ada's 99 KiB of shared memory per block).
enum class SdpaTcVariant { kSm80, kSm89 };

struct SdpaTcConfig {
  int warps;       // a block's warps, each owning m_atoms * 16 query rows
  int m_atoms;     // 16-row mma tiles per warp: two share every K/V fragment read from shared memory
  int block_n;     // keys per K/V tile, a multiple of 16
  int stages;      // K/V tiles in the cp.async ring, at least 2
  int min_blocks;  // blocks per SM the register allocation is capped for
};

// head_dim_tile: the head size the kernel is compiled for (64, 128, 256);
// D and Dv round up to it. Per thread, the O accumulator takes
// m_atoms * head_dim_tile / 2 floats and the scores m_atoms * block_n / 2;
// the rest of the 255 registers goes to fragments in flight. Every config
// fits 99 KiB of shared memory, so both variants run on any GPU from sm_80
// on. Measured on the H200 (bf16, the attention table's shapes): two 16-row
// tiles per warp beat one with twice the warps (half the shared-memory reads
// per MMA); a third stage gains under 1%; at D 256, 8 warps x 64 keys would
// gain 9% but need 192 KiB, more than sm_80's 163.
constexpr SdpaTcConfig sdpa_tc_config(SdpaTcVariant variant, int head_dim_tile) {
  if (variant == SdpaTcVariant::kSm80) {
    if (head_dim_tile <= 64) return {4, 2, 128, 2, 1};
    if (head_dim_tile <= 128) return {4, 2, 48, 2, 1};
    return {4, 1, 32, 2, 2};
  }
  if (head_dim_tile <= 64) return {8, 1, 64, 2, 2};
  if (head_dim_tile <= 128) return {8, 1, 64, 2, 2};
  return {8, 1, 16, 2, 1};
}

}  // namespace baracuda::kernels
