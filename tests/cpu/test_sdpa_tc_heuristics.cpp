// The tensor-core attention forward's cuts (kernels/sdpa/sdpa_tc_heuristics.h,
// sdpa_visible_keys.h): the head-size tile, every variant's shared memory
// within its arch's per-block limit, the query tiles, and the key tiles a
// query tile visits and masks, checked against a brute-force walk. No GPU.
#include <algorithm>
#include <catch2/catch.hpp>

#include "sdpa/sdpa_tc_heuristics.h"
#include "sdpa/sdpa_visible_keys.h"

using namespace baracuda::kernels;

TEST_CASE("sdpa tc: the head-size tile holds D and Dv", "[heuristics][sdpa]") {
  for (int d = 8; d <= 256; d += 8)
    for (int dv = 8; dv <= 256; dv += 8) {
      const int tile = sdpa_tc_head_dim_tile(d, dv);
      INFO("D " << d << " Dv " << dv);
      CHECK((tile == 64 || tile == 128 || tile == 256));
      CHECK(tile >= std::max(d, dv));
      CHECK((tile == 64 || tile / 2 < std::max(d, dv)));
    }
}

TEST_CASE("sdpa tc: both variants' tiles fit every GPU from sm_80 on", "[heuristics][sdpa]") {
  // The smallest per-block opt-in limit of sm_80 and later: 99 KiB (sm_86, sm_89).
  for (int tile : {64, 128, 256}) {
    INFO("tile " << tile);
    CHECK(sdpa_tc_smem_bytes(sdpa_tc_config(SdpaTcVariant::kSm80, tile), tile) <= 99 * 1024);
    CHECK(sdpa_tc_smem_bytes(sdpa_tc_config(SdpaTcVariant::kSm89, tile), tile) <= 99 * 1024);
    CHECK(sdpa_tc_smem_bytes(SdpaTcVariant::kSm89, tile, 8) ==
          sdpa_tc_smem_bytes(sdpa_tc_config(SdpaTcVariant::kSm89, tile), tile));
    for (SdpaTcVariant v : {SdpaTcVariant::kSm80, SdpaTcVariant::kSm89}) {
      const SdpaTcConfig c = sdpa_tc_config(v, tile);
      CHECK(c.stages >= 1);
      CHECK(c.block_n % 16 == 0);
      CHECK((v == SdpaTcVariant::kSm80 ? sdpa_tc_threads(c) == 128 : sdpa_tc_threads(c) == 256));
    }
  }
}

TEST_CASE("sdpa tc: two blocks of the sm80 256 tile share an sm_90 SM", "[heuristics][sdpa]") {
  // FlashAttention-2's H100 tile (sdpa_tc_traits.h): sm 90 and 100-103 hold
  // 228 KiB an SM, of which each block's runtime reserves 1 KiB.
  const size_t bytes = sdpa_tc_smem_bytes(sdpa_tc_config(SdpaTcVariant::kSm80, 256), 256);
  CHECK(2 * (bytes + 1024) <= 228 * 1024);
  CHECK(sdpa_tc_smem_bytes(SdpaTcVariant::kSm80, 256, 136) == bytes);
  CHECK(sdpa_tc_smem_bytes(SdpaTcVariant::kSm80, 136, 256) == bytes);
}

TEST_CASE("sdpa tc: query tiles cover Q, the grid is capped", "[heuristics][sdpa]") {
  const SdpaTcConfig c = sdpa_tc_config(SdpaTcVariant::kSm80, 128);
  const int64_t m = sdpa_tc_block_m(c);
  for (int64_t q : {int64_t{1}, m - 1, m, m + 1, int64_t{4096}, int64_t{100003}}) {
    const int64_t tiles = sdpa_tc_query_tiles(q, c);
    CHECK(tiles * m >= q);
    CHECK((tiles - 1) * m < q);
    CHECK(sdpa_tc_tiles(3, 5, q, c) == 15 * tiles);
  }
  CHECK(sdpa_tc_tiles(0, 5, 7, c) == 0);
  CHECK(sdpa_tc_grid_blocks(77) == 77);
  CHECK(sdpa_tc_grid_blocks(int64_t{1} << 40) == INT_MAX);
}

namespace {
bool visible(const SdpaVisibleKeys &v, int64_t i, int64_t j) {
  const int64_t ip = i + v.shift;
  if (j < 0 || j >= v.keys) return false;
  if (v.causal && j > ip) return false;
  if (v.window_left >= 0 && j < ip - v.window_left) return false;
  if (v.window_right >= 0 && j > ip + v.window_right) return false;
  return true;
}

// f(p, v) for every problem of these sizes and left windows, both causal
// modes and alignments and three right windows, the problem in Catch's INFO.
template <class F>
void each_problem(std::initializer_list<int64_t> queries, std::initializer_list<int64_t> keys,
                  std::initializer_list<int64_t> lefts, F &&f) {
  for (int64_t q : queries)
    for (int64_t k : keys)
      for (bool causal : {false, true})
        for (bool bottom_right : {false, true})
          for (int64_t wl : lefts)
            for (int64_t wr : {-1, 0, 3}) {
              SdpaProblem p{};
              p.queries = q, p.keys = k, p.causal = causal, p.bottom_right = bottom_right;
              p.window_left = wl, p.window_right = wr;
              INFO("Q " << q << " K " << k << " causal " << causal << " br " << bottom_right << " window " << wl << ","
                        << wr);
              f(p, sdpa_visible_keys(p));
            }
}
}  // namespace

TEST_CASE("sdpa tc: a query tile visits every key tile it sees and masks the ones it cuts", "[heuristics][sdpa]") {
  const int block_m = 16, block_n = 16;
  each_problem({1, 17, 40, 100}, {1, 15, 33, 100}, {-1, 0, 5, 40}, [&](const SdpaProblem &p, const SdpaVisibleKeys &v) {
    const int64_t q = p.queries, k = p.keys;
    for (int64_t m0 = 0; m0 < q; m0 += block_m) {
      const int64_t last = std::min(m0 + block_m, q) - 1;
      const SdpaKeyTiles t = sdpa_key_tiles(v, m0, last, block_n);
      for (int64_t n0 = 0; n0 < k; n0 += block_n) {
        bool any = false, all = true;
        for (int64_t i = m0; i <= last; ++i)
          for (int64_t j = n0; j < n0 + block_n; ++j) {
            any = any || visible(v, i, j);
            all = all && visible(v, i, j);
          }
        const bool visited = n0 / block_n >= t.begin && n0 / block_n < t.end;
        if (any) CHECK(visited);
        if (visited) CHECK(sdpa_tile_fully_visible(v, m0, last, n0, block_n) == all);
        for (int64_t i = m0; i <= last; ++i)
          for (int64_t j = n0; j < n0 + block_n; ++j) CHECK(visible(v, i, j) == (j >= v.lo(i) && j <= v.hi(i)));
      }
      CHECK(t.end * block_n < k + block_n);
    }
  });
}

TEST_CASE("sdpa tc: a query tile's whole key tiles found at once are those sdpa_tile_fully_visible passes",
          "[heuristics][sdpa]") {
  for (int block_n : {16, 128}) {
    INFO("block_n " << block_n);
    const auto check_tiles = [&](const SdpaProblem &p, const SdpaVisibleKeys &v) {
      for (int64_t m0 = 0; m0 < p.queries; m0 += 128) {
        const int64_t last = std::min(m0 + 128, p.queries) - 1;
        const SdpaKeyTiles t = sdpa_key_tiles(v, m0, last, block_n);
        const SdpaWholeKeyTiles whole = sdpa_whole_key_tiles(v, m0, last, t, block_n);
        CHECK(whole.from >= 0);
        CHECK(whole.to <= std::max<int64_t>(t.end - t.begin, 0));
        for (int64_t x = 0; x < t.end - t.begin; ++x) {
          const int64_t n0 = (t.begin + x) * block_n;
          CHECK((x >= whole.from && x < whole.to) == sdpa_tile_fully_visible(v, m0, last, n0, block_n));
          if (x < whole.from) continue;
          // Past every row's first key: the tile cuts through rows' last keys only.
          for (int64_t i = m0; i <= last; ++i)
            for (int64_t j = n0; j < std::min(n0 + block_n, p.keys); ++j) CHECK(visible(v, i, j) == (j <= v.hi(i)));
        }
      }
    };
    each_problem({1, 17, 100, 300}, {1, 15, 130, 300}, {-1, 0, 5, 140}, check_tiles);
  }
}

TEST_CASE("sdpa tc: a row's last visible key in a tile, in 32 bits, is hi(i) - n0 clamped to [-1, 2^16]",
          "[heuristics][sdpa]") {
  for (int64_t shift : {int64_t{0}, int64_t{-3000000000}, int64_t{5}, int64_t{3000000000}})
    for (int64_t keys : {int64_t{1}, int64_t{200}, int64_t{5000000000}})
      for (bool causal : {false, true})
        for (int64_t wr : {int64_t{-1}, int64_t{0}, int64_t{7}, int64_t{4000000000}}) {
          const SdpaVisibleKeys v{shift, keys, causal, -1, wr};
          for (int64_t m0 : {int64_t{0}, int64_t{128}, int64_t{4000000000}})
            for (int64_t n0 : {int64_t{0}, int64_t{128}, int64_t{65536}, int64_t{4000000128}}) {
              const SdpaTileLastKeys tile = sdpa_tile_last_keys(v, m0, n0);
              for (int row = 0; row < 256; ++row)
                CHECK(tile.last(row) == std::max<int64_t>(-1, std::min<int64_t>(v.hi(m0 + row) - n0, 1 << 16)));
            }
        }
}
