// The Hopper attention forward's cuts (kernels/sdpa/sm90/sdpa_forward_sm90_shape.h):
// which problems take a third consumer warpgroup and stage O in shared
// memory, every shape's shared memory within sm_90's per-block limit, and
// the consumers' register split. No GPU.
#include <catch2/catch.hpp>

#include "sdpa/sdpa_visible_keys.h"
#include "sdpa/sm90/sdpa_forward_sm90_shape.h"

#include <algorithm>
#include <utility>
#include <vector>

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

TEST_CASE("sdpa sm90: 256 columns and the 64-column four-consumer cut trim a group's keys; they and the 64-column "
          "two- and four-consumer cuts "
          "broadcast the group index",
          "[heuristics][sdpa]") {
  for (bool bounded : {false, true}) {
    for (int tile : {64, 128}) CHECK_FALSE(sdpa_sm90_shape(tile, bounded).trim_group_keys);
    CHECK_FALSE(sdpa_sm90_shape(128, bounded).uniform_group);
    CHECK(sdpa_sm90_shape(256, bounded).uniform_group);
    CHECK(sdpa_sm90_shape(256, bounded).trim_group_keys);
  }
  CHECK(sdpa_sm90_shape(64, true).uniform_group);
  CHECK_FALSE(sdpa_sm90_shape(64, false).uniform_group);
  CHECK(sdpa_sm90_cut_shape(64, SdpaSm90Cut::kFourGroups).uniform_group);
}

TEST_CASE("sdpa sm90: the 128-column tile keeps Q in two slots and carries the turns from tile to tile",
          "[heuristics][sdpa]") {
  for (int tile : {64, 128, 256})
    for (int cut = 0; cut < kSdpaSm90Cuts; ++cut) {
      const SdpaSm90Shape s = sdpa_sm90_cut_shape(tile, static_cast<SdpaSm90Cut>(cut));
      INFO("tile " << tile << " cut " << cut);
      CHECK(s.double_query == (tile == 128));
      CHECK(s.query_slots() == (tile == 128 ? 2 : 1));
      CHECK(s.carry_turns == (tile == 128));
    }
  // The second slot takes a Q tile's bytes and three barriers more.
  SdpaSm90Shape one = sdpa_sm90_shape(128, false);
  one.double_query = false;
  CHECK(sdpa_sm90_smem_bytes(sdpa_sm90_shape(128, false)) - sdpa_sm90_smem_bytes(one) == 128u * 256u + 3u * 8u);
}

TEST_CASE("sdpa sm90: a causal mask or either window bounds the keys", "[heuristics][sdpa]") {
  const SdpaVisibleKeys open{0, 100, false, -1, -1};
  CHECK_FALSE(open.bounded());
  CHECK(SdpaVisibleKeys{0, 100, true, -1, -1}.bounded());
  CHECK(SdpaVisibleKeys{0, 100, false, 5, -1}.bounded());
  CHECK(SdpaVisibleKeys{0, 100, false, -1, 0}.bounded());
}

TEST_CASE("sdpa sm90: the 64-column tile's two- and four-consumer cuts find a query tile's whole key tiles once",
          "[heuristics][sdpa]") {
  CHECK(sdpa_sm90_cut_shape(64, SdpaSm90Cut::kBounded).visible_tiles_once);
  CHECK(sdpa_sm90_cut_shape(64, SdpaSm90Cut::kFourGroups).visible_tiles_once);
  CHECK_FALSE(sdpa_sm90_cut_shape(64, SdpaSm90Cut::kOpen).visible_tiles_once);
  for (int tile : {128, 256})
    for (int cut = 0; cut < kSdpaSm90Cuts; ++cut)
      CHECK_FALSE(sdpa_sm90_cut_shape(tile, static_cast<SdpaSm90Cut>(cut)).visible_tiles_once);
}

TEST_CASE("sdpa sm90: 64-column problems take four consumers of 64 keys, open ones where they run fewer rounds of rows, "
          "a causal mask alone from 2048 queries",
          "[heuristics][sdpa]") {
  // 132 SMs. B16 H16 S1024: 8 rounds of 256 rows (x 1.08) against 12 of 192;
  // B32 H16 S512 the same; S2048 and S4096 16 against 11 and 22 (of 192):
  // three consumers.
  CHECK(sdpa_sm90_cut(64, false, false, 256, 1024, 132) == SdpaSm90Cut::kFourGroups);
  CHECK(sdpa_sm90_cut(64, false, false, 512, 512, 132) == SdpaSm90Cut::kFourGroups);
  CHECK(sdpa_sm90_cut(64, false, false, 256, 2048, 132) == SdpaSm90Cut::kOpen);
  CHECK(sdpa_sm90_cut(64, false, false, 128, 4096, 132) == SdpaSm90Cut::kOpen);
  // Fewer tiles than SMs: one round either way, the shorter tiles win
  // (B2 H8 S1024: 96 blocks of 192 rows against 64 of 256).
  CHECK(sdpa_sm90_cut(64, false, false, 16, 1024, 132) == SdpaSm90Cut::kOpen);
  // No SM count (the query failed): three consumers.
  CHECK(sdpa_sm90_cut(64, false, false, 256, 1024, 0) == SdpaSm90Cut::kOpen);
  CHECK(sdpa_sm90_cut(64, true, false, 256, 1024, 132) == SdpaSm90Cut::kBounded);
  // A causal mask alone from 2048 queries: four consumers too; windows and wider tiles keep theirs.
  const struct {
    int tile;
    bool causal_alone;
    int64_t batch_heads, queries;
    SdpaSm90Cut cut;
  } bounded_cuts[] = {{64, true, 256, 2048, SdpaSm90Cut::kFourGroups}, {64, true, 128, 4096, SdpaSm90Cut::kFourGroups},
                      {64, true, 8, 8192, SdpaSm90Cut::kFourGroups},   {64, true, 256, 2047, SdpaSm90Cut::kBounded},
                      {64, true, 256, 1024, SdpaSm90Cut::kBounded},    {64, false, 128, 8192, SdpaSm90Cut::kBounded},
                      {128, true, 128, 8192, SdpaSm90Cut::kBounded},   {256, true, 128, 8192, SdpaSm90Cut::kBounded}};
  for (const auto &c : bounded_cuts) {
    CAPTURE(c.tile, c.causal_alone, c.batch_heads, c.queries);
    CHECK(sdpa_sm90_cut(c.tile, true, c.causal_alone, c.batch_heads, c.queries, 132) == c.cut);
  }
  for (int tile : {128, 256}) {
    CHECK(sdpa_sm90_cut(tile, false, false, 256, 1024, 132) == SdpaSm90Cut::kOpen);
    CHECK(sdpa_sm90_cut_shape(tile, SdpaSm90Cut::kFourGroups) == sdpa_sm90_shape(tile, false));
  }
  const SdpaSm90Shape four = sdpa_sm90_cut_shape(64, SdpaSm90Cut::kFourGroups);
  CHECK(four.consumers == 4);
  CHECK(four.block_n == 64);
  CHECK(four.block_m() == 256);
  CHECK(four.uniform_group);
  CHECK(four.trim_group_keys);  // under a causal mask from 2048 queries
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

TEST_CASE("sdpa sm90: the last round's items are shared out in key tiles where more blocks than items take them",
          "[heuristics][sdpa]") {
  // B4 H32 S4096: 4096 tiles of 32 key tiles on 132 SMs, 31 whole rounds;
  // the last 4 tiles' 128 key tiles go to 32 blocks of 4.
  const SdpaSm90Shape open = sdpa_sm90_shape(128, false);
  CHECK(open.share_last_round);
  CHECK(sdpa_sm90_shape(128, true).share_last_round);
  CHECK_FALSE(sdpa_sm90_shape(64, false).share_last_round);
  CHECK_FALSE(sdpa_sm90_shape(256, false).share_last_round);
  SdpaSm90Split s = sdpa_sm90_split(open, 4096, 32, 132);
  CHECK(s.first == 31 * 132);
  CHECK(s.turns == 31);
  CHECK(s.items == 4);
  CHECK(s.blocks == 32);
  CHECK(s.item_keys == 32);
  // Causal B4 H32 S4096: 2048 pairs of 33 key tiles, 15 whole rounds and 68
  // pairs, over a quarter of the SMs: not shared. 2052 pairs: 15 rounds and
  // 72 ... 1992 pairs: 15 rounds and 12 pairs' 396 key tiles on 99 blocks.
  CHECK(sdpa_sm90_split(open, 2048, 33, 132).blocks == 0);
  s = sdpa_sm90_split(open, 1992, 33, 132);
  CHECK(s.first == 15 * 132);
  CHECK(s.turns == 15);  // rounds of pairs (forward_params doubles it: two turns a pair)
  CHECK(s.items == 12);
  CHECK(s.blocks == 99);
  // B3 H32 S4096: 3072 tiles, 23 rounds and 36 tiles (over a quarter): not shared.
  CHECK(sdpa_sm90_split(open, 3072, 32, 132).blocks == 0);
  CHECK(sdpa_sm90_split(open, 23 * 132 + 33, 32, 132).blocks == 132);
  // Fewer items than SMs: all shared where they are a quarter of the SMs or fewer.
  s = sdpa_sm90_split(open, 32, 8, 132);
  CHECK(s.first == 0);
  CHECK(s.items == 32);
  CHECK(s.blocks == 64);
  CHECK(sdpa_sm90_split(open, 34, 8, 132).blocks == 0);
  // Not shared: whole rounds only, items of unequal keys (0), no more blocks
  // than items at 4 key tiles each, other head-size tiles, no SM count.
  CHECK(sdpa_sm90_split(open, 32 * 132, 32, 132).blocks == 0);
  CHECK(sdpa_sm90_split(open, 4096, 0, 132).blocks == 0);
  CHECK(sdpa_sm90_split(open, 4096, 5, 132).blocks == 0);  // 4 items of 5: 5 blocks, ranges of 4
  CHECK(sdpa_sm90_split(open, 4096, 6, 132).blocks == 6);  // 4 items of 6: 6 blocks, ranges of 4
  // B1 H8 S2048: 128 tiles, all in the last round; 132 blocks would take 97% of a tile each.
  CHECK(sdpa_sm90_split(open, 128, 16, 132).blocks == 0);
  CHECK(sdpa_sm90_split(sdpa_sm90_shape(64, false), 4096, 32, 132).blocks == 0);
  CHECK(sdpa_sm90_split(sdpa_sm90_shape(256, false), 4096, 32, 132).blocks == 0);
  CHECK(sdpa_sm90_split(open, 4096, 32, 0).blocks == 0);
  const SdpaSm90Split none = sdpa_sm90_split(open, 4096, 0, 132);
  CHECK(none.first == 4096);
  CHECK(sdpa_sm90_split_partial_bytes(open, 128, none) + sdpa_sm90_split_arrival_bytes(open, none, true) == 0);
}

TEST_CASE("sdpa sm90: the forward's workspace holds every split up to 132 SMs, none at other head-size tiles",
          "[heuristics][sdpa]") {
  for (bool bounded : {false, true}) {
    const SdpaSm90Shape shape = sdpa_sm90_shape(128, bounded);
    for (int64_t tiles : {1, 2, 5, 32, 60, 66, 67, 131, 132, 133, 200, 264, 4096, 4100, 100000})
      for (int64_t key_tiles : {1, 3, 4, 7, 8, 9, 32, 33, 64, 1000})
        for (bool pairs : {false, true}) {
          if (pairs && (!bounded || tiles % 2 != 0)) continue;
          const size_t bound = sdpa_sm90_forward_workspace_bytes(128, bounded, tiles, key_tiles);
          // A pair's keys are at most its two tiles'.
          const int64_t items = pairs ? tiles / 2 : tiles, item_keys = pairs ? 2 * key_tiles : key_tiles;
          for (int64_t sms = 1; sms <= kSdpaSm90SplitMostBlocks; ++sms) {
            const SdpaSm90Split s = sdpa_sm90_split(shape, items, item_keys, sms);
            INFO("tiles " << tiles << " key tiles " << key_tiles << " pairs " << pairs << " sms " << sms);
            CHECK(sdpa_sm90_split_partial_bytes(shape, 128, s) + sdpa_sm90_split_arrival_bytes(shape, s, pairs) <=
                  bound);
            CHECK(s.blocks <= sms);
            if (s.blocks > 0) {
              CHECK(3 * s.blocks >= 4 * s.items);
              CHECK(4 * s.items <= sms);
              CHECK(int64_t{s.items} * s.item_keys >= kSdpaSm90SplitLeastKeyTiles * s.blocks);
              CHECK(s.first + s.items == items);
              CHECK(s.first % sms == 0);
              CHECK(s.turns * sms == s.first);
            }
          }
        }
  }
  CHECK(sdpa_sm90_forward_workspace_bytes(64, false, 4096, 32) == 0);
  CHECK(sdpa_sm90_forward_workspace_bytes(256, false, 4096, 32) == 0);
  CHECK(sdpa_sm90_forward_workspace_bytes(128, false, 1, 7) == 0);  // 7 key tiles: one block
  // B4 H32 S4096: two pieces a block on 132 SMs (256 consumer threads' 17
  // vectors of 16 bytes each), two tiles' arrival counts for 131 items.
  CHECK(sdpa_sm90_forward_workspace_bytes(128, false, 4096, 32) == 2u * 132 * 256 * 17 * 16 + 131u * 2 * 2 * 4);
}

namespace {

// Every block's causal tiles as the producer deals them (produce() of
// sdpa_forward_sm90.cuh): pairs of neighbouring tiles, a (b, h)'s heavy and
// light query tile, before tail_from, then the tail's tiles as the pairs'
// index that tile_work reads back (a (b, h)'s tile 2 k: query tile n - 1 - k,
// 2 k + 1: k). Returns each block's key tiles (query tile m sees m + 1 of
// them) and counts every (b, h, query tile) dealt.
std::vector<int64_t> deal(int64_t bhs, int64_t query_tiles, int64_t blocks, int64_t least_query_tiles,
                          std::vector<int> &dealt) {
  const int64_t tiles = bhs * query_tiles,
                tail_from = sdpa_sm90_tail_from(tiles, query_tiles, blocks, least_query_tiles);
  const auto u32 = [](int64_t x) { return static_cast<uint32_t>(x); };
  std::vector<int64_t> work(blocks, 0);
  dealt.assign(tiles, 0);
  const auto take = [&](int64_t b, int64_t tile) {
    const int64_t bh = tile / query_tiles, j = tile % query_tiles;
    const int64_t m = j % 2 == 0 ? query_tiles - 1 - j / 2 : j / 2;
    REQUIRE(bh < bhs);
    ++dealt[bh * query_tiles + m];
    work[b] += m + 1;
  };
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t pair_turns =
        tail_from < tiles ? sdpa_sm90_pair_turns(u32(tail_from), u32(blocks), u32(b)) : int64_t{1} << 40;
    for (int64_t turn = 0; turn < pair_turns; ++turn) {
      const int64_t tile = ((b + (turn >> 1) * blocks) << 1) + (turn & 1);
      if (tile >= tiles) break;
      take(b, tile);
    }
    if (tail_from == tiles) continue;
    for (uint32_t turn = 0;; ++turn) {
      const uint32_t at = sdpa_sm90_tail_tile(u32(tail_from), u32(blocks), u32(b), turn);
      if (at >= tiles) break;
      const SdpaSm90TileRow row = sdpa_sm90_tail_row(u32(tail_from), u32(tiles), u32(query_tiles), at);
      REQUIRE(row.m_index < query_tiles);
      take(b, int64_t{row.bh} * query_tiles + sdpa_sm90_pair_position(row.m_index, u32(query_tiles)));
    }
  }
  return work;
}

}  // namespace

TEST_CASE("sdpa sm90: causal tiles in pairs, the last rounds' worth heaviest first from 32 query tiles (8 at 64 "
          "columns)",
          "[heuristics][sdpa]") {
  CHECK(sdpa_sm90_tail_least_query_tiles(64) == 8);
  CHECK(sdpa_sm90_tail_least_query_tiles(128) == 32);
  CHECK(sdpa_sm90_tail_least_query_tiles(256) == 32);
  // 132 SMs, 128-row tiles: B4 H32 S4096, B2 H32 S8192, B8 H16 S4096, B4 H16
  // S8192, B16 H16 S2048 (16 query tiles: pairs alone from 32), B16 H16 S1024,
  // and odd shapes.
  for (const int64_t least_tiles : {int64_t{32}, int64_t{8}})
    for (const auto &[bhs, query_tiles] : std::vector<std::pair<int64_t, int64_t>>{
             {128, 32}, {64, 64}, {32, 128}, {16, 32}, {256, 16}, {256, 8}, {33, 34}, {1000, 32}, {9, 32}, {5, 64},
             {70, 10}, {20, 6}}) {
      const int64_t blocks = 132, tiles = bhs * query_tiles,
                    from = sdpa_sm90_tail_from(tiles, query_tiles, blocks, least_tiles);
      CAPTURE(least_tiles, bhs, query_tiles, from);
      CHECK(from % query_tiles == 0);
      CHECK(from <= tiles);
      CHECK((from < tiles) == (query_tiles >= least_tiles && tiles >= 2 * blocks));
      std::vector<int> dealt;
      const std::vector<int64_t> work = deal(bhs, query_tiles, blocks, least_tiles, dealt);
      for (int n : dealt) REQUIRE(n == 1);
      // With a tail the blocks end within a heavy tile's work of one another,
      // where the pairs alone leave a pair's (query_tiles + 1) short on the
      // last round's idle blocks.
      if (from < tiles) {
        const auto [least, most] = std::minmax_element(work.begin(), work.end());
        CHECK(*most - *least <= query_tiles);
      }
    }
  // Odd query tiles (a pair spans two (b, h)s) or too few tiles for pairs: no tail.
  CHECK(sdpa_sm90_tail_from(132 * 33, 33, 132, 32) == 132 * 33);
  CHECK(sdpa_sm90_tail_from(200, 32, 132, 32) == 200);
  CHECK(sdpa_sm90_tail_from(132 * 9, 9, 132, 8) == 132 * 9);
  // Fewer query tiles than the least: pairs alone.
  CHECK(sdpa_sm90_tail_from(256 * 16, 16, 132, 32) == 256 * 16);
  CHECK(sdpa_sm90_tail_from(256 * 4, 4, 132, 8) == 256 * 4);
  // Few pairs: the whole problem dealt heaviest first.
  CHECK(sdpa_sm90_tail_from(9 * 32, 32, 132, 32) == 0);
  CHECK(sdpa_sm90_tail_from(20 * 16, 16, 132, 8) == 0);
  // The pairs' positions of a (b, h)'s query tiles, each once.
  for (uint32_t n : {2u, 8u, 32u}) {
    std::vector<int> seen(n, 0);
    for (uint32_t m = 0; m < n; ++m) {
      const uint32_t j = sdpa_sm90_pair_position(m, n);
      REQUIRE(j < n);
      ++seen[j];
      CHECK((j % 2 == 0 ? n - 1 - j / 2 : j / 2) == m);
    }
    for (int c : seen) CHECK(c == 1);
  }
}
