// The order the Hopper attention backward's blocks take the key tiles in
// (kernels/sdpa/sm90/sdpa_backward_sm90_order.h): every (b, kv head, key
// tile) once; in the deterministic mode every key tile after the key tiles
// above it of its (b, kv head), which its dQ additions wait for, by rank
// where the sm_80 kernel takes that order; in the atomic mode a (b, kv
// head)'s key tiles in turn. No GPU.
#include <catch2/catch.hpp>
#include <vector>

#include "sdpa/sm90/sdpa_backward_sm90_order.h"
#include "sdpa_tile_order_walk.hpp"

using namespace baracuda::kernels;

namespace {
SdpaProblem problem(int64_t batch, int64_t heads_q, int64_t heads_kv, int64_t queries, int64_t keys, int d,
                    bool causal, bool deterministic) {
  SdpaProblem p{};
  p.batch = batch;
  p.heads_q = heads_q;
  p.heads_kv = heads_kv;
  p.queries = queries;
  p.keys = keys;
  p.head_dim = p.head_dim_v = d;
  p.causal = causal;
  p.window_left = p.window_right = -1;
  p.deterministic = deterministic;
  return p;
}
}  // namespace

TEST_CASE("sdpa sm90 backward order: the deterministic mode's key tiles after the ones above them",
          "[heuristics][sdpa]") {
  for (int d : {64, 128, 256})
    for (bool causal : {false, true})
      for (int64_t s : {int64_t{100}, int64_t{1024}, int64_t{4096}})
        for (int64_t kv : {int64_t{1}, int64_t{3}, int64_t{16}}) {
          const SdpaProblem p = problem(2, 2 * kv, kv, s, s, d, causal, true);
          const SdpaTileOrder o = sdpa_sm90_backward_order(p, sdpa_sm90_backward_shape(d));
          INFO("D " << d << " causal " << causal << " S " << s << " kv heads " << kv << " section " << o.section_heads);
          REQUIRE(o.longest_first);  // from the last key tile
          std::vector<int64_t> next(static_cast<size_t>(o.batch_heads), o.query_tiles - 1);
          for (const SdpaQueryTile &at : walk_every_tile_once(o)) {
            CHECK(at.m_index == next[static_cast<size_t>(at.bh)]);
            --next[static_cast<size_t>(at.bh)];
          }
        }
}

TEST_CASE("sdpa sm90 backward order: by rank across a batch's kv heads where the deterministic sm_80 kernel takes it",
          "[heuristics][sdpa]") {
  // B8 H16 S2048 D 256: 32 key tiles of 64 over 32 query tiles of 64.
  const SdpaTileOrder by_rank = sdpa_sm90_backward_order(problem(8, 16, 16, 2048, 2048, 256, false, true),
                                                         sdpa_sm90_backward_shape(256));
  CHECK(by_rank.section_heads == 16);
  // B4 H32 S4096 D 128: 32 key tiles of 128 over 64 query tiles; causal: never.
  CHECK(sdpa_sm90_backward_order(problem(4, 32, 32, 4096, 4096, 128, false, true), sdpa_sm90_backward_shape(128))
            .section_heads == 1);
  CHECK(sdpa_sm90_backward_order(problem(8, 16, 16, 2048, 2048, 256, true, true), sdpa_sm90_backward_shape(256))
            .section_heads == 1);
}

TEST_CASE("sdpa sm90 backward order: atomic, a pair's key tiles in turn", "[heuristics][sdpa]") {
  for (int d : {64, 128, 256})
    for (bool causal : {false, true}) {
      const SdpaTileOrder o =
          sdpa_sm90_backward_order(problem(4, 8, 8, 3000, 3000, d, causal, false), sdpa_sm90_backward_shape(d));
      CHECK(o.section_heads == 1);
      CHECK(!o.longest_first);
      const std::vector<SdpaQueryTile> blocks = walk_every_tile_once(o);
      for (size_t i = 0; i < blocks.size(); ++i) {
        CHECK(blocks[i].bh == static_cast<int64_t>(i) / o.query_tiles);
        CHECK(blocks[i].m_index == static_cast<int64_t>(i) % o.query_tiles);
      }
    }
}
