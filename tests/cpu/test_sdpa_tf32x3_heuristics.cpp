// The 3xTF32 f32 attention forward's cuts (kernels/sdpa/sdpa_tf32x3_heuristics.h):
// its shared memory per arch, the tile loader's division of rows among
// threads, and the row pitches' bank spread for the fragment reads. No GPU.
#include <catch2/catch.hpp>
#include <set>

#include "sdpa/sdpa_tf32x3_heuristics.h"

using namespace baracuda::kernels;

namespace {
constexpr int kTiles[] = {64, 128, 256};
}

TEST_CASE("sdpa 3xtf32: every tile fits sm_80, eight warps per SM on sm_90 at D 64 and 128", "[heuristics][sdpa]") {
  // The Q tile and one K and V slot with their small planes, in floats, at D 64.
  CHECK(sdpa_tf32x3_q_tile_bytes(128, 64) == 128 * (80 + 40) * 4);
  CHECK(sdpa_tf32x3_k_tile_bytes(32, 64) == 32 * (72 + 36) * 4);
  CHECK(sdpa_tf32x3_v_tile_bytes(32, 64) == (32 * 68 + 16 * 72) * 4);
  for (int tile : kTiles) {
    INFO("tile " << tile);
    const SdpaTcConfig c = sdpa_tf32x3_config(tile);
    const size_t smem = sdpa_tf32x3_smem_bytes(c, tile);
    CHECK(smem <= 163 * 1024);
    // sm_90: 228 KiB per SM, 1 KiB of it reserved per block.
    if (tile <= 128) CHECK(8 / c.warps * (smem + 1024) <= 228 * 1024);
    CHECK(sdpa_tf32x3_smem_bytes(tile, 8) == smem);
    CHECK(sdpa_tf32x3_smem_bytes(8, tile) == smem);
    CHECK(c.stages >= 1);
    CHECK(c.block_n % 8 == 0);
    // The loader: each thread keeps one 16-byte chunk column of a row and
    // steps down whole rows of the Q and K / V tiles.
    const int threads = sdpa_tc_threads(c), chunks = tile / 4;
    REQUIRE(threads % chunks == 0);
    CHECK(c.block_n % (threads / chunks) == 0);
    CHECK(sdpa_tc_block_m(c) % (threads / chunks) == 0);
    // cp.async and the 16-byte unaligned stores need 16-byte rows.
    CHECK(sdpa_tf32x3_q_pitch(tile) % 4 == 0);
    CHECK(sdpa_tf32x3_k_pitch(tile) % 4 == 0);
    CHECK(sdpa_tf32x3_v_pitch(tile) % 4 == 0);
    // The split passes' 16- and 8-byte stores into the small planes.
    CHECK(sdpa_tf32x3_q_small_pitch(tile) % 2 == 0);
    CHECK(sdpa_tf32x3_k_small_pitch(tile) % 2 == 0);
    CHECK(sdpa_tf32x3_v_small_pitch(tile) % 4 == 0);
  }
}

TEST_CASE("sdpa 3xtf32: K fragment reads (float2, row g, column 2t) spread over all banks per half-warp",
          "[heuristics][sdpa]") {
  for (int tile : kTiles) {
    const int pitch = sdpa_tf32x3_k_pitch(tile);
    for (int half = 0; half < 2; ++half) {
      std::set<int> banks;
      for (int lane = 16 * half; lane < 16 * half + 16; ++lane) {
        const int word = (lane / 4) * pitch + 2 * (lane % 4);
        banks.insert(word % 32);
        banks.insert((word + 1) % 32);
      }
      INFO("tile " << tile << " half-warp " << half);
      CHECK(banks.size() == 32);
    }
  }
}

TEST_CASE("sdpa 3xtf32: V fragment reads (row 2t, column g) hit 32 different banks", "[heuristics][sdpa]") {
  for (int tile : kTiles) {
    const int pitch = sdpa_tf32x3_v_pitch(tile);
    for (int odd = 0; odd < 2; ++odd) {  // b0 reads row 2t, b1 row 2t + 1
      std::set<int> banks;
      for (int lane = 0; lane < 32; ++lane) banks.insert(((2 * (lane % 4) + odd) * pitch + lane / 4) % 32);
      INFO("tile " << tile << " row offset " << odd);
      CHECK(banks.size() == 32);
    }
  }
}

TEST_CASE("sdpa 3xtf32: the small halves' reads hit 32 different banks", "[heuristics][sdpa]") {
  for (int tile : kTiles) {
    INFO("tile " << tile);
    std::set<int> k_banks, v_banks;
    for (int lane = 0; lane < 32; ++lane) {
      k_banks.insert(((lane / 4) * sdpa_tf32x3_k_small_pitch(tile) + lane % 4) % 32);  // row g, word t
      v_banks.insert(((lane % 4) * sdpa_tf32x3_v_small_pitch(tile) + lane / 4) % 32);  // row pair t, column g
    }
    CHECK(k_banks.size() == 32);
    CHECK(v_banks.size() == 32);
  }
}

TEST_CASE("sdpa 3xtf32: Q fragment reads (float4 at word 4t, small pairs at word 2t of row g) spread over all banks",
          "[heuristics][sdpa]") {
  for (int tile : kTiles) {
    INFO("tile " << tile);
    // 16-byte reads go in phases of 8 lanes, 8-byte ones in phases of 16.
    for (int phase = 0; phase < 4; ++phase) {
      std::set<int> banks;
      for (int lane = 8 * phase; lane < 8 * phase + 8; ++lane)
        for (int w = 0; w < 4; ++w) banks.insert(((lane / 4) * sdpa_tf32x3_q_pitch(tile) + 4 * (lane % 4) + w) % 32);
      CHECK(banks.size() == 32);
    }
    for (int phase = 0; phase < 2; ++phase) {
      std::set<int> banks;
      for (int lane = 16 * phase; lane < 16 * phase + 16; ++lane)
        for (int w = 0; w < 2; ++w)
          banks.insert(((lane / 4) * sdpa_tf32x3_q_small_pitch(tile) + 2 * (lane % 4) + w) % 32);
      CHECK(banks.size() == 32);
    }
  }
}

TEST_CASE("sdpa 3xtf32: the wide tiles fit sm_90's blocks and differ at the 128 tile alone", "[heuristics][sdpa]") {
  // sm 90 and 100-103: 227 KiB per block (src/core/arch_limits.hpp).
  const SdpaTcConfig wide = sdpa_tf32x3_config(128, true);
  CHECK(sdpa_tf32x3_smem_bytes(wide, 128) <= 227 * 1024);
  CHECK(sdpa_tf32x3_smem_bytes(128, 8, true) == sdpa_tf32x3_smem_bytes(wide, 128));
  CHECK(sdpa_tf32x3_smem_bytes(128, 8, true) > sdpa_tf32x3_smem_bytes(128, 8));
  const int threads = sdpa_tc_threads(wide), chunks = 128 / 4;
  REQUIRE(threads % chunks == 0);
  CHECK(wide.block_n % (threads / chunks) == 0);
  CHECK(sdpa_tc_block_m(wide) % (threads / chunks) == 0);
  for (int tile : {64, 256}) {
    INFO("tile " << tile);
    const SdpaTcConfig w = sdpa_tf32x3_config(tile, true), c = sdpa_tf32x3_config(tile);
    CHECK((w.warps == c.warps && w.m_atoms == c.m_atoms && w.block_n == c.block_n && w.stages == c.stages &&
           w.min_blocks == c.min_blocks));
  }
}
