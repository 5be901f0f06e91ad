// How the Hopper attention backward (sdpa_backward_sm90.cuh) cuts its work,
// per compiled head-size tile (64, 128 or 256, the smallest holding D and
// Dv): a block owns block_n keys of one (b, kv head) and walks the query
// tiles of block_m rows that see them, Q and dO brought into a ring of
// `stages` slots. Up to 128 columns each consumer warpgroup owns 64 of the
// keys (wgmma's M) and every column of their dK and dV; at 256 columns,
// where dK and dV of 64 keys fill a warpgroup's registers, both consumers
// take the same 64 keys, each computing the scores of half the step's
// queries, and split the columns of dK, dV and dQ. Every tile lies in 64-column slabs of 128-byte rows, as
// the 128-byte TMA swizzle writes them.
// Host-includable, no CUDA: the plan layer asks it what a block needs.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>

namespace baracuda::kernels {

struct SdpaSm90BackwardShape {
  int block_n, block_m, stages, slabs;
  int column_groups;  // consumers over the same keys, each with its share of the columns
  constexpr int consumers() const { return block_n / 64 * column_groups; }
  constexpr bool shared_keys() const { return column_groups > 1; }
  constexpr int kv_columns() const { return 64 * slabs / column_groups; }  // of one consumer's dK and dV
  constexpr int threads() const { return 128 * (consumers() + 1); }
  // dQ = dS K (block_m rows by 64-column slabs over block_n keys) splits
  // between the consumers by 64-row groups (wgmma's M), then by whole slabs:
  // no two consumers add to the same elements.
  constexpr int dq_row_groups() const { return block_m / 64; }
  constexpr int dq_column_groups() const { return consumers() / dq_row_groups(); }
  constexpr int dq_columns() const { return 64 * slabs / dq_column_groups(); }  // of one consumer
};

// At the 64 tile a step takes 128 query rows: twice the products between
// the consumers' meetings, and dQ split by rows instead of keys. At 256
// columns a block takes 64 keys, so that K, V and a two-slot Q/dO ring fit
// its shared memory.
constexpr SdpaSm90BackwardShape sdpa_sm90_backward_shape(int head_dim_tile) {
  if (head_dim_tile == 256) return {64, 64, 2, 4, 2};
  return {128, head_dim_tile == 64 ? 128 : 64, 2, head_dim_tile / 64, 1};
}

// Null where one launch serves these extents, else why not: the grid holds a
// block per (key tile, kv head, batch), kv heads and batch on its y and z axes
// (65535 at most), and TMA's row coordinates are 32-bit (encode_rows).
constexpr const char *sdpa_sm90_backward_extents_refusal(int64_t batch, int64_t heads_kv, int64_t queries,
                                                         int64_t keys) {
  if (batch > 65535) return "batch is over 65535 (the grid's z axis)";
  if (heads_kv > 65535) return "heads_kv is over 65535 (the grid's y axis)";
  if (queries >= INT32_MAX || keys >= INT32_MAX) return "queries or keys reach 2^31 - 1 (TMA's row coordinates)";
  return nullptr;
}

constexpr int kSdpaSm90BackwardProducerRegisters = 24;

// A consumer thread's registers once the producer warpgroup has given back
// all but kSdpaSm90BackwardProducerRegisters of its own.
constexpr int sdpa_sm90_backward_consumer_registers(const SdpaSm90BackwardShape &s) {
  const int launch = 65536 / s.threads() / 8 * 8;
  return (launch * s.threads() - 128 * kSdpaSm90BackwardProducerRegisters) / (128 * s.consumers()) / 8 * 8;
}
static_assert(sdpa_sm90_backward_consumer_registers(sdpa_sm90_backward_shape(128)) == 240);

// dS buffers (block_m x block_n), two shared by the consumers (even and odd
// steps); where they share their keys, two P buffers beside them (each
// consumer computes half the step's queries of P and dS, and its dV and dK
// products read both halves).
constexpr int sdpa_sm90_backward_ds_buffers(const SdpaSm90BackwardShape &s) { return s.shared_keys() ? 4 : 2; }

// K and V, per stage a Q and a dO tile, the dS (and P) buffers, each
// consumer's f32 dQ staging (not at the shared-key tile: it stages in the
// Q/dO slot), per stage the rows' lse and delta, the mbarriers (K/V full;
// per stage Q full and empty; per consumer its staging full and empty; at
// the shared-key tile per stage, dQ half and consumer a staged one), and
// the slack that aligns the tiles to a 1024-byte swizzle atom.
constexpr size_t sdpa_sm90_backward_smem_bytes(const SdpaSm90BackwardShape &s) {
  const size_t row_bytes = static_cast<size_t>(s.slabs) * 128, m = static_cast<size_t>(s.block_m);
  const size_t staging = s.shared_keys() ? 0 : static_cast<size_t>(s.consumers()) * s.dq_columns() * 64 * 4;
  return 2 * s.block_n * row_bytes + 2 * s.stages * m * row_bytes +
         sdpa_sm90_backward_ds_buffers(s) * m * s.block_n * 2 + staging + 2 * s.stages * m * 4 +
         8 * (1 + 2 * s.stages + 2 * s.consumers() + (s.shared_keys() ? 2 * s.stages * s.consumers() : 0)) + 1024;
}

}  // namespace baracuda::kernels
