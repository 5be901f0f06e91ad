// The order the tensor-core forward's blocks take the query tiles in
// (kernels/sdpa/sdpa_tile_order.h): every tile exactly once, the plain order
// without a causal mask, and with one each section's tiles longest first. No GPU.
#include <catch2/catch.hpp>

#include "sdpa/sdpa_tile_order.h"
#include "sdpa_tile_order_walk.hpp"

using namespace baracuda::kernels;

TEST_CASE("sdpa tile order: every query tile once, for any section size", "[heuristics][sdpa]") {
  for (int64_t bh : {1, 3, 64, 67})
    for (int64_t qt : {1, 2, 16, 33})
      for (int64_t section : {int64_t{1}, int64_t{2}, int64_t{5}, bh})
        for (bool longest_first : {false, true}) {
          INFO("pairs " << bh << " query tiles " << qt << " section " << section << " longest first " << longest_first);
          walk_every_tile_once({qt, bh, section < bh ? section : bh, longest_first});
        }
}

TEST_CASE("sdpa tile order: without a causal mask, a pair's tiles in order, pair after pair", "[heuristics][sdpa]") {
  const SdpaTileOrder o = sdpa_tile_order(12, 7, false);
  CHECK(o.section_heads == 1);
  for (int64_t tile = 0; tile < 12 * 7; ++tile) {
    const SdpaQueryTile at = sdpa_query_tile(o, tile);
    CHECK(at.bh == tile / 7);
    CHECK(at.m_index == tile % 7);
  }
}

TEST_CASE("sdpa tile order: causal sections take every pair's longest tile first", "[heuristics][sdpa]") {
  for (int64_t bh : {1, 5, 64, 300})
    for (int64_t qt : {1, 3, 16, 64, 600}) {
      const SdpaTileOrder o = sdpa_tile_order(bh, qt, true);
      INFO("pairs " << bh << " query tiles " << qt << " section " << o.section_heads);
      REQUIRE(o.section_heads >= 1);
      REQUIRE(o.section_heads <= bh);
      // Enough tiles to balance, unless the problem has fewer.
      CHECK((o.section_heads * qt >= kSdpaCausalSectionTiles || o.section_heads == bh));
      CHECK((o.section_heads == 1 || (o.section_heads - 1) * qt < kSdpaCausalSectionTiles));
      walk_every_tile_once(o);
      // Within a section the bottom tiles (m_index = qt - 1, the most keys)
      // come first, and a tile never follows a shorter one of its section.
      int64_t prev_section = -1, prev_m = 0;
      for (int64_t tile = 0; tile < bh * qt; ++tile) {
        const SdpaQueryTile at = sdpa_query_tile(o, tile);
        const int64_t section = at.bh / o.section_heads;
        CHECK(section >= prev_section);
        if (section != prev_section) CHECK(at.m_index == qt - 1);
        else CHECK(at.m_index <= prev_m);
        prev_section = section;
        prev_m = at.m_index;
      }
    }
  CHECK(sdpa_tile_order(0, 4, true).section_heads == 1);
}
