// The tensor-core forward kernels' tuning knobs, all in one place. Plain
// constants, host-includable: the heuristics size grids and shared memory
// from them and the kernels compile against them.
#pragma once

namespace baracuda::kernels {

// The forward variants: sm80 (4 warps, K/V ring of `stages` tiles) and its
// sm89 sibling (256-thread blocks, double-buffered K/V), every tile within
// Ada's 99 KiB of shared memory per block.
enum class SdpaTcVariant { kSm80, kSm89 };

// Where P's exponentials run: in the softmax, before P V, or among P V's
// products, each step's 16 keys just before them (the rows' maxima reduced
// side by side first), so that the special-function unit's work runs under
// the tensor cores'.
enum class SdpaTcExponentials { kInSoftmax, kInPv };

struct SdpaTcConfig {
  int warps;       // a block's warps, each owning m_atoms * 16 query rows
  int m_atoms;     // 16-row mma tiles per warp: two share every K/V fragment read from shared memory
  int block_n;     // keys per K/V tile, a multiple of 16
  int stages;      // K/V tiles in the cp.async ring; 1: one K and one V slot, each refilled under the other's product
  int min_blocks;  // blocks per SM the register allocation is capped for
  SdpaTcExponentials exponentials = SdpaTcExponentials::kInSoftmax;
  // Whether the key loop reads the views' alignment at run time, both kinds
  // of copies compiled into one kernel, rather than one kernel for each.
  bool aligned_at_run_time = false;
  // The online softmax's slack (sdpa_tc_scores.cuh, settle_row_max): -1
  // moves each row's running max on every tile; >= 0 keeps it unless a
  // tile's max passes it by more than that (log2 units), and a warp whose
  // rows all kept theirs skips O's rescale (other bits, within rounding).
  int rescale_slack = -1;
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
// 99 KiB ones. Session 17 (bench/NOTES.md; bf16, B4 H32 S4096 / B2 H32
// S8192 at D 128, B16 H16 S1024 at D 64, B8 H16 S2048 at D 256, both causal
// modes, one process): one kernel per alignment, D 128 with the
// exponentials among P V 336 / 311 / 345 / 327 TFLOP/s against 319 / 304 /
// 324 / 316 before (their copies before S: the exponentials in the softmax
// 322 / 303 / 331 / 312, the copies among S's products 330 / 309 / 341 /
// 327, both at once 316 / 293 / 326 / 308); D 64 with the copies among S's
// products 276 / 210 against 261 / 200 (before S 270 / 208). At D 256 every
// one-kernel-per-alignment variant ran 13-17% behind the previous kernel
// (263 / 239 against 304 / 278; the previous copies 252 / 221), so the
// 256 tile kept the run-time alignment, as do the sm89 256 tile, the
// 99 KiB sm80 256 tile and the f32 kernel (not measured since). Session 18
// (bench/NOTES.md; same rows, one process, the variants' launches
// interleaved): with the output's addresses formed in the epilogue and the
// mask's columns compared against constants, the D 128 spills fell from
// 292 to 52 bytes and D 128 ran 371 / 350 / 367 / 360 against 330 / 300 /
// 330 / 319 (an earlier run: its exponentials in the softmax 361 / 341 /
// 358 / 351, the copies among S's products 362 / 334 / 365 / 353, 8 warps
// x 128 keys in 160 KiB 324 / 308); D 64 263 / 198 against 257 / 194 (the
// exponentials among P V the same); and a kernel per alignment no longer
// loses at D 256: the wide tile's 325 / 271 against 314 / 264 reading the
// alignment at run time (the exponentials in the softmax or the copies
// among S within 0.4% of it). Slack 8 (settle_row_max) ran 2-3% ahead
// without a mask at D 128 and 0-6% behind elsewhere, and its P of a row's
// largest score is no longer exactly 1 (a row one key dominates erred 2.4x
// as much): -1 everywhere. Session 21 (bench/NOTES.md; B16 H16 S1024, one
// process, graph-free launches interleaved): D 64 on FlashAttention-2's
// 128-key tiles, two stages (80 KiB), the copies before S and the
// exponentials among P V 289.8 / 215.7 against 269.4 / 198.1 (FA2 278.0 /
// 203.1); three stages 288.7 / 213.5. At D 256 32-key tiles in a ring of
// three lost 13%, 128-key tiles with FA2's one K and one V slot 4%.
// Session 22 (bench/NOTES.md; B8 H16 S2048 D 256, one process, launches
// interleaved): FlashAttention-2's H100 tile, 4 warps x 64 keys in one K
// and one V slot (96 KiB: two blocks an SM on sm 90, 100-103), with the
// exponentials among P V, 327.6 / 292.5 against the wide tile's 308.1 /
// 262.6 (8 warps x 64 keys, two stages, 192 KiB; FA2 322.1 / 275.2); the
// same with the exponentials in the softmax 301.3 / 266.0 (round 1, the
// wide tile 316.7 / 269.5), the 99 KiB tile's 32-key ring 297.5 / 265.1,
// 8 warps x 64 keys in one slot each 283.4 / 245.4, 48-key slots 284.2 /
// 251.9. It fits sm_80's 99 KiB as well, so it is the 256 tile everywhere
// and the wide variant is gone. Warps in pairs on 32 rows (each S for half
// the keys, O for half the columns, P traded through shared memory: 28%
// fewer ldmatrix, the same bits) ran 307.7 / 249.8 (8 warps, two stages)
// and 306.9 / 254.9 (4 warps, one slot each): the kernels are not bound by
// shared-memory reads (under ncu's fixed clock the wide tile, the pairs and
// FA2 took the same cycles). Reading the alignment at run time, one kernel
// for both, ran 322.7 / 308.5 beside the kernel per alignment's 323.3 /
// 308.0 (round 6): the tile keeps the one kernel.
constexpr SdpaTcConfig sdpa_tc_config(SdpaTcVariant variant, int head_dim_tile) {
  constexpr SdpaTcExponentials kInSoftmax = SdpaTcExponentials::kInSoftmax;
  if (variant == SdpaTcVariant::kSm89) {
    if (head_dim_tile <= 128) return {8, 1, 64, 2, 2};
    return {8, 1, 16, 2, 1, kInSoftmax, true};
  }
  if (head_dim_tile <= 64) return {4, 2, 128, 2, 1, SdpaTcExponentials::kInPv};
  if (head_dim_tile <= 128) return {4, 2, 64, 2, 1, SdpaTcExponentials::kInPv};
  return {4, 1, 64, 1, 2, SdpaTcExponentials::kInPv, true};
}

}  // namespace baracuda::kernels
