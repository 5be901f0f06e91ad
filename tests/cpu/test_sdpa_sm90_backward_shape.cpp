// The Hopper attention backward's cuts (kernels/sdpa/sm90/sdpa_backward_sm90_shape.h):
// how dQ splits between the consumers (disjoint elements, which the
// deterministic mode's one turn per block relies on), shared memory within sm_90's per-block limit, and the query tiles
// against the workspace's turn counters. No GPU.
#include <catch2/catch.hpp>

#include "sdpa/sdpa_backward_heuristics.h"
#include "sdpa/sm90/sdpa_backward_sm90_shape.h"

using namespace baracuda::kernels;

TEST_CASE("sdpa sm90 backward: D 64 takes 128 query rows a step, dQ split by rows; D 128 by columns",
          "[heuristics][sdpa]") {
  const SdpaSm90BackwardShape d64 = sdpa_sm90_backward_shape(64), d128 = sdpa_sm90_backward_shape(128);
  CHECK(d64.block_m == 128);
  CHECK(d64.dq_row_groups() == 2);
  CHECK(d64.dq_column_groups() == 1);
  CHECK(d64.dq_columns() == 64);
  CHECK(d128.block_m == 64);
  CHECK(d128.dq_row_groups() == 1);
  CHECK(d128.dq_column_groups() == 2);
  CHECK(d128.dq_columns() == 64);
}

TEST_CASE("sdpa sm90 backward: D 256 takes 64 keys, both consumers on every key, dK, dV and dQ split by columns",
          "[heuristics][sdpa]") {
  const SdpaSm90BackwardShape d256 = sdpa_sm90_backward_shape(256);
  CHECK(d256.block_n == 64);
  CHECK(d256.consumers() == 2);
  CHECK(d256.shared_keys());
  CHECK(d256.kv_columns() == 128);
  CHECK(d256.dq_row_groups() == 1);
  CHECK(d256.dq_columns() == 128);
  CHECK(sdpa_sm90_backward_ds_buffers(d256) == 4);
  for (int tile : {64, 128}) {
    CHECK(!sdpa_sm90_backward_shape(tile).shared_keys());
    CHECK(sdpa_sm90_backward_shape(tile).kv_columns() == tile);
  }
}

TEST_CASE("sdpa sm90 backward: every consumer has one share of dQ, every share one consumer",
          "[heuristics][sdpa]") {
  for (int tile : {64, 128, 256}) {
    const SdpaSm90BackwardShape s = sdpa_sm90_backward_shape(tile);
    INFO("tile " << tile);
    CHECK(s.dq_row_groups() * s.dq_column_groups() == s.consumers());
    CHECK(s.dq_row_groups() * 64 == s.block_m);
    CHECK(s.dq_column_groups() * s.dq_columns() == 64 * s.slabs);
    // The shape's shared memory (K, V, a two-slot ring, the dS buffers, the
    // staging) within the 227 KiB a block may take on sm 90.
    CHECK(sdpa_sm90_backward_smem_bytes(s) <= 227 * 1024);
    // The workspace counts a turn per 64-row query tile: enough for these tiles.
    CHECK(s.block_m % kSdpaBackwardQueryTile == 0);
  }
}
