// Walks the blocks of an SdpaTileOrder (kernels/sdpa/sdpa_tile_order.h):
// each block's (pair, tile) in range and every (pair, tile) exactly once.
// Shared by the forward's order test and the Hopper backward's.
#pragma once

#include <catch2/catch.hpp>
#include <vector>

#include "sdpa/sdpa_tile_order.h"

inline std::vector<baracuda::kernels::SdpaQueryTile> walk_every_tile_once(const baracuda::kernels::SdpaTileOrder &o) {
  std::vector<int> seen(static_cast<size_t>(o.batch_heads * o.query_tiles), 0);
  std::vector<baracuda::kernels::SdpaQueryTile> blocks;
  for (int64_t tile = 0; tile < o.batch_heads * o.query_tiles; ++tile) {
    const baracuda::kernels::SdpaQueryTile at = baracuda::kernels::sdpa_query_tile(o, tile);
    REQUIRE(at.bh >= 0);
    REQUIRE(at.bh < o.batch_heads);
    REQUIRE(at.m_index >= 0);
    REQUIRE(at.m_index < o.query_tiles);
    ++seen[static_cast<size_t>(at.bh * o.query_tiles + at.m_index)];
    blocks.push_back(at);
  }
  for (int n : seen) REQUIRE(n == 1);
  return blocks;
}
