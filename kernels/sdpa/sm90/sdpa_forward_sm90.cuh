// The Hopper attention forward for f16 / bf16 (sm_90a): FlashAttention-2's
// algorithm on warpgroup MMAs. A query tile holds 64 rows of one (b, h) per
// consumer warpgroup; a block takes one tile, or, persistent, one block an
// SM takes tiles in turn (sdpa_forward_sm90_shape.h says which). One
// producer warpgroup's first thread brings each tile's Q and then the K and
// V tiles its rows can see by TMA into a ring of 128-byte-swizzled slabs,
// each copy completing on an mbarrier, Q refilled once every consumer has
// done its last S (at the 128-column tile in two slots, so that the next
// tile's Q arrives under this one's last products). Each consumer warpgroup
// computes S = Q K^T
// (wgmma, Q and K from shared memory) and O += P V (wgmma, P from registers,
// V N-major from shared memory), the online softmax in registers between
// them, and hands each K and V tile back through its "empty" mbarrier.
// Inside a consumer S of tile t is issued with P V of tile t - 1 (ptxas
// puts P V's wait ahead of tile t's softmax; a loop that kept the softmax
// under P V ran 3-5% slower, bench/NOTES.md session 17). Between the
// consumers, named barriers pass the turn to issue round the groups, so
// that one's softmax runs under the others' products. A group's finished O
// leaves through its rows of a staging tile in shared memory and TMA stores
// that run on under its next tile (SdpaSm90Shape::smem_epilogue); where the
// block has no room for that tile (D 256), through a V slot of the ring that
// the producer refills once the stores have read it (stage_in_values), else
// straight from the registers. The score pipeline (scale, softcap, ALiBi,
// masks, windows) is sdpa_tc_scores.cuh's, which the wgmma accumulator
// layout matches per warp.
// Instantiated per dtype and head-size tile by
// sdpa_forward_sm90_<dtype>_d<tile>.cu.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "sdpa/sdpa_forward_params.cuh"
#include "sdpa/sdpa_tc_primitives.cuh"
#include "sdpa/sdpa_tc_scores.cuh"
#include "sdpa/sdpa_visible_keys.h"
#include "sdpa/sm90/sdpa_forward_sm90_launch.h"
#include "sdpa/sm90/sdpa_forward_sm90_params.cuh"
#include "sdpa/sm90/sdpa_forward_sm90_shape.h"
#include "sdpa/sm90/sm90_async_copy.cuh"
#include "sdpa/sm90/sm90_wgmma.cuh"

namespace baracuda::kernels::sm90 {

template <int HeadDim, int Cut>
struct Tiles {
  static constexpr int kHeadDim = HeadDim;
  static constexpr SdpaSm90Shape kShape = sdpa_sm90_cut_shape(HeadDim, static_cast<SdpaSm90Cut>(Cut));
  static constexpr int kConsumers = kShape.consumers, kThreads = kShape.threads();
  static constexpr int kBlockM = kShape.block_m(), kBlockN = kShape.block_n, kStages = kShape.stages;
  static constexpr int kSlabs = kShape.slabs;          // 64-column slabs of 128-byte rows
  static constexpr int kKeyBlocks = kBlockN / 8;       // 8-key column blocks of S
  static constexpr int kValueBlocks = HeadDim / 8;     // 8-wide column blocks of O
  static constexpr int kConsumerRows = 64;             // a consumer warpgroup's rows
  static constexpr uint32_t kQSlabBytes = kBlockM * 128, kKvSlabBytes = kBlockN * 128;
  static constexpr uint32_t kQBytes = kQSlabBytes * kSlabs, kKvBytes = kKvSlabBytes * kSlabs;
  static constexpr uint32_t kAtomBytes = 1024;  // 8 rows of 128 bytes: the descriptors' stride
  static constexpr int kRescaleSlack = kShape.rescale_slack;
  static constexpr int kQuerySlots = kShape.query_slots();
  static constexpr bool kSmemEpilogue = kShape.smem_epilogue;
  static constexpr bool kStageInValues = kShape.stage_in_values;
  static constexpr uint32_t kGroupSlabBytes = kConsumerRows * 128;  // a group's 64 rows of a staged slab
  static_assert(!kShape.trim_group_keys || kShape.uniform_group, "trimmed groups branch on the group index");
  static_assert(!kStageInValues || (kConsumers <= kStages && kGroupSlabBytes * kSlabs <= kKvBytes),
                "a V slot for each group's staged rows");
  static_assert(!kStageInValues || kQuerySlots == 1, "o_read's phase is the parity of the block's tiles");
  static_assert(kBlockM == kConsumers * kConsumerRows && kBlockN % 16 == 0, "16-key MMA steps");
};

// Where the block's tiles and barriers lie in shared memory.
template <class Ti>
struct SmemMap {
  uint32_t base;  // 1024-aligned
  __device__ uint32_t q(uint32_t slot) const { return base + slot * Ti::kQBytes; }
  __device__ uint32_t k(int stage) const { return base + Ti::kQuerySlots * Ti::kQBytes + 2 * Ti::kKvBytes * stage; }
  __device__ uint32_t v(int stage) const { return k(stage) + Ti::kKvBytes; }
  // O's staging tile: Q's layout (slabs of the block's rows).
  __device__ uint32_t o() const { return base + Ti::kQuerySlots * Ti::kQBytes + 2 * Ti::kKvBytes * Ti::kStages; }
  __device__ uint32_t bars() const { return o() + (Ti::kSmemEpilogue && !Ti::kStageInValues ? Ti::kQBytes : 0); }
  // Q slot 1's barriers (double_query) after the others.
  __device__ uint32_t q_full(uint32_t slot) const { return slot == 0 ? bars() : bars() + 8 * (4 + 4 * Ti::kStages); }
  __device__ uint32_t k_full(int stage) const { return bars() + 8 * (1 + stage); }
  __device__ uint32_t v_full(int stage) const { return bars() + 8 * (1 + Ti::kStages + stage); }
  __device__ uint32_t k_empty(int stage) const { return bars() + 8 * (1 + 2 * Ti::kStages + stage); }
  __device__ uint32_t v_empty(int stage) const { return bars() + 8 * (1 + 3 * Ti::kStages + stage); }
  __device__ uint32_t q_empty(uint32_t slot) const { return bars() + 8 * (slot == 0 ? 1 + 4 * Ti::kStages : 5 + 4 * Ti::kStages); }
  __device__ uint32_t o_read() const { return bars() + 8 * (2 + 4 * Ti::kStages); }  // stage_in_values
  // The producer's word to the consumers, published on tile_full: the
  // BlockWork of the query tile whose Q comes next (m0 -1 past the block's
  // last), in one of two slots by the parity of the block's tiles, so that
  // the producer fills the next before the consumers are done reading this
  // one. Its own barrier, not Q's: they then start the tile while its Q is
  // still on the way. With two Q slots, a barrier a slot, the work slot the
  // Q slot's (the slot's last Q handed back frees both).
  __device__ uint32_t tile_full(uint32_t slot) const { return bars() + 8 * (slot == 0 ? 3 + 4 * Ti::kStages : 6 + 4 * Ti::kStages); }
  __device__ uint32_t work_slot(uint32_t parity) const {
    return bars() + 8 * (4 + 4 * Ti::kStages + 3 * (Ti::kQuerySlots - 1)) + parity * kSdpaSm90WorkSlotBytes;
  }
};

// The block's query tile and the key tiles its rows can see.
struct alignas(8) BlockWork {
  int64_t b, h, hk, m0, m_last;
  SdpaKeyTiles keys;
  // A piece of a tile shared out in the last round (SdpaSm90Split): its
  // partial rows' slot (two a block), the tile's arrival count, the blocks
  // whose pieces make the tile and where the tile starts in the round's key
  // tiles. slot -1: a whole tile.
  int32_t slot, counter, first_block, last_block;
  uint32_t tile_start;
};
static_assert(sizeof(BlockWork) <= kSdpaSm90WorkSlotBytes, "the producer's work slot holds a BlockWork");

__device__ __forceinline__ BlockWork *shared_work_slot(uint32_t address) {
  return static_cast<BlockWork *>(__cvta_shared_to_generic(address));
}

// The block's turn-th query tile, as an index over the problem's tiles, or
// -1 past its last. A block a tile takes one. A persistent block takes
// pairs of neighbours, every gridDim.x-th pair: under a causal mask a pair
// holds a (b, h)'s heavy and light tile (block_work), so that blocks taking
// tiles in a fixed turn still share the triangle's work evenly. Without a
// causal mask (tiles of equal work; 1.004-1.016x pairs, session 17), or
// where the tiles are fewer than two a block (pairs would leave blocks
// idle), each block takes every gridDim.x-th tile.
template <class Ti>
__device__ __forceinline__ int64_t whole_round_tile(const ForwardParams &fp, int64_t turn) {
  if constexpr (!Ti::kShape.persistent) return turn == 0 ? int64_t{blockIdx.x} : -1;
  const int shift = fp.pair_shift;  // 1: pairs, 0: single tiles
  const int64_t tile = ((blockIdx.x + (turn >> shift) * int64_t{gridDim.x}) << shift) + (turn & shift);
  return tile < fp.tiles ? tile : -1;
}

template <class Ti>
__device__ __forceinline__ BlockWork tile_work(const SdpaProblem &p, const ForwardParams &fp, int64_t tile) {
  BlockWork w;
  if constexpr (Ti::kShape.share_last_round) w.slot = -1;
  // Every index here is below fp.tiles < 2^31 (forward_params): 32-bit
  // divisions, inline, where 64-bit ones are calls.
  const uint32_t tile32 = static_cast<uint32_t>(tile), query_tiles = static_cast<uint32_t>(fp.query_tiles);
  const uint32_t bh = tile32 / query_tiles, heads_q = static_cast<uint32_t>(p.heads_q);
  const int64_t j = tile32 % query_tiles, last = fp.query_tiles - 1;
  // Causal rows further down see more keys: a block a tile takes the heavy
  // ones first; persistent blocks alternate heavy and light (block_tile).
  const int64_t m_index = !p.causal ? j : !Ti::kShape.persistent ? last - j : j % 2 == 0 ? last - j / 2 : j / 2;
  w.m0 = m_index * Ti::kBlockM;
  w.b = bh / heads_q;
  w.h = bh % heads_q;
  w.hk = static_cast<uint32_t>(w.h) / static_cast<uint32_t>(fp.group);
  w.m_last = (w.m0 + Ti::kBlockM < p.queries ? w.m0 + Ti::kBlockM : p.queries) - 1;
  w.keys = sdpa_key_tiles(fp.score.visible, w.m0, w.m_last, Ti::kBlockN);
  return w;
}

// The last round shared out (SdpaSm90Split): its items laid end to end in
// key tiles, block i's range of them [i K / B, (i + 1) K / B) for K key tiles
// over B blocks, the first block whose range holds key tile x. In 32 bits
// (sdpa_sm90_split keeps K (B + 1) below 2^32): 64-bit divisions are calls.
struct SharedRound {
  uint32_t keys, blocks;
  __device__ uint32_t start(uint32_t block) const { return block * keys / blocks; }
  __device__ uint32_t block_of(uint32_t x) const { return ((x + 1) * blocks + keys - 1) / keys - 1; }
};

// The k-th piece or tile of this block's range in the shared last round,
// into *w where w is given; false past the range's last.
template <class Ti>
__device__ __forceinline__ bool shared_work(const SdpaProblem &p, const ForwardParams &fp, int64_t k, BlockWork *w) {
  const uint32_t item_keys = static_cast<uint32_t>(fp.split.item_keys);
  const SharedRound round{static_cast<uint32_t>(fp.split.items) * item_keys, static_cast<uint32_t>(fp.split.blocks)};
  const uint32_t end = round.start(blockIdx.x + 1);
  uint32_t at = round.start(blockIdx.x);
  for (;; --k) {
    if (at >= end) return false;
    // The tile holding key tile `at`: an item's one tile, or its heavy tile's
    // keys then its light tile's.
    const uint32_t item = at / item_keys, item_start = item * item_keys;
    int64_t tile = (fp.split.first + item) << fp.pair_shift;
    uint32_t tile_start = item_start, tile_end = item_start + item_keys;
    if (fp.pair_shift) {
      // Pairs are shared only under a causal mask alone with as many keys as
      // queries (item_key_tiles): pair k of a (b, h) holds query tile
      // n - 1 - k, which sees n - k key tiles, and tile k.
      const uint32_t n = static_cast<uint32_t>(fp.query_tiles);
      const uint32_t heavy_end = item_start + n - static_cast<uint32_t>(fp.split.first + item) % (n / 2);
      if (at < heavy_end) tile_end = heavy_end;
      else tile_start = heavy_end, ++tile;
    }
    const uint32_t piece_end = end < tile_end ? end : tile_end;
    if (k > 0) {
      at = piece_end;
      continue;
    }
    if (w == nullptr) return true;
    *w = tile_work<Ti>(p, fp, tile);
    const int64_t begin = w->keys.begin;
    w->keys = {begin + (at - tile_start), begin + (piece_end - tile_start)};
    if (at > tile_start || piece_end < tile_end) {
      w->slot = 2 * static_cast<int32_t>(blockIdx.x) + (at > round.start(blockIdx.x) ? 1 : 0);
      w->counter = static_cast<int32_t>(tile - (fp.split.first << fp.pair_shift));
      w->first_block = static_cast<int32_t>(round.block_of(tile_start));
      w->last_block = static_cast<int32_t>(round.block_of(tile_end - 1));
      w->tile_start = tile_start;
    }
    return true;
  }
}

template <class Ti>
__device__ __forceinline__ BlockWork block_work(const SdpaProblem &p, const ForwardParams &fp, int64_t tile) {
  if constexpr (Ti::kShape.share_last_round) {
    if (tile >= fp.tiles) {
      BlockWork w;
      shared_work<Ti>(p, fp, tile - fp.tiles, &w);
      return w;
    }
  }
  return tile_work<Ti>(p, fp, tile);
}

// The producer's one thread, over the block's query tiles: Q once the
// consumers are done with the last one's, then every key tile's K and V,
// each slot refilled once every consumer warpgroup has handed it back. The
// ring's slots and phases run on across query tiles.
template <class Ti>
__device__ __forceinline__ void produce(const SdpaProblem &p, const ForwardParams &fp, const SmemMap<Ti> &sm) {
  const auto coords = [](const AxisSteps &s, int64_t b, int64_t h) {
    return int2{static_cast<int32_t>(h * s.head), static_cast<int32_t>(b * s.batch)};
  };
  uint32_t issued = 0;  // key tiles brought so far
  uint32_t q_round = 0;
  // The consumers learn each tile's work from the slot of its parity: the
  // dealing's and the tiles' arithmetic stays out of their loop. The slot is
  // free again once they have handed back the Q of the tile two before (they
  // read it first); published once they have handed back the last tile's Q,
  // so that tile_full never runs two phases ahead of their waits.
  // With two Q slots the tile's slot (its parity) is free once the consumers
  // have handed back the Q of the tile two before, which also keeps each
  // slot's tile_full within a phase of their waits.
  const auto announce = [&](const BlockWork &w) {
    if constexpr (Ti::kQuerySlots == 2) {
      const uint32_t slot = q_round & 1;
      if (q_round > 1) mbarrier_wait(sm.q_empty(slot), (q_round / 2 - 1) & 1);
      *shared_work_slot(sm.work_slot(slot)) = w;
      mbarrier_arrive(sm.tile_full(slot));
    } else {
      *shared_work_slot(sm.work_slot(q_round & 1)) = w;
      if (q_round > 0) mbarrier_wait(sm.q_empty(0), (q_round - 1) & 1);
      mbarrier_arrive(sm.tile_full(0));
    }
  };
  const auto bring = [&](int64_t tile) {
    const BlockWork w = block_work<Ti>(p, fp, tile);
    const int2 q_bh = coords(fp.q_steps, w.b, w.h), k_bh = coords(fp.k_steps, w.b, w.hk),
               v_bh = coords(fp.v_steps, w.b, w.hk);
    announce(w);
    const uint32_t q_slot = Ti::kQuerySlots == 2 ? q_round & 1 : 0;
    mbarrier_arrive_expect_bytes(sm.q_full(q_slot), Ti::kQBytes);
#pragma unroll 1  // the producer runs on 24 registers
    for (int j = 0; j < Ti::kSlabs; ++j)
      tma_load_4d(sm.q(q_slot) + j * Ti::kQSlabBytes, &fp.q, sm.q_full(q_slot), 64 * j, static_cast<int32_t>(w.m0),
                  q_bh.x, q_bh.y);
    const int64_t n_tiles = w.keys.end - w.keys.begin;
    // O staged in the V slots: the last tile's stores must have read them
    // before this tile's first V (or, with none, before the next tile's).
    const auto wait_staged_read = [&] {
      if (Ti::kStageInValues && q_round > 0) mbarrier_wait(sm.o_read(), (q_round - 1) & 1);
    };
    if (n_tiles == 0) wait_staged_read();
    for (int64_t t = 0; t < n_tiles; ++t, ++issued) {
      const int stage = static_cast<int>(issued % Ti::kStages);
      const uint32_t round = issued / Ti::kStages;
      const int32_t n0 = static_cast<int32_t>((w.keys.begin + t) * Ti::kBlockN);
      if (round > 0) mbarrier_wait(sm.k_empty(stage), (round - 1) & 1);
      mbarrier_arrive_expect_bytes(sm.k_full(stage), Ti::kKvBytes);
#pragma unroll 1  // the producer runs on 24 registers
      for (int j = 0; j < Ti::kSlabs; ++j)
        tma_load_4d(sm.k(stage) + j * Ti::kKvSlabBytes, &fp.k, sm.k_full(stage), 64 * j, n0, k_bh.x, k_bh.y);
      if (t == 0) wait_staged_read();
      if (round > 0) mbarrier_wait(sm.v_empty(stage), (round - 1) & 1);
      mbarrier_arrive_expect_bytes(sm.v_full(stage), Ti::kKvBytes);
#pragma unroll 1  // the producer runs on 24 registers
      for (int j = 0; j < Ti::kSlabs; ++j)
        tma_load_4d(sm.v(stage) + j * Ti::kKvSlabBytes, &fp.v, sm.v_full(stage), 64 * j, n0, v_bh.x, v_bh.y);
    }
    ++q_round;
  };
  // The whole rounds, then a shared round's pieces in a loop of their own:
  // its walk (shared_work) kept out of the whole rounds' loop leaves that
  // loop the registers it has without it (24, no spills).
  // With a causal tail (sdpa_sm90_tail_from), the pairs before it, then the
  // tail's tiles heaviest first in a snake over the blocks.
  const bool tail = Ti::kShape.persistent && fp.tail_from < fp.tiles;
  const uint32_t tail_from = static_cast<uint32_t>(fp.tail_from);
  const int64_t whole_turns = tail ? int64_t{sdpa_sm90_pair_turns(tail_from, gridDim.x, blockIdx.x)}
                              : Ti::kShape.share_last_round && fp.split.blocks > 0 ? fp.split.turns
                                                                                  : INT64_MAX;
  int64_t tile, turn = 0;
  for (; turn < whole_turns && (tile = whole_round_tile<Ti>(fp, turn)) >= 0; ++turn) bring(tile);
  if (tail) {
    const uint32_t tiles = static_cast<uint32_t>(fp.tiles), query_tiles = static_cast<uint32_t>(fp.query_tiles);
    for (uint32_t k = 0;; ++k) {
      const uint32_t dealt = sdpa_sm90_tail_tile(tail_from, gridDim.x, blockIdx.x, k);
      if (dealt >= tiles) break;
      const SdpaSm90TileRow row = sdpa_sm90_tail_row(tail_from, tiles, query_tiles, dealt);
      bring(int64_t{row.bh} * query_tiles + sdpa_sm90_pair_position(row.m_index, query_tiles));
    }
  }
  if constexpr (Ti::kShape.share_last_round) {
    if (fp.split.blocks > 0 && blockIdx.x < static_cast<uint32_t>(fp.split.blocks))
      for (int64_t k = 0; shared_work<Ti>(p, fp, k, nullptr); ++k) bring(fp.tiles + k);
  }
  BlockWork end;
  end.m0 = -1;
  announce(end);
}

// A consumer warpgroup's products, online softmax and output.
template <class T, class Ti>
struct Consumer {
  static constexpr int kWarpRows = 16;  // thread_row's rows per warp: warp w holds block rows 16 w to 16 w + 15

  const SdpaProblem &p;
  const ForwardParams &fp;
  const SmemMap<Ti> &sm;
  const BlockWork &w;
  int group;        // which consumer warpgroup, 0 to kConsumers - 1
  uint32_t q_rows;  // this warpgroup's 64 rows of Q's first slab (in this tile's Q slot)
  float slope_log2;
  uint32_t first;    // the ring's count of key tiles before this query tile's
  uint32_t q_phase;  // of this tile's Q slot's barriers (with one slot, the parity of the block's tiles)
  uint32_t q_slot;
  bool opens_turns;  // the last group hands a turn over before its first (carry_turns: the block's first tile with keys)

  // Key tile t's slot in the ring, and the phase its barriers complete.
  // In 32 bits, as the producer counts (a query tile's key tiles are far
  // fewer than 2^31): 64-bit sums cost the loop uniform instructions.
  __device__ int stage(int t) const { return static_cast<int>((first + static_cast<uint32_t>(t)) % Ti::kStages); }
  __device__ uint32_t phase(int t) const { return (first + static_cast<uint32_t>(t)) / Ti::kStages & 1; }

  // s (+)= Q K^T of one 64-column slab of key tile t, four products in a row.
  __device__ void slab_scores(float (&s)[1][Ti::kKeyBlocks][4], int t, int slab, bool accumulate) const {
    const Sw128Descriptor a = Sw128Descriptor::of(q_rows, 16, Ti::kAtomBytes),
                          b = Sw128Descriptor::of(sm.k(stage(t)), 16, Ti::kAtomBytes);
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      // 16 columns are 32 bytes of a slab's 128-byte rows.
      const uint32_t within = kk * 32;
      wgmma_ss<T, Ti::kBlockN, 0>(s[0], a.at(slab * Ti::kQSlabBytes + within), b.at(slab * Ti::kKvSlabBytes + within),
                                  accumulate || kk > 0);
    }
  }

  // s = Q K^T of key tile t (issued and committed, not waited for). At the
  // 256-column tile the slabs stop at D's last (a run-time count; D 192:
  // three of four), those past it would only add the zeros TMA fills in:
  // the first slab alone, then the others one commit group each (ptxas
  // serializes products that a branch splits within one group).
  __device__ void issue_scores(float (&s)[1][Ti::kKeyBlocks][4], int t) const {
    mbarrier_wait(sm.k_full(stage(t)), phase(t));
    fence_registers(s[0]);
    if constexpr (Ti::kHeadDim == 256) {
      const int slabs = static_cast<int>((p.head_dim + 63) / 64);
      wgmma_fence();
      slab_scores(s, t, 0, false);
#pragma unroll 1
      for (int slab = 1; slab < slabs; ++slab) {
        wgmma_fence();  // ptxas would add it (the loop's accumulators)
        slab_scores(s, t, slab, true);
      }
      wgmma_commit();
    } else {
      wgmma_fence();
#pragma unroll
      for (int slab = 0; slab < Ti::kSlabs; ++slab) slab_scores(s, t, slab, slab > 0);
      wgmma_commit();
    }
    fence_registers(s[0]);
  }

  // o += P V of key tile t (issued and committed, not waited for).
  __device__ void issue_values(float (&o)[1][Ti::kValueBlocks][4], uint32_t (&pa)[Ti::kKeyBlocks / 2][4],
                               int t) const {
    mbarrier_wait(sm.v_full(stage(t)), phase(t));
    fence_registers(o[0]);
    fence_registers(pa);
    wgmma_fence();
    const Sw128Descriptor b = Sw128Descriptor::of(sm.v(stage(t)), Ti::kKvSlabBytes, Ti::kAtomBytes);
#pragma unroll
    for (int kk = 0; kk < Ti::kBlockN / 16; ++kk) wgmma_rs<T, Ti::kHeadDim, 1>(o[0], pa[kk], b.at(kk * 16 * 128), 1);
    wgmma_commit();
    fence_registers(o[0]);
  }

  // With visible_tiles_once: the key tiles (counted from the query tile's
  // first) that every row of the block sees whole, [whole_from, whole_to),
  // and those past every row's first visible key, from past_first; found
  // once a query tile, so that the loop tests a tile with 32-bit compares
  // where sdpa_tile_fully_visible took some 40 uniform 64-bit instructions.
  struct VisibleTiles {
    int whole_from, whole_to;
    __device__ bool whole(int t) const { return t >= whole_from && t < whole_to; }
    __device__ bool past_first(int t) const { return t >= whole_from; }
  };
  __device__ VisibleTiles visible_tiles() const {
    if constexpr (!Ti::kShape.visible_tiles_once) return {0, 0};
    const SdpaWholeKeyTiles whole = sdpa_whole_key_tiles(fp.score.visible, w.m0, w.m_last, w.keys, Ti::kBlockN);
    return {static_cast<int>(whole.from), static_cast<int>(whole.to)};
  }

  // -inf past each row's last visible key, in a tile past every row's first
  // (a causal mask's diagonal tiles): one compare a score, against a
  // constant column, and the row's last key in 32 bits (sdpa_tile_last_keys),
  // where mask_scores makes two compares a score against the thread's
  // columns and each row's interval in 64 bits.
  __device__ void mask_past_last(float (&s)[1][Ti::kKeyBlocks][4], int64_t n0) const {
    const SdpaTileLastKeys tile = sdpa_tile_last_keys(fp.score.visible, w.m0, n0);
    const int first_col = sdpa_tc::thread_col(0, 0);
#pragma unroll
    for (int hr = 0; hr < 2; ++hr) {
      const int last = tile.last(sdpa_tc::thread_row<kWarpRows>(0, hr)) - first_col;
#pragma unroll
      for (int nb = 0; nb < Ti::kKeyBlocks; ++nb)
#pragma unroll
        for (int e = 2 * hr; e < 2 * hr + 2; ++e)
          if (nb * 8 + (e & 1) > last) s[0][nb][e] = -INFINITY;
    }
  }

  // The score pipeline of key tile t up to P (in s) and O's pending correction.
  __device__ void probabilities(float (&s)[1][Ti::kKeyBlocks][4], int t, float (&row_max)[1][2],
                                float (&row_sum)[1][2], float (&correction)[1][2], const VisibleTiles &visible) const {
    const int64_t n0 = (w.keys.begin + t) * Ti::kBlockN;
    if (fp.score.transformed)
      sdpa_tc::transform_scores<1, Ti::kKeyBlocks, kWarpRows>(s, fp.score, slope_log2, w.m0, n0);
    if constexpr (Ti::kShape.visible_tiles_once) {
      if (!visible.whole(t)) {
        if (visible.past_first(t))
          mask_past_last(s, n0);
        else
          sdpa_tc::mask_scores<1, Ti::kKeyBlocks, kWarpRows>(s, fp.score.visible, w.m0, n0);
      }
    } else if (!sdpa_tile_fully_visible(fp.score.visible, w.m0, w.m_last, n0, Ti::kBlockN)) {
      sdpa_tc::mask_scores<1, Ti::kKeyBlocks, kWarpRows>(s, fp.score.visible, w.m0, n0);
    }
    sdpa_tc::softmax_probabilities<1, Ti::kKeyBlocks, Ti::kRescaleSlack>(s, row_max, row_sum, fp.score.mul,
                                                                          correction);
  }

  // O's rows times their pending correction. With the slack, skipped where
  // no row of this warp moved its max (the correction is then exactly 1):
  // most tiles past the first.
  __device__ void rescale_output(float (&o)[1][Ti::kValueBlocks][4], const float (&correction)[1][2]) const {
    if (Ti::kRescaleSlack < 0 || __any_sync(0xffffffffu, correction[0][0] != 1.f || correction[0][1] != 1.f))
      sdpa_tc::rescale_rows(o, correction);
  }

  // Hands tile t's K or V slot, or Q, back to the producer (every consumer thread arrives).
  __device__ void release_keys(int t) const { mbarrier_arrive(sm.k_empty(stage(t))); }
  __device__ void release_values(int t) const { mbarrier_arrive(sm.v_empty(stage(t))); }
  __device__ void release_query() const { mbarrier_arrive(sm.q_empty(q_slot)); }

  // Taking turns: this group's turn to issue products (named barrier 1 +
  // group), and the next group's once it has issued. The groups go round from
  // group 0 on, each taking n_tiles + 1 turns; the last group hands over a
  // turn before its first and skips its last handover, so every barrier sees
  // as many arrivals as waits.
  __device__ void wait_turn() const { named_barrier_sync(1 + group, 256); }
  __device__ void pass_turn() const { named_barrier_arrive(1 + (group + 1) % Ti::kConsumers, 256); }
  __device__ bool last_group() const { return group == Ti::kConsumers - 1; }
  // The last group keeps its last handover of a tile (carry_turns: it goes
  // on into the next).
  __device__ bool skips_last_pass() const { return !Ti::kShape.carry_turns && last_group(); }
  // The key tiles this group's rows see, from the block's first: with
  // trim_group_keys fewer than the block's where a causal mask or a window
  // ends its rows' keys a tile or more before the block's last rows' (the
  // first group skips most diagonal 80-key tiles' last); 0 where its rows
  // see none.
  __device__ int own_key_tiles() const {
    const int n_tiles = static_cast<int>(w.keys.end - w.keys.begin);
    if constexpr (!Ti::kShape.trim_group_keys) return n_tiles;
    const int64_t first_row = w.m0 + group * Ti::kConsumerRows;
    const int64_t last_row = first_row + Ti::kConsumerRows - 1 < w.m_last ? first_row + Ti::kConsumerRows - 1 : w.m_last;
    const int64_t hi = fp.score.visible.hi(last_row);
    if (first_row > w.m_last || hi < fp.score.visible.lo(first_row)) return 0;
    const int64_t end = hi / Ti::kBlockN + 1 < w.keys.end ? hi / Ti::kBlockN + 1 : w.keys.end;
    return end > w.keys.begin ? static_cast<int>(end - w.keys.begin) : 0;
  }

  // The turns of key tiles [from, to), which this group's rows do not see,
  // without products (tile t's slots handed back in the turn of S(t + 1),
  // after every group before it has handed back the slot's last round), the
  // last group's last handover skipped as in run().
  __device__ void pass_turns(int from, int to) const {
    for (int t = from; t < to; ++t) {
      wait_turn();
      if (t + 1 < to || !skips_last_pass()) pass_turn();
      release_keys(t);
      release_values(t);
    }
  }

  // This group's own barrier (its 128 threads), after the turn barriers.
  __device__ void sync_group() const { named_barrier_sync(1 + Ti::kConsumers + group, 128); }

  __device__ void run() const {
    float o[1][Ti::kValueBlocks][4], s[1][Ti::kKeyBlocks][4], row_max[1][2], row_sum[1][2], correction[1][2];
    uint32_t pa[Ti::kKeyBlocks / 2][4];
    sdpa_tc::zero_accumulators(o);
    row_max[0][0] = row_max[0][1] = -INFINITY;
    row_sum[0][0] = row_sum[0][1] = 0.f;
    mbarrier_wait(sm.q_full(q_slot), q_phase);  // also when no key tile follows: Q's copy must not be in flight
    const int n_tiles = static_cast<int>(w.keys.end - w.keys.begin), n_own = own_key_tiles();
    const VisibleTiles visible = visible_tiles();
    if (n_own > 0) {
      if (last_group() && opens_turns) pass_turn();
      wait_turn();
      issue_scores(s, 0);
      pass_turn();
      wgmma_wait<0>();
      fence_registers(s[0]);
      release_keys(0);
      probabilities(s, 0, row_max, row_sum, correction, visible);
      accumulator_to_a_fragments<T>(pa, s[0]);
      for (int t = 1; t < n_own; ++t) {
        wait_turn();
        issue_scores(s, t);
        rescale_output(o, correction);  // by tile t - 1's max, under S's product: P V of t - 2 is done
        issue_values(o, pa, t - 1);
        pass_turn();
        wgmma_wait<1>();  // S of tile t
        fence_registers(s[0]);
        release_keys(t);
        probabilities(s, t, row_max, row_sum, correction, visible);
        wgmma_wait<0>();  // P V of tile t - 1
        fence_registers(o[0]);
        fence_registers(pa);
        release_values(t - 1);
        accumulator_to_a_fragments<T>(pa, s[0]);
      }
      release_query();  // every S of this query tile is done
      wait_turn();
      rescale_output(o, correction);
      issue_values(o, pa, n_own - 1);
      if (!skips_last_pass() || n_own < n_tiles) pass_turn();
      wgmma_wait<0>();
      fence_registers(o[0]);
      release_values(n_own - 1);
      pass_turns(n_own, n_tiles);
    } else if (n_tiles > 0) {
      release_query();
      if (last_group() && opens_turns) pass_turn();
      wait_turn();  // the turn of the first S
      pass_turn();
      pass_turns(0, n_tiles);
    } else {
      release_query();
    }
    if (Ti::kShape.share_last_round && w.slot >= 0 && !merge_pieces(o, row_max, row_sum)) return;
    store_out(o, row_max, row_sum);
  }

  // A piece of a shared tile: this group's partial rows into the
  // workspace; true for the group of the tile's last piece to arrive, which
  // then holds every piece's rows merged (the others leave the tile to it).
  // Each thread merges the elements it holds itself (the same in every
  // piece), its partial row sums included (finish_row sums them over the
  // row's threads), in the blocks' order whichever arrives last: the same
  // bits every run. Block b's piece of the tile is its range's first (slot
  // 2 b) but where the tile starts within the range (2 b + 1: the first block's).
  __device__ bool merge_pieces(float (&o)[1][Ti::kValueBlocks][4], float (&row_max)[1][2],
                               float (&row_sum)[1][2]) const {
    constexpr int kThreads = Ti::kConsumers * 128, kVectors = Ti::kValueBlocks + 1;
    const int tid = static_cast<int>(threadIdx.x);
    const auto at = [&](int32_t slot, int vector) {
      return fp.partials + (static_cast<int64_t>(slot) * kVectors + vector) * kThreads + tid;
    };
#pragma unroll
    for (int db = 0; db < Ti::kValueBlocks; ++db)
      *at(w.slot, db) = make_float4(o[0][db][0], o[0][db][1], o[0][db][2], o[0][db][3]);
    *at(w.slot, Ti::kValueBlocks) = make_float4(row_max[0][0], row_max[0][1], row_sum[0][0], row_sum[0][1]);
    __threadfence();
    sync_group();
    // The group's first thread counts it in, predicated rather than branched
    // around: with the branch ptxas kept the main loop's ring counts in vector
    // registers (two R2UR more a wgmma, 0.94-0.96x main, session 22).
    const uint32_t arrived = atomic_add_if(fp.arrivals + w.counter * Ti::kConsumers + group, threadIdx.x % 128 == 0);
    const bool last = threadIdx.x % 128 == 0 && arrived == static_cast<uint32_t>(w.last_block - w.first_block);
    // Lane 0's answer, every lane's: ptxas then knows the branch warp-uniform.
    if (!__shfl_sync(0xffffffffu, named_barrier_or(1 + Ti::kConsumers + group, 128, last), 0)) return false;
    __threadfence();
    const SharedRound round{static_cast<uint32_t>(fp.split.items) * static_cast<uint32_t>(fp.split.item_keys),
                            static_cast<uint32_t>(fp.split.blocks)};
    for (int32_t block = w.first_block; block <= w.last_block; ++block) {
      const int32_t slot =
          2 * block + (block == w.first_block && w.tile_start > round.start(static_cast<uint32_t>(block)) ? 1 : 0);
      const float4 stats = __ldcg(at(slot, Ti::kValueBlocks));
      const float their_max[2] = {stats.x, stats.y}, their_sum[2] = {stats.z, stats.w};
      const bool first = block == w.first_block;
      float mine_scale[2], their_scale[2];
#pragma unroll
      for (int hr = 0; hr < 2; ++hr) {
        // The first piece's rows replace this piece's registers (scale 0).
        const float mine = first || row_max[0][hr] == -INFINITY ? -INFINITY : row_max[0][hr] * fp.score.mul;
        const float theirs = their_max[hr] == -INFINITY ? -INFINITY : their_max[hr] * fp.score.mul;
        const bool theirs_larger = first || theirs > mine;
        const float top = theirs_larger ? theirs : mine;
        mine_scale[hr] = mine == -INFINITY ? 0.f : sdpa_tc::exp2_approx(mine - top);
        their_scale[hr] = theirs == -INFINITY ? 0.f : sdpa_tc::exp2_approx(theirs - top);
        if (theirs_larger) row_max[0][hr] = their_max[hr];
        row_sum[0][hr] = first ? their_sum[hr] * their_scale[hr]
                               : row_sum[0][hr] * mine_scale[hr] + their_sum[hr] * their_scale[hr];
      }
#pragma unroll
      for (int db = 0; db < Ti::kValueBlocks; ++db) {
        const float4 v = __ldcg(at(slot, db));
        o[0][db][0] = o[0][db][0] * mine_scale[0] + v.x * their_scale[0];
        o[0][db][1] = o[0][db][1] * mine_scale[0] + v.y * their_scale[0];
        o[0][db][2] = o[0][db][2] * mine_scale[1] + v.z * their_scale[1];
        o[0][db][3] = o[0][db][3] * mine_scale[1] + v.w * their_scale[1];
      }
    }
    return true;
  }

  // O's rows normalized, and their lse.
  __device__ void store_out(const float (&o)[1][Ti::kValueBlocks][4], const float (&row_max)[1][2],
                            const float (&row_sum)[1][2]) const {
    float inv[2];
#pragma unroll
    for (int hr = 0; hr < 2; ++hr) {
      const int64_t row = w.m0 + sdpa_tc::thread_row<kWarpRows>(0, hr);
      inv[hr] =
          sdpa_tc::finish_row(row_max[0][hr], row_sum[0][hr], fp.score.mul, sdpa_tc::lse_at(p, w.b, w.h, row));
    }
    if constexpr (Ti::kSmemEpilogue)
      store_staged(o, inv);
    else
      store_direct(o, inv);
  }

  // Through this group's rows of the staging tile, laid out as TMA's
  // 128-byte swizzle reads them, then one thread's TMA stores, one a 64-column
  // slab; rows past the queries and columns past Dv are outside OUT's tensor
  // map and not written. The stores run on while the group starts its next tile.
  __device__ void store_staged(const float (&o)[1][Ti::kValueBlocks][4], const float (&inv)[2]) const {
    const bool issuer = threadIdx.x % 128 == 0;
    uint32_t rows = sm.o() + group * Ti::kGroupSlabBytes, slab_bytes = Ti::kQSlabBytes;
    if constexpr (Ti::kStageInValues) {
      // The last group takes the slot of the tile's last V, the one before
      // it the other slot, once every group has done with its V (the
      // producer refills neither before o_read) and the last tile's stores
      // have read both (a tile without keys leaves them as they were).
      mbarrier_wait(sm.o_read(), q_phase ^ 1);
      const int64_t last_use = int64_t{first} + (w.keys.end - w.keys.begin) - (Ti::kConsumers - group);
      const uint32_t slot = static_cast<uint32_t>(last_use + Ti::kStages) % Ti::kStages;
      if (last_use >= 0) mbarrier_wait(sm.v_empty(slot), static_cast<uint32_t>(last_use / Ti::kStages) & 1);
      rows = sm.v(slot);
      slab_bytes = Ti::kGroupSlabBytes;
    } else {
      if (issuer) bulk_wait_read();  // the last tile's stores have read the staging rows
      sync_group();
    }
    // stmatrix: matrices (rows 0-7 | 8-15 of the warp's 16) x (columns 0-7 |
    // 8-15 of a 16-column step); lane l addresses row l % 8 of matrix l / 8.
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int row = static_cast<int>(threadIdx.x) % 128 / 32 * kWarpRows + (lane / 8 % 2) * 8 + lane % 8;
#pragma unroll
    for (int kk = 0; kk < Ti::kValueBlocks / 2; ++kk) {
      const uint32_t r[4] = {sdpa_tc::pack2<T>(o[0][2 * kk][0] * inv[0], o[0][2 * kk][1] * inv[0]),
                             sdpa_tc::pack2<T>(o[0][2 * kk][2] * inv[1], o[0][2 * kk][3] * inv[1]),
                             sdpa_tc::pack2<T>(o[0][2 * kk + 1][0] * inv[0], o[0][2 * kk + 1][1] * inv[0]),
                             sdpa_tc::pack2<T>(o[0][2 * kk + 1][2] * inv[1], o[0][2 * kk + 1][3] * inv[1])};
      const int col = 16 * kk + lane / 16 * 8;  // the first of the lane's 8 columns
      const int chunk = (col % 64 / 8) ^ (row % 8);  // its 16 bytes' place in the swizzled 128-byte row
      stmatrix_x4(rows + col / 64 * slab_bytes + row * 128 + chunk * 16, r);
    }
    fence_async_shared();
    sync_group();
    const int64_t first_row = w.m0 + group * Ti::kConsumerRows;
    if (issuer && first_row < p.queries) {
#pragma unroll 1
      for (int j = 0; j < Ti::kSlabs && 64 * j < p.head_dim_v; ++j)
        tma_store_4d(&fp.o, rows + j * slab_bytes, 64 * j, static_cast<int32_t>(first_row),
                     static_cast<int32_t>(w.h * fp.o_steps.head), static_cast<int32_t>(w.b * fp.o_steps.batch));
      bulk_commit();
    }
    if (Ti::kStageInValues && issuer) {
      bulk_wait_read();
      mbarrier_arrive(sm.o_read());
    }
  }

  // Straight from the registers, each thread's column pairs as 4-byte stores.
  __device__ void store_direct(const float (&o)[1][Ti::kValueBlocks][4], const float (&inv)[2]) const {
    T *out = static_cast<T *>(p.out.data) + w.b * p.out.stride[0] + w.h * p.out.stride[1];
#pragma unroll
    for (int hr = 0; hr < 2; ++hr) {
      const int64_t row = w.m0 + sdpa_tc::thread_row<kWarpRows>(0, hr);
      if (row >= p.queries) continue;
#pragma unroll
      for (int db = 0; db < Ti::kValueBlocks; ++db) {
        const int col = sdpa_tc::thread_col(db, 0);
        if (col < p.head_dim_v)
          *reinterpret_cast<uint32_t *>(out + row * p.out.stride[2] + col) =
              sdpa_tc::pack2<T>(o[0][db][2 * hr] * inv[hr], o[0][db][2 * hr + 1] * inv[hr]);
      }
    }
  }
};

template <class T, class Ti>
__global__ void __launch_bounds__(Ti::kThreads, 1)
    forward_kernel(const SdpaProblem p, const __grid_constant__ ForwardParams fp) {
  extern __shared__ __align__(1024) unsigned char smem[];
  const SmemMap<Ti> sm{(shared_address(smem) + 1023u) & ~1023u};
  const int warp = static_cast<int>(threadIdx.x) / 32;
  if (threadIdx.x == 0) {
    for (uint32_t slot = 0; slot < Ti::kQuerySlots; ++slot) {
      mbarrier_init(sm.q_full(slot), 1);
      mbarrier_init(sm.tile_full(slot), 1);
    }
    for (int stage = 0; stage < Ti::kStages; ++stage) {
      mbarrier_init(sm.k_full(stage), 1);
      mbarrier_init(sm.v_full(stage), 1);
      mbarrier_init(sm.k_empty(stage), Ti::kConsumers * 128);
      mbarrier_init(sm.v_empty(stage), Ti::kConsumers * 128);
    }
    for (uint32_t slot = 0; slot < Ti::kQuerySlots; ++slot)
      mbarrier_init(sm.q_empty(slot), Ti::kConsumers * 128);  // also frees the work slots
    if (Ti::kStageInValues) mbarrier_init(sm.o_read(), Ti::kConsumers);  // each group's issuing thread
    mbarrier_init_fence();
  }
  __syncthreads();
  if (warp >= 4 * Ti::kConsumers) {
    release_registers_to<kSdpaSm90ProducerRegisters>();
    if (threadIdx.x == 128 * Ti::kConsumers) produce<Ti>(p, fp, sm);
  } else {
    claim_registers_to<sdpa_sm90_consumer_registers(Ti::kShape)>();
    const int group = Ti::kShape.uniform_group ? __shfl_sync(0xffffffffu, warp / 4, 0) : warp / 4;
    const uint32_t q_rows = sm.q(0) + static_cast<uint32_t>(group) * Ti::kConsumerRows * 128;
    uint32_t first = 0;
    bool turns_open = false;  // carry_turns: some tile of the block has taken turns
    for (uint32_t q_round = 0;; ++q_round) {
      const uint32_t slot = Ti::kQuerySlots == 2 ? q_round & 1 : 0;
      const uint32_t phase = (Ti::kQuerySlots == 2 ? q_round / 2 : q_round) & 1;
      mbarrier_wait(sm.tile_full(slot), phase);
      const BlockWork w = *shared_work_slot(sm.work_slot(q_round & 1));
      if (w.m0 < 0) {
        // The last group's last handover, where the turns were carried.
        if (Ti::kShape.carry_turns && turns_open && group == 0) named_barrier_sync(1, 256);
        break;
      }
      float slope_log2 = 0.f;
      if (fp.score.alibi != 0)
        slope_log2 = static_cast<const float *>(p.slopes)[w.b * p.slope_stride[0] + w.h * p.slope_stride[1]] *
                     1.4426950408889634f;
      const bool has_keys = w.keys.end > w.keys.begin;
      const Consumer<T, Ti> consumer{p,     fp,    sm,   w, group, q_rows + slot * Ti::kQBytes, slope_log2,
                                     first, phase, slot, !Ti::kShape.carry_turns || !turns_open};
      consumer.run();
      turns_open = turns_open || has_keys;
      first += static_cast<uint32_t>(w.keys.end - w.keys.begin);
    }
    // The staging tile must outlive its last stores' reads.
    if (Ti::kSmemEpilogue && threadIdx.x % 128 == 0) bulk_wait_read();
  }
}

}  // namespace baracuda::kernels::sm90

namespace baracuda::kernels {

namespace sm90 {
template <class T, int HeadDim, int Cut>
int launch_forward(const SdpaProblem &p, const ForwardParams &fp, cudaStream_t stream) {
  using Ti = Tiles<HeadDim, Cut>;
  const auto kernel = forward_kernel<T, Ti>;
  const size_t smem = sdpa_sm90_smem_bytes(Ti::kShape);
  cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  if (err != cudaSuccess) return -static_cast<int>(err);
  int64_t blocks = fp.tiles;
  if constexpr (Ti::kShape.persistent) {
    DeviceLimits limits;
    if ((err = current_device_limits(limits)) != cudaSuccess) return -static_cast<int>(err);
    if (limits.sms < blocks) blocks = limits.sms;  // (forward_params set pair_shift for this count)
    // A shared last round alone: the blocks sharing it.
    if (Ti::kShape.share_last_round && fp.split.blocks > 0 && fp.split.first == 0) blocks = fp.split.blocks;
  }
  kernel<<<static_cast<unsigned>(blocks), Ti::kThreads, smem, stream>>>(p, fp);
  return -static_cast<int>(cudaGetLastError());
}
}  // namespace sm90

namespace sm90 {
// Cut's kernel, or the first cut's of an equal shape: one kernel a shape.
template <class T, int HeadDimTile, int Cut>
int launch_cut(const SdpaProblem &p, const ForwardParams &fp, cudaStream_t stream) {
  constexpr SdpaSm90Shape shape = sdpa_sm90_cut_shape(HeadDimTile, static_cast<SdpaSm90Cut>(Cut));
  if constexpr (Cut > 0 && shape == sdpa_sm90_cut_shape(HeadDimTile, static_cast<SdpaSm90Cut>(0)))
    return launch_cut<T, HeadDimTile, 0>(p, fp, stream);
  else if constexpr (Cut > 1 && shape == sdpa_sm90_cut_shape(HeadDimTile, static_cast<SdpaSm90Cut>(1)))
    return launch_cut<T, HeadDimTile, 1>(p, fp, stream);
  else
    return launch_forward<T, HeadDimTile, Cut>(p, fp, stream);
}
}  // namespace sm90

// The cut forward_params chose for p.
template <class T, int HeadDimTile>
int sdpa_forward_sm90_launch(const SdpaProblem &p, const sm90::ForwardParams &fp, cudaStream_t stream) {
  static_assert(kSdpaSm90Cuts == 3, "a launch a cut");
  switch (fp.cut) {
    case SdpaSm90Cut::kOpen:
      return sm90::launch_cut<T, HeadDimTile, 0>(p, fp, stream);
    case SdpaSm90Cut::kBounded:
      return sm90::launch_cut<T, HeadDimTile, 1>(p, fp, stream);
    default:
      return sm90::launch_cut<T, HeadDimTile, 2>(p, fp, stream);
  }
}

}  // namespace baracuda::kernels

// One file's instantiation: BARACUDA_SDPA_SM90_FORWARD(__nv_bfloat16, 128).
#define BARACUDA_SDPA_SM90_FORWARD(T, TILE)                                         \
  template int baracuda::kernels::sdpa_forward_sm90_launch<T, TILE>(               \
      const baracuda::kernels::SdpaProblem &, const baracuda::kernels::sm90::ForwardParams &, cudaStream_t)
