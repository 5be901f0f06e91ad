// The tensor-core attention backward's host-side choices
// (kernels/sdpa/sdpa_backward_heuristics.h, sdpa_backward_band.h): the query
// tiles a key tile walks hold every visible pair, the key tiles meeting a
// query tile are a run that starts where the deterministic mode's turns
// start, the unmasked-tile test, the head tile and the workspace. No GPU.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>

#include "sdpa/sdpa_backward_band.h"
#include "sdpa/sdpa_backward_heuristics.h"

using baracuda::kernels::kSdpaBackwardQueryTile;
using baracuda::kernels::sdpa_backward_head_tile;
using baracuda::kernels::sdpa_backward_workspace_layout;
using baracuda::kernels::SdpaBackwardTraits;
using baracuda::kernels::SdpaBackwardWorkspaceLayout;
using baracuda::kernels::SdpaProblem;
using namespace baracuda::kernels::sdpa;

namespace {

SdpaProblem problem(int64_t q, int64_t k, bool causal, bool bottom_right, int64_t left, int64_t right) {
  SdpaProblem p{};
  p.batch = 2;
  p.heads_q = 3;
  p.heads_kv = 1;
  p.queries = q;
  p.keys = k;
  p.head_dim = 72;
  p.head_dim_v = 40;
  p.causal = causal;
  p.bottom_right = bottom_right;
  p.window_left = left;
  p.window_right = right;
  return p;
}

// sdpa.h's rule, spelled out independently of Band.
bool visible(const SdpaProblem &p, int64_t i, int64_t j) {
  const int64_t ip = i + (p.bottom_right ? p.keys - p.queries : 0);
  if (p.causal && j > ip) return false;
  if (p.window_right >= 0 && j > ip + p.window_right) return false;
  if (p.window_left >= 0 && j < ip - p.window_left) return false;
  return true;
}

bool tiles_meet(const SdpaProblem &p, int64_t m, int br, int64_t n, int bc) {
  for (int64_t i = m * br; i < std::min(p.queries, (m + 1) * br); ++i)
    for (int64_t j = n * bc; j < std::min(p.keys, (n + 1) * bc); ++j)
      if (visible(p, i, j)) return true;
  return false;
}

}  // namespace

TEST_CASE("sdpa backward band: tile ranges hold every visible pair; turns start at the last key tile",
          "[heuristics][sdpa]") {
  const int br = kSdpaBackwardQueryTile;
  for (int bc : {SdpaBackwardTraits<128>::kKeys, 2 * SdpaBackwardTraits<128>::kKeys})
    for (int64_t q : {1, 63, 64, 130, 300})
      for (int64_t k : {1, 70, 129, 333})
        for (int mode = 0; mode < 8; ++mode) {
          const bool causal = mode & 1, bottom_right = mode & 2, windowed = mode & 4;
          for (int64_t left : {int64_t{-1}, int64_t{0}, int64_t{40}})
            for (int64_t right : {int64_t{-1}, int64_t{0}, int64_t{7}}) {
              if (!windowed && (left >= 0 || right >= 0)) continue;
              const SdpaProblem p = problem(q, k, causal, bottom_right, left, right);
              const Band band = band_of(p);
              INFO("bc " << bc << " Q " << q << " K " << k << " causal " << causal << " br " << bottom_right
                         << " left " << left << " right " << right);
              const int64_t q_tiles = (q + br - 1) / br, k_tiles = (k + bc - 1) / bc;
              for (int64_t m = 0; m < q_tiles; ++m) {
                int64_t last = -1;
                for (int64_t n = 0; n < k_tiles; ++n) {
                  const TileRange r = query_tiles_of_key_tile(band, n * bc, bc, br, q);
                  const bool walked = r.first <= m && m <= r.last;
                  if (tiles_meet(p, m, br, n, bc)) CHECK(walked);
                  if (!walked) continue;
                  CHECK((last < 0 || last == n - 1));  // a run of key tiles
                  last = n;
                  CHECK(tile_fully_visible(band, m * br, br, n * bc, bc, q, k) ==
                        [&] {
                          if ((m + 1) * br > q || (n + 1) * bc > k) return false;
                          for (int64_t i = m * br; i < (m + 1) * br; ++i)
                            for (int64_t j = n * bc; j < (n + 1) * bc; ++j)
                              if (!visible(p, i, j)) return false;
                          return true;
                        }());
                }
                if (last >= 0) CHECK(last_key_tile_of_query_tile(band, m, bc, br, q, k) == last);
              }
            }
        }
}

TEST_CASE("sdpa backward: the head tile holds D and Dv", "[heuristics][sdpa]") {
  CHECK(sdpa_backward_head_tile(8, 8) == 64);
  CHECK(sdpa_backward_head_tile(64, 64) == 64);
  CHECK(sdpa_backward_head_tile(64, 72) == 128);
  CHECK(sdpa_backward_head_tile(128, 80) == 128);
  CHECK(sdpa_backward_head_tile(136, 8) == 256);
  CHECK(sdpa_backward_head_tile(256, 256) == 256);
}

TEST_CASE("sdpa backward workspace: delta, the f32 dq, and turn counters only when deterministic",
          "[heuristics][sdpa]") {
  SdpaProblem p = problem(300, 200, true, false, -1, -1);
  const SdpaBackwardWorkspaceLayout fast = sdpa_backward_workspace_layout(p);
  const size_t rows = 2 * 3 * 300;
  CHECK(fast.delta == 0);
  CHECK(fast.dq >= rows * sizeof(float));
  CHECK(fast.dq % 256 == 0);
  CHECK(fast.counters >= fast.dq + rows * 72 * sizeof(float));
  CHECK(fast.bytes == fast.counters);
  p.deterministic = true;
  const SdpaBackwardWorkspaceLayout det = sdpa_backward_workspace_layout(p);
  CHECK(det.counters == fast.counters);
  CHECK(det.bytes >= det.counters + 2 * 3 * ((300 + kSdpaBackwardQueryTile - 1) / kSdpaBackwardQueryTile) * 4);
}

TEST_CASE("sdpa backward: runs past the atomic grid's key tiles take turns, with counters", "[heuristics][sdpa]") {
  using baracuda::kernels::sdpa_backward_takes_turns;
  SdpaProblem p = problem(100, 1000, true, false, -1, -1);
  CHECK_FALSE(sdpa_backward_takes_turns(p));
  const SdpaBackwardWorkspaceLayout atomic = sdpa_backward_workspace_layout(p);
  CHECK(atomic.bytes == atomic.counters);
  p.deterministic = true;
  CHECK(sdpa_backward_takes_turns(p));
  p.deterministic = false;
  p.keys = int64_t{65535} * 64;  // 65535 key tiles of the 64 tile: the atomic grid's most
  CHECK_FALSE(sdpa_backward_takes_turns(p));
  p.keys += 1;
  CHECK(sdpa_backward_takes_turns(p));
  const SdpaBackwardWorkspaceLayout w = sdpa_backward_workspace_layout(p);
  CHECK(w.bytes >= w.counters + 2 * 3 * ((100 + kSdpaBackwardQueryTile - 1) / kSdpaBackwardQueryTile) * 4);
}

TEST_CASE("sdpa backward: the delta pass reads 16 bytes a lane at Dv 32 and 64 on aligned rows", "[heuristics][sdpa]") {
  using baracuda::kernels::sdpa_backward_delta_reads_16_bytes;
  alignas(16) static char buffer[64];
  SdpaProblem p = problem(100, 100, false, false, -1, -1);
  for (int32_t dv : {8, 16, 32, 48, 64, 96, 128, 256}) {
    p.head_dim_v = dv;
    p.out = {buffer, {3 * 100 * dv, 100 * dv, dv}};
    p.dout = {buffer, {3 * 100 * dv, 100 * dv, dv}};
    CHECK(sdpa_backward_delta_reads_16_bytes(p, 2) == (dv == 32 || dv == 64));
  }
  p.head_dim_v = 64;
  p.out = {buffer, {3 * 100 * 64, 100 * 64, 64}};
  p.dout = {buffer + 2, {3 * 100 * 64, 100 * 64, 64}};  // dout a column in
  CHECK_FALSE(sdpa_backward_delta_reads_16_bytes(p, 2));
  p.dout = {buffer, {3 * 100 * 68, 100 * 68, 68}};  // rows 136 bytes apart
  CHECK_FALSE(sdpa_backward_delta_reads_16_bytes(p, 2));
  p.dout = {buffer, {3 * 100 * 192, 100 * 192, 192}};  // a packed QKV-like view
  CHECK(sdpa_backward_delta_reads_16_bytes(p, 2));
}

TEST_CASE("sdpa backward: the deterministic mode takes key tiles by rank only with no bound on the keys",
          "[heuristics][sdpa]") {
  const Band open = band_of(problem(100, 1000, false, false, -1, -1));
  CHECK(deterministic_by_rank(open, 32, 16));
  CHECK(deterministic_by_rank(open, 16, 16));
  CHECK_FALSE(deterministic_by_rank(open, 32, 64));  // the chain shorter than a key tile's walk
  CHECK_FALSE(deterministic_by_rank(open, 65536, 16));  // past the atomic grid's key tiles
  for (const SdpaProblem &p : {problem(100, 1000, true, false, -1, -1), problem(100, 1000, true, true, -1, -1),
                               problem(100, 1000, false, false, 40, -1), problem(100, 1000, false, false, -1, 7)})
    CHECK_FALSE(deterministic_by_rank(band_of(p), 32, 16));
}

TEST_CASE("sdpa backward: tile facts and grid limits", "[heuristics][sdpa]") {
  using baracuda::kernels::sdpa_backward_grid_fits;
  using baracuda::kernels::sdpa_backward_tile_facts;
  for (int tile : {64, 128, 256}) {
    INFO("tile " << tile);
    const int keys = sdpa_backward_tile_facts(tile).keys;
    CHECK(keys % 16 == 0);
    // The 64 tile runs on every GPU from sm_80 on (about 100 KB a block on
    // sm_86 / sm_89); the others on sm_80 and sm_90 class (163 KB on A100).
    CHECK(sdpa_backward_tile_facts(tile).smem_bytes <= (tile == 64 ? 99 * 1024 : 163 * 1024));
    SdpaProblem p = problem(100, 1000, false, false, -1, -1);
    for (bool deterministic : {false, true}) {
      INFO("deterministic " << deterministic);
      p.deterministic = deterministic;
      CHECK(sdpa_backward_grid_fits(p, tile));
      // Runs that take turns have the grid (key tiles, kv heads, batch),
      // atomic ones (kv heads, key tiles, batch).
      p.keys = int64_t{INT32_MAX} * keys;
      CHECK(sdpa_backward_grid_fits(p, tile));
      p.keys += 1;
      CHECK_FALSE(sdpa_backward_grid_fits(p, tile));
      p.keys = 1000;
      p.heads_kv = deterministic ? 65535 : INT32_MAX;
      CHECK(sdpa_backward_grid_fits(p, tile));
      p.heads_kv += 1;
      CHECK_FALSE(sdpa_backward_grid_fits(p, tile));
      p.heads_kv = 1;
      p.batch = 65536;
      CHECK_FALSE(sdpa_backward_grid_fits(p, tile));
      p.batch = 2;
    }
    // An atomic run with more key tiles than its grid's y extent takes turns
    // (the deterministic kernels), whose grid holds no more than 65535 kv heads.
    p.deterministic = false;
    p.keys = int64_t{65535} * 64 + 1;
    p.heads_kv = 65536;
    CHECK_FALSE(sdpa_backward_grid_fits(p, tile));
    p.heads_kv = 1;
  }
  CHECK(sdpa_backward_tile_facts(128).keys == SdpaBackwardTraits<128>::kKeys);
  CHECK(sdpa_backward_tile_facts(256).smem_bytes == SdpaBackwardTraits<256>::kSmemBytes);
}
