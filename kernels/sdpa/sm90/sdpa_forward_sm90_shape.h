// How the Hopper attention forward (sdpa_forward_sm90.cuh) cuts its work, per
// compiled head-size tile (64, 128 or 256, the smallest holding D and Dv):
// 64 query rows per consumer warpgroup, key tiles of
// block_n rows in a ring of two stages, every tile in 64-column slabs of
// 128-byte rows as the 128-byte TMA swizzle lays them out. Host-includable,
// no CUDA: the plan layer asks it what a block needs.
#pragma once

#include <cstddef>
#include <cstdint>

namespace baracuda::kernels {

struct SdpaSm90Shape {
  int consumers;  // warpgroups of 64 query rows each; one more warpgroup produces
  int block_n, stages, slabs;
  bool persistent;  // one block an SM taking query tiles in turn, else one a tile
  // The running max moves only where a tile's passes it by more than this
  // (log2 units), so that most tiles owe O no rescale; -1: on every tile.
  int rescale_slack;
  // O leaves through a staging tile of the block's rows in shared memory and
  // TMA stores, else straight from the registers (where the block has no room).
  bool smem_epilogue = false;
  // The staging tile is no region of its own but each group's 64 rows in a V
  // slot of the ring (one slot a group), which the producer refills only
  // once the stores have read it: where the block has no room for its own.
  bool stage_in_values = false;
  // The consumer group's index broadcast from lane 0: ptxas then knows it
  // (and every branch on it) uniform across the warp and keeps what derives
  // from it, the loop's descriptors and barrier addresses, in uniform registers.
  bool uniform_group = false;
  // A group whose rows' keys end a key tile or more before the block's last
  // rows' (a causal mask or window cutting through 80-key tiles) takes its
  // last turns without products. Needs uniform_group (branches on the group).
  bool trim_group_keys = false;
  // The last round's items shared out in key tiles where they fill it in
  // part (SdpaSm90Split); compiled in only where set.
  bool share_last_round = false;
  // The key tiles that every row of a query tile sees whole found once a
  // query tile (a 32-bit range), and a tile past every row's first visible
  // key masked by one compare a score, where the loop otherwise tested each
  // tile in 64-bit uniform arithmetic and masked with two compares a score.
  bool visible_tiles_once = false;
  // Q in two slots by the parity of the block's tiles, so that the next
  // tile's Q arrives while this tile's last products run: with one slot its
  // copy starts only once every group's last S is done, and the next tile's
  // first S waits for it.
  bool double_query = false;
  // The last group hands the turn to the first after its last products of a
  // tile too (the block's first tile opens the turns, the first group takes
  // the last handover at the block's end): the first group then starts its
  // next tile while the last one still drains and stores its rows.
  bool carry_turns = false;
  constexpr int block_m() const { return 64 * consumers; }
  constexpr int query_slots() const { return double_query ? 2 : 1; }
  constexpr int threads() const { return 128 * (consumers + 1); }
  constexpr bool operator==(const SdpaSm90Shape &o) const {
    return consumers == o.consumers && block_n == o.block_n && stages == o.stages && slabs == o.slabs &&
           persistent == o.persistent && rescale_slack == o.rescale_slack &&
           smem_epilogue == o.smem_epilogue && stage_in_values == o.stage_in_values &&
           uniform_group == o.uniform_group && trim_group_keys == o.trim_group_keys &&
           share_last_round == o.share_last_round && visible_tiles_once == o.visible_tiles_once &&
           double_query == o.double_query && carry_turns == o.carry_turns;
  }
};

// A block's cut for a head-size tile and whether a causal mask or a window
// bounds some row's keys. Measured on an H200 (bf16, session 15; TFLOP/s at
// B16 H16 S1024 and B8 H16 S4096, causal after the slash):
// - At 64 columns a warpgroup's products are short beside its softmax, and
//   a third consumer warpgroup keeps the tensor cores busier without a mask:
//   338 and 483 against 320 and 434. With a causal mask its 192-row tiles
//   lost (181 against 216 at S1024: more of each diagonal tile masked, a
//   partial last tile of a third); one of 96-key tiles (no spills) ran 311
//   and 452.
// - 64-column tiles also gain from persistent blocks (one an SM, the next
//   tile's Q and first keys arriving while the last one's products drain,
//   causal tiles taken in heavy-and-light pairs): 357 and 490 / 249-251 and
//   392-400, against 338 and 483 / 223 and 379-384 a block a tile.
// - At 128 and 256 columns persistent blocks measured the same in session 15
//   (D128 S4096 635-659 against 651-659, D256 S2048 554-560 against
//   555-560). In session 17's probe (bench/probes/sdpa_forward_sm90, both
//   kernels in one process; two runs, against main's), persistent blocks
//   with the slack below ran 1.009x / 1.023-1.032x (D128 S4096, causal
//   after the slash), 0.999-1.006x / 1.012x (D128 S8192) and 0.990-1.024x
//   / 1.041-1.045x (D256 S2048); without the slack at 128 columns
//   0.951-1.007x / 0.958-1.026x. So every tile is persistent. A third stage
//   at 128 columns (225 KiB) lost: 0.980-0.995x.
// - The slack of 2^8 (P up to 256, exact in f16 and bf16) spares most tiles
//   O's rescale. At 64 columns, where O is 32 registers, it lost (0.980-
//   0.997x) and stays off.
// - At 256 columns the O accumulator takes 128 registers a thread, and S's
//   SS product at 64 keys reads 4 KiB of shared memory a 32-clock k-step,
//   its whole bandwidth: S gets 80 keys (40 registers, none spilled; 225
//   KiB a block), which ran 1.058x / 1.073x main at D256 S2048 where 64
//   keys ran 1.018x / 1.042x (session 17's sixth probe; session 15, before
//   the slack and persistent blocks: 572 against 559). 176 keys at 128
//   columns measured the same as 128 (645-651 against 648, B4 H32 S4096).
// - At 64 and 128 columns O leaves through a staging tile in shared memory
//   and TMA stores that run on under the next tile (session 18's probe:
//   1.00-1.07x on the attention table's D 64 and 128 rows). At 256 columns
//   the block has no room for a tile of its own (225 KiB with 80-key
//   tiles): each group stages its rows in a V slot of the ring, whose next
//   V waits for the stores (session 19, against session 18's direct stores
//   in one process, two passes: 1.035-1.042x at B8 H16 S2048, causal
//   1.045-1.046x, 1.04-1.10x on B1 H16 S1024).
// - At 256 columns the group index broadcast from lane 0 (uniform_group):
//   spills 84 -> 16 bytes and 1.087-1.090x / 1.131-1.132x session 18's
//   kernel with the staging above (1.05x / 1.08x on top of it). At 128
//   columns it lost (0.97x unmasked, D 128 S 4096 and 8192), at 64 it
//   measured 0.985-1.007x (session 19). On the 64-column bounded cut with
//   visible_tiles_once (session 23, round 3, H200, two passes in turn):
//   causal B16 H16 S1024 1.075x / 1.082x main against 1.044x / 1.044x
//   without it, S 2048 1.030x / 1.032x against 1.024x / 1.028x, S 4096 and
//   8192 within 1% of it: on there and on the four-consumer cut.
// - With it a group whose rows' keys end a tile before the block's skips
//   that tile's products (trim_group_keys; under a causal mask at 80-key
//   tiles the first group's last diagonal tile, 2.9% of the products at
//   S 2048): causal 1.145-1.156x session 18's kernel against 1.131-1.132x
//   without it (session 19, round 3, with other changes since dropped).
//
// Which cut a problem takes: keys bounded by a causal mask or a window, or
// not; and, at 64 columns, four consumers where they finish first: open
// problems by sdpa_sm90_four_groups_faster, a causal mask alone from
// kSdpaSm90FourGroupsCausalLeastQueries queries. Shapes equal across cuts
// share one kernel.
enum class SdpaSm90Cut : int { kOpen = 0, kBounded = 1, kFourGroups = 2 };
constexpr int kSdpaSm90Cuts = 3;

// - Open 64-column problems take four consumers of 64-key tiles (256-row
//   tiles; 112 registers each: 80-key tiles spilled 120 bytes) where they
//   run fewer rounds of rows: sdpa_sm90_four_groups_faster. Against three
//   consumers in one process (session 21, rounds 3 and 5, both with
//   Sw128Descriptor's descriptors): B32 H16 S512 1.10x, B16 H16 S1024 1.04x
//   (576 and 1152 padded rows against 512 and 1024), B16 H16 S2048 0.92x, B8
//   H16 S4096 0.90x (2112 and 4224 against 2048 and 4096), B2 H8 S1024 0.82x
//   (64 blocks against 96 on 132 SMs); with the group index broadcast
//   (uniform_group) 1.02x more at S512 and S1024.
// - visible_tiles_once on the bounded and four-consumer 64-column cuts
//   (session 23, bits unchanged; against main in one process, H200, round 3,
//   two passes): causal B16 H16 S1024 1.044x / 1.044x (1.08x with the group
//   broadcast above), S 2048 1.024x / 1.028x, S 4096 1.010x / 1.005x, S 8192
//   0.998x / 0.988x; unmasked B16 H16 S1024 (four consumers) 1.042x / 1.038x.
//   The three-consumer cut keeps its test (rounds 1 and 2: 0.991-0.995x
//   with it, within the noise of its unchanged kernel in round 3).
// - At 128 columns Q in two slots and the turns carried from tile to tile
//   (double_query, carry_turns; session 24, H200, against main in one
//   process, two rounds): B4 H32 S4096 1.010x / 1.018x, causal 1.009x /
//   1.023x; B2 H32 S8192 1.004x / 1.004x, causal 1.004x / 0.999x. Either
//   alone measured 0.995-1.001x. The carried turns at 256 columns measured
//   0.999-1.005x (no room there for a second Q) and stay off. Issuing each
//   group's next first S before its epilogue on top (the prefetched S as one
//   wgmma on every path, else ptxas serialized them all, C7515) ran
//   1.012x / 1.015x main at S 4096 (below the two alone), 0.997x / 0.998x at
//   S 8192 and 0.93-0.94x at B1 H8 S2048 (a tile a block): dropped.
constexpr SdpaSm90Shape sdpa_sm90_cut_shape(int head_dim_tile, SdpaSm90Cut cut) {
  const bool short_tile = head_dim_tile == 64;
  const int consumers = !short_tile || cut == SdpaSm90Cut::kBounded ? 2 : cut == SdpaSm90Cut::kOpen ? 3 : 4;
  const int block_n = head_dim_tile == 256 ? 80 : consumers == 4 ? 64 : 128;
  return {consumers, block_n, 2, head_dim_tile / 64, true, short_tile ? -1 : 8, true,
          head_dim_tile == 256, head_dim_tile == 256 || (short_tile && consumers != 3),
          head_dim_tile == 256 || consumers == 4, head_dim_tile == 128, short_tile && consumers != 3,
          head_dim_tile == 128, head_dim_tile == 128};
}
constexpr SdpaSm90Shape sdpa_sm90_shape(int head_dim_tile, bool bounded) {
  return sdpa_sm90_cut_shape(head_dim_tile, bounded ? SdpaSm90Cut::kBounded : SdpaSm90Cut::kOpen);
}

// Whether four consumers (256-row tiles) finish an open 64-column problem
// of batch_heads (b, h)'s first on `sms` persistent blocks: the rounds of
// tiles each cut runs times its rows, a four-consumer row costing 8% more
// (rounds 3 and 5: 0.90x three consumers' time at 4096 queries, where its
// rows are 3% fewer).
constexpr bool sdpa_sm90_four_groups_faster(int64_t batch_heads, int64_t queries, int64_t sms) {
  const int64_t rounds3 = (batch_heads * ((queries + 191) / 192) + sms - 1) / sms,
                rounds4 = (batch_heads * ((queries + 255) / 256) + sms - 1) / sms;
  return rounds4 * 256 * 108 < rounds3 * 192 * 100;
}

// A causal mask alone at 64 columns from this many queries takes the four
// consumers too, each group's last diagonal key tiles trimmed (their tiles
// dealt in pairs and the tail as the two-consumer cut's): four warps an SM
// sub-partition, where the bounded cut's two leave the tensor and exp pipes
// mostly taking turns (ncu at B4 H16 S8192 causal: tensor 49.7%, XU 49.8%;
// cuDNN's kernel 56.5%, 57.5%). Session 24 (H200, against main's bounded cut
// in one process, two passes in turn): causal B16 H16 S2048 1.085x / 1.088x
// (1.042x / 1.045x untrimmed), B8 H16 S4096 1.069x / 1.072x, B4 H16 S8192
// 1.075x / 1.131x; the trim cost the open four-consumer rows (B16 H16 S1024)
// 0.978x / 0.984x main. Windows stay on the bounded cut (not measured).
constexpr int64_t kSdpaSm90FourGroupsCausalLeastQueries = 2048;

constexpr SdpaSm90Cut sdpa_sm90_cut(int head_dim_tile, bool bounded, bool causal_alone, int64_t batch_heads,
                                    int64_t queries, int64_t sms) {
  if (bounded)
    return head_dim_tile == 64 && causal_alone && queries >= kSdpaSm90FourGroupsCausalLeastQueries
               ? SdpaSm90Cut::kFourGroups
               : SdpaSm90Cut::kBounded;
  return head_dim_tile == 64 && sms > 0 && sdpa_sm90_four_groups_faster(batch_heads, queries, sms)
             ? SdpaSm90Cut::kFourGroups
             : SdpaSm90Cut::kOpen;
}

// The last round of a persistent grid, where its items (tiles, or causal
// tiles in heavy-and-light pairs) fill it only in part, leaves SMs idle for
// up to an item's time (4096 tiles on 132 SMs: 31 rounds and 4 tiles; 2048
// pairs: 15 rounds and 68). Where every item takes the same key tiles, the
// last round's items are laid end to end in key tiles and shared out in
// equal ranges among as many blocks as give each at least
// kSdpaSm90SplitLeastKeyTiles (at most one an SM; where the round is a
// quarter full or less and a range 3/4 of an item or less): a block's range holds
// whole tiles and, at its ends, pieces of tiles. A piece leaves its rows'
// partial O, max and sum in the workspace, and the last piece of a tile's
// consumer group to arrive merges them all and stores the rows.
struct SdpaSm90Split {
  int64_t first;      // the first item shared (after the whole rounds), or the problem's item count
  int64_t turns;      // a block's turns of the whole rounds (first / sms rounds, of two turns with pairs)
  int32_t items;      // items shared
  int32_t blocks;     // blocks sharing them; 0: none
  int32_t item_keys;  // key tiles an item
};

#ifndef BARACUDA_SDPA_SM90_SPLIT_LEAST_KEY_TILES
#define BARACUDA_SDPA_SM90_SPLIT_LEAST_KEY_TILES 4
#endif
constexpr int64_t kSdpaSm90SplitLeastKeyTiles = BARACUDA_SDPA_SM90_SPLIT_LEAST_KEY_TILES;

// items of item_keys key tiles each (0: unequal, never shared) on sms
// blocks of a shape that shares its last round. The round's key tiles stay
// below 2^32 / (sms + 1) (the kernel's 32-bit ranges).
constexpr SdpaSm90Split sdpa_sm90_split(const SdpaSm90Shape &shape, int64_t items, int64_t item_keys, int64_t sms) {
  const SdpaSm90Split none{items, 0, 0, 0, 0};
  if (!shape.share_last_round || !shape.persistent || item_keys <= 0 || sms <= 0) return none;
  const int64_t rest = items % sms, keys = rest * item_keys;
  const int64_t blocks = keys / kSdpaSm90SplitLeastKeyTiles < sms ? keys / kSdpaSm90SplitLeastKeyTiles : sms;
  // Worth it where the round is at most a quarter full and a block's range
  // at most 3/4 of an item (session 22: 4 of 132 tiles 1.014-1.025x; 36
  // tiles over every SM 0.967x, 68 causal pairs 0.997-1.019x).
  if (rest == 0 || 4 * rest > sms || 3 * blocks < 4 * rest || keys >= (int64_t{1} << 32) / (sms + 1)) return none;
  return {items - rest, (items - rest) / sms, static_cast<int32_t>(rest), static_cast<int32_t>(blocks),
          static_cast<int32_t>(item_keys)};
}

// The workspace a split needs: two pieces' partial rows a block (the ends of
// its range: O's accumulator and each thread's max and sum, 16 bytes a
// thread each), then an arrival count a shared tile's consumer group.
constexpr size_t sdpa_sm90_piece_bytes(const SdpaSm90Shape &shape, int head_dim_tile) {
  return static_cast<size_t>(128) * shape.consumers * (head_dim_tile / 8 + 1) * 16;
}
constexpr size_t sdpa_sm90_split_partial_bytes(const SdpaSm90Shape &shape, int head_dim_tile, const SdpaSm90Split &split) {
  return static_cast<size_t>(2) * split.blocks * sdpa_sm90_piece_bytes(shape, head_dim_tile);
}
constexpr size_t sdpa_sm90_split_arrival_bytes(const SdpaSm90Shape &shape, const SdpaSm90Split &split, bool pairs) {
  return split.blocks == 0 ? 0 : static_cast<size_t>(split.items) * (pairs ? 2 : 1) * shape.consumers * 4;
}

// The plan's workspace for a problem of `tiles` tiles and `key_tiles` key
// tiles, chosen before the device's SM count is known: enough for a split
// on up to kSdpaSm90SplitMostBlocks SMs (every sm 90 part has 132 or fewer);
// a device of more SMs runs its last round whole (bind_split_workspace).
constexpr int64_t kSdpaSm90SplitMostBlocks = 132;
constexpr size_t sdpa_sm90_forward_workspace_bytes(int head_dim_tile, bool bounded, int64_t tiles, int64_t key_tiles) {
  const SdpaSm90Shape shape = sdpa_sm90_shape(head_dim_tile, bounded);
  if (!shape.share_last_round || tiles <= 0 || key_tiles <= 0) return 0;
  // A block's range holds kSdpaSm90SplitLeastKeyTiles or more of the
  // problem's key tiles; the shared items are fewer than the blocks.
  const int64_t all_keys = tiles * key_tiles;
  int64_t blocks = all_keys / kSdpaSm90SplitLeastKeyTiles;
  if (blocks > kSdpaSm90SplitMostBlocks) blocks = kSdpaSm90SplitMostBlocks;
  if (blocks < 2) return 0;
  const SdpaSm90Split most{0, 0, static_cast<int32_t>(blocks - 1), static_cast<int32_t>(blocks), 1};
  return sdpa_sm90_split_partial_bytes(shape, head_dim_tile, most) + sdpa_sm90_split_arrival_bytes(shape, most, true);
}

// Causal tiles in heavy-and-light pairs are of equal work, and the last
// round of pairs fills the persistent blocks only in part (2048 pairs on 132
// SMs: 15 rounds and 68 pairs, 3% of the time with 64 SMs idle). So the last
// kSdpaSm90TailRounds rounds' worth of pairs, rounded to whole (b, h)s, are
// dealt instead as single tiles, heaviest first, in a snake over the blocks
// (block b takes the tail's tiles b, 2 blocks - 1 - b, 2 blocks + b, ...
// after its pairs): the blocks' sums of key tiles then end within a tile's
// work of one another, and most of the work keeps the pairs' order, whose
// blocks share each (b, h)'s keys in L2. Only the producer deals (it hands
// the consumers each tile's index): in the consumers' loop the dealing's
// code cost 1-4% where it never ran (session 22). From
// sdpa_sm90_tail_least_query_tiles query tiles a (b, h). The tail's first
// tile, a multiple of query_tiles; `tiles` where pairs are not dealt (odd
// query_tiles: a pair spans two (b, h)s) or nothing is left to deal.
constexpr int64_t kSdpaSm90TailRounds = 3;
// At 128 and 256 columns from 32 query tiles (session 23: at D256 S2048, 16
// query tiles, 0.914x on an H100). At 64 columns from 8, where the dealing
// left the consumers' loop (session 24, H200, against main in one process:
// causal B16 H16 S2048 1.019x / 1.019x, S1024 1.001x / 1.011x; session 22's
// loss at 1024 and 2048 queries was the consumers' dealing code).
constexpr int64_t sdpa_sm90_tail_least_query_tiles(int head_dim_tile) { return head_dim_tile == 64 ? 8 : 32; }
constexpr int64_t sdpa_sm90_tail_from(int64_t tiles, int64_t query_tiles, int64_t blocks, int64_t least_query_tiles) {
  if (query_tiles % 2 != 0 || query_tiles < least_query_tiles || blocks <= 0 || tiles < 2 * blocks)
    return tiles;
  const int64_t pairs = tiles / 2 - kSdpaSm90TailRounds * blocks;
  return pairs > 0 ? pairs / (query_tiles / 2) * query_tiles : 0;
}

// The producer deals in 32 bits (the tiles are fewer than 2^31:
// forward_params), where 64-bit divisions are calls that crowd its 24
// registers. Block b's turns on the pairs before tail_from (pair p goes to
// block p % blocks).
constexpr uint32_t sdpa_sm90_pair_turns(uint32_t tail_from, uint32_t blocks, uint32_t b) {
  const uint32_t pairs = tail_from / 2;
  return 2 * (pairs / blocks + (b < pairs % blocks ? 1 : 0));
}

// The tail's tile block b takes on its turn-th turn past its pairs: the
// dealing goes on from the block after the last pair's, in rounds of
// `blocks` tiles, every other round from the last block back (a snake).
constexpr uint32_t sdpa_sm90_tail_tile(uint32_t tail_from, uint32_t blocks, uint32_t b, uint32_t turn) {
  const uint32_t start = tail_from / 2 % blocks, round = turn + (b < start ? 1 : 0);
  return tail_from + round * blocks + (round % 2 == 0 ? b : blocks - 1 - b) - start;
}

// A tail tile's (b, h) and query tile: the tail's (b, h)s' tiles from the
// last query tile (the heaviest under a causal mask) to the first, each
// query tile across the (b, h)s.
struct SdpaSm90TileRow {
  uint32_t bh, m_index;
};
constexpr SdpaSm90TileRow sdpa_sm90_tail_row(uint32_t tail_from, uint32_t tiles, uint32_t query_tiles, uint32_t tile) {
  const uint32_t i = tile - tail_from, first_bh = tail_from / query_tiles, tail_bhs = tiles / query_tiles - first_bh;
  return {first_bh + i % tail_bhs, query_tiles - 1 - i / tail_bhs};
}

// Where query tile m_index sits among its (b, h)'s tiles in pairs (an even
// count n): position 2 k holds the heavy tile n - 1 - k, 2 k + 1 the light
// tile k (the kernel's tile_work reads them back).
constexpr uint32_t sdpa_sm90_pair_position(uint32_t m_index, uint32_t query_tiles) {
  return m_index >= query_tiles / 2 ? 2 * (query_tiles - 1 - m_index) : 2 * m_index + 1;
}

constexpr int kSdpaSm90ProducerRegisters = 24;

// A consumer thread's registers once the producer has given back all but 24
// of its own: the SM's 64K over the block (per thread a multiple of 8, as the
// launch allocates them), less the producer's, over the consumers.
constexpr int sdpa_sm90_consumer_registers(const SdpaSm90Shape &s) {
  const int launch = 65536 / s.threads() / 8 * 8;
  return (launch * s.threads() - 128 * kSdpaSm90ProducerRegisters) / (128 * s.consumers) / 8 * 8;
}
static_assert(sdpa_sm90_consumer_registers({2, 128, 2, 1, false, -1}) == 240 &&
              sdpa_sm90_consumer_registers({3, 128, 2, 1, false, -1}) == 160 &&
              sdpa_sm90_consumer_registers({4, 64, 2, 1, false, -1}) == 112);

constexpr size_t kSdpaSm90SwizzleAlign = 1024;  // a 128-byte-swizzle atom: 8 rows of 128 bytes

// Q (one or two slots), then per stage a K and a V tile, O's staging tile
// (smem_epilogue but not stage_in_values), then the mbarriers (Q full and
// empty; per stage K and V full and empty; the staging tile's stores read;
// the producer's work slots full; a second Q slot's full, empty and work
// full), the two work slots, and the slack that aligns the tiles to a
// swizzle atom.
constexpr size_t kSdpaSm90WorkSlotBytes = 80;  // the kernel's BlockWork
constexpr size_t sdpa_sm90_smem_bytes(const SdpaSm90Shape &s) {
  const size_t row_bytes = static_cast<size_t>(s.slabs) * 128;
  const int staged_rows = s.smem_epilogue && !s.stage_in_values ? s.block_m() : 0;
  return (s.query_slots() * s.block_m() + 2 * s.stages * s.block_n + staged_rows) * row_bytes +
         8 * (4 + 4 * s.stages + 3 * (s.query_slots() - 1)) + 2 * kSdpaSm90WorkSlotBytes + kSdpaSm90SwizzleAlign;
}

// The most any problem's block of a head-size tile takes.
constexpr size_t sdpa_sm90_most_smem_bytes(int head_dim_tile) {
  size_t most = 0;
  for (int cut = 0; cut < kSdpaSm90Cuts; ++cut) {
    const size_t bytes = sdpa_sm90_smem_bytes(sdpa_sm90_cut_shape(head_dim_tile, static_cast<SdpaSm90Cut>(cut)));
    most = bytes > most ? bytes : most;
  }
  return most;
}

}  // namespace baracuda::kernels
