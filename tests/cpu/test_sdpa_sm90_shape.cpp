// The Hopper attention forward's cuts (kernels/sdpa/sm90/sdpa_forward_sm90_shape.h):
// which problems take a third consumer warpgroup and stage O in shared
// memory, every shape's shared memory within sm_90's per-block limit, and
// the consumers' register split. No GPU.
#include <catch2/catch.hpp>

#include "sdpa/sdpa_visible_keys.h"
#include "sdpa/sm90/sdpa_forward_sm90_shape.h"

using namespace baracuda::kernels;

TEST_CASE("sdpa sm90: every tile is persistent, 64-column tiles with three consumers where no mask bounds the keys",
          "[heuristics][sdpa]") {
  CHECK(sdpa_sm90_shape(64, false).consumers == 3);
  CHECK(sdpa_sm90_shape(64, true).consumers == 2);
  for (bool bounded : {false, true}) {
    CHECK(sdpa_sm90_shape(64, bounded).persistent);
    CHECK(sdpa_sm90_shape(64, bounded).rescale_slack == -1);
  }
  for (int tile : {128, 256})
    for (bool bounded : {false, true}) {
      CHECK(sdpa_sm90_shape(tile, bounded).consumers == 2);
      CHECK(sdpa_sm90_shape(tile, bounded).persistent);
      CHECK(sdpa_sm90_shape(tile, bounded).rescale_slack == 8);
    }
}

TEST_CASE("sdpa sm90: O leaves through shared memory and TMA stores, at 256 columns staged in the V slots",
          "[heuristics][sdpa]") {
  for (bool bounded : {false, true}) {
    for (int tile : {64, 128, 256}) CHECK(sdpa_sm90_shape(tile, bounded).smem_epilogue);
    CHECK_FALSE(sdpa_sm90_shape(64, bounded).stage_in_values);
    CHECK_FALSE(sdpa_sm90_shape(128, bounded).stage_in_values);
    CHECK(sdpa_sm90_shape(256, bounded).stage_in_values);
    // A staging tile of its own takes as much shared memory as Q.
    SdpaSm90Shape direct = sdpa_sm90_shape(128, bounded);
    direct.smem_epilogue = false;
    CHECK(sdpa_sm90_smem_bytes(sdpa_sm90_shape(128, bounded)) - sdpa_sm90_smem_bytes(direct) == 128u * 256u);
    // One staged in the V slots takes none: each group's 64 rows fit a slot, one slot a group.
    const SdpaSm90Shape wide = sdpa_sm90_shape(256, bounded);
    direct = wide;
    direct.smem_epilogue = direct.stage_in_values = false;
    CHECK(sdpa_sm90_smem_bytes(wide) == sdpa_sm90_smem_bytes(direct));
    CHECK(wide.consumers <= wide.stages);
    CHECK(64 * wide.slabs * 128 <= wide.block_n * wide.slabs * 128);
  }
}

TEST_CASE("sdpa sm90: only 256 columns trim a group's keys and, with four consumers, broadcast the group index",
          "[heuristics][sdpa]") {
  for (bool bounded : {false, true}) {
    for (int tile : {64, 128}) {
      CHECK_FALSE(sdpa_sm90_shape(tile, bounded).uniform_group);
      CHECK_FALSE(sdpa_sm90_shape(tile, bounded).trim_group_keys);
    }
    CHECK(sdpa_sm90_shape(256, bounded).uniform_group);
    CHECK(sdpa_sm90_shape(256, bounded).trim_group_keys);
  }
}

TEST_CASE("sdpa sm90: a causal mask or either window bounds the keys", "[heuristics][sdpa]") {
  const SdpaVisibleKeys open{0, 100, false, -1, -1};
  CHECK_FALSE(open.bounded());
  CHECK(SdpaVisibleKeys{0, 100, true, -1, -1}.bounded());
  CHECK(SdpaVisibleKeys{0, 100, false, 5, -1}.bounded());
  CHECK(SdpaVisibleKeys{0, 100, false, -1, 0}.bounded());
}

TEST_CASE("sdpa sm90: open 64-column problems take four consumers of 64 keys where they run fewer rounds of rows",
          "[heuristics][sdpa]") {
  // 132 SMs. B16 H16 S1024: 8 rounds of 256 rows (x 1.08) against 12 of 192;
  // B32 H16 S512 the same; S2048 and S4096 16 against 11 and 22 (of 192):
  // three consumers.
  CHECK(sdpa_sm90_cut(64, false, 256, 1024, 132) == SdpaSm90Cut::kOpenFourGroups);
  CHECK(sdpa_sm90_cut(64, false, 512, 512, 132) == SdpaSm90Cut::kOpenFourGroups);
  CHECK(sdpa_sm90_cut(64, false, 256, 2048, 132) == SdpaSm90Cut::kOpen);
  CHECK(sdpa_sm90_cut(64, false, 128, 4096, 132) == SdpaSm90Cut::kOpen);
  // Fewer tiles than SMs: one round either way, the shorter tiles win
  // (B2 H8 S1024: 96 blocks of 192 rows against 64 of 256).
  CHECK(sdpa_sm90_cut(64, false, 16, 1024, 132) == SdpaSm90Cut::kOpen);
  // No SM count (the query failed): three consumers.
  CHECK(sdpa_sm90_cut(64, false, 256, 1024, 0) == SdpaSm90Cut::kOpen);
  CHECK(sdpa_sm90_cut(64, true, 256, 1024, 132) == SdpaSm90Cut::kBounded);
  for (int tile : {128, 256}) {
    CHECK(sdpa_sm90_cut(tile, false, 256, 1024, 132) == SdpaSm90Cut::kOpen);
    CHECK(sdpa_sm90_cut_shape(tile, SdpaSm90Cut::kOpenFourGroups) == sdpa_sm90_shape(tile, false));
  }
  const SdpaSm90Shape four = sdpa_sm90_cut_shape(64, SdpaSm90Cut::kOpenFourGroups);
  CHECK(four.consumers == 4);
  CHECK(four.block_n == 64);
  CHECK(four.block_m() == 256);
  CHECK(four.uniform_group);
  CHECK_FALSE(four.trim_group_keys);
  CHECK(sdpa_sm90_consumer_registers(four) == 112);
}

TEST_CASE("sdpa sm90: every shape fits sm_90's shared memory and splits its registers", "[heuristics][sdpa]") {
  for (int tile : {64, 128, 256})
    for (int cut = 0; cut < kSdpaSm90Cuts; ++cut) {
      const SdpaSm90Shape s = sdpa_sm90_cut_shape(tile, static_cast<SdpaSm90Cut>(cut));
      INFO("tile " << tile << " cut " << cut);
      CHECK(sdpa_sm90_smem_bytes(s) <= 227 * 1024);
      CHECK(sdpa_sm90_smem_bytes(s) <= sdpa_sm90_most_smem_bytes(tile));
      const int consumer = sdpa_sm90_consumer_registers(s);
      CHECK(consumer % 8 == 0);
      CHECK(consumer * 128 * s.consumers + 128 * kSdpaSm90ProducerRegisters <= 65536);
    }
}
