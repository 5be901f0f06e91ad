// The tensor-core backward's choices that need no GPU: the head-size tile a
// problem runs with and where its workspace puts what. Plain host functions,
// tested on the CPU.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sdpa/sdpa_backward_traits.h"
#include "sdpa/sdpa_problem.h"

namespace baracuda::kernels {

// The smallest instantiated tile that holds both D and Dv (padding columns
// are zero-filled on load and never stored).
inline int sdpa_backward_head_tile(int32_t head_dim, int32_t head_dim_v) {
  const int32_t d = head_dim > head_dim_v ? head_dim : head_dim_v;
  return d <= 64 ? 64 : d <= 128 ? 128 : 256;
}

// What the entry point checks of a head tile's kernel before launching it.
struct SdpaBackwardTileFacts {
  int keys;        // rows of its K/V tile
  int smem_bytes;  // shared memory a block takes
};
template <int HeadTile>
constexpr SdpaBackwardTileFacts sdpa_backward_facts_of() {
  return {SdpaBackwardTraits<HeadTile>::kKeys, SdpaBackwardTraits<HeadTile>::kSmemBytes};
}
inline SdpaBackwardTileFacts sdpa_backward_tile_facts(int head_tile) {
  return head_tile == 64    ? sdpa_backward_facts_of<64>()
         : head_tile == 128 ? sdpa_backward_facts_of<128>()
                            : sdpa_backward_facts_of<256>();
}

// Whether a run takes the deterministic mode's turns: in that mode, and
// where the atomic mode's grid (kv heads, key tiles, batch) cannot hold the
// key tiles (more than 65535 of the smallest, 64 keys: over 4,194,240
// keys), whose runs take the deterministic kernels (their grid (key tiles,
// kv heads, batch) holds 2^31 - 1).
constexpr int64_t kSdpaBackwardMostAtomicKeyTiles = 65535;
inline bool sdpa_backward_takes_turns(const SdpaProblem &p) {
  constexpr int kFewestKeys = SdpaBackwardTraits<64>::kKeys;
  static_assert(kFewestKeys <= SdpaBackwardTraits<128>::kKeys && kFewestKeys <= SdpaBackwardTraits<256>::kKeys,
                "the 64 tile's key tiles the shortest");
  return p.deterministic || (p.keys + kFewestKeys - 1) / kFewestKeys > kSdpaBackwardMostAtomicKeyTiles;
}

// Whether a view's rows start on 16 bytes (its data and every outer stride):
// cp.async's 16-byte chunks of q, k, v and dout, the delta pass's vectors.
inline bool rows_are_16_byte_aligned(const void *data, const int64_t (&stride)[3], int64_t element_bytes) {
  if (reinterpret_cast<uintptr_t>(data) % 16 != 0) return false;
  for (int64_t s : stride)
    if ((s * element_bytes) % 16 != 0) return false;
  return true;
}

// Whether the delta pass reads out and dout 16 bytes a lane
// (sdpa_backward_delta_kernel_16, sdpa_backward_rows.cuh): Dv 32 or 64 (a
// power of two of lanes a row, and where it measured faster) and both
// views' rows on 16 bytes.
inline bool sdpa_backward_delta_reads_16_bytes(const SdpaProblem &p, int64_t element_bytes) {
  return (p.head_dim_v == 32 || p.head_dim_v == 64) &&
         rows_are_16_byte_aligned(p.out.data, p.out.stride, element_bytes) &&
         rows_are_16_byte_aligned(p.dout.data, p.dout.stride, element_bytes);
}

// Whether the main kernel's grid fits CUDA's limits: (key tiles, kv heads,
// batch) where the run takes turns, else (kv heads, key tiles, batch) (a run
// that takes turns by rank, deterministic_by_rank, holds no more key tiles
// than that).
inline bool sdpa_backward_grid_fits(const SdpaProblem &p, int head_tile) {
  const int keys = sdpa_backward_tile_facts(head_tile).keys;
  const int64_t key_tiles = (p.keys + keys - 1) / keys;
  const bool turns = sdpa_backward_takes_turns(p);
  const int64_t along_x = turns ? key_tiles : p.heads_kv, along_y = turns ? p.heads_kv : key_tiles;
  return along_x <= INT32_MAX && along_y <= 65535 && p.batch <= 65535;
}

// Every head tile's narrow tiles walk queries in tiles of the same height,
// so the deterministic mode's counters (one per query tile) do not depend on
// it; a wide tile's taller query tiles use the first of them.
constexpr int kSdpaBackwardQueryTile = SdpaBackwardTraits<64>::kQueries;
static_assert(SdpaBackwardTraits<128>::kQueries == kSdpaBackwardQueryTile &&
                  SdpaBackwardTraits<256>::kQueries == kSdpaBackwardQueryTile,
              "one query tile height for every head tile");

// Byte offsets in the workspace: delta = rowsum(dout * out) per query row
// (f32), the f32 dq accumulator [B, Hq, Q, D] (dense), and where the run
// takes turns (sdpa_backward_takes_turns) one int32 turn counter per (b,
// query head, query tile).
struct SdpaBackwardWorkspaceLayout {
  size_t delta, dq, counters, bytes;
};

inline size_t sdpa_align_up_256(size_t n) { return (n + 255) / 256 * 256; }

inline SdpaBackwardWorkspaceLayout sdpa_backward_workspace_layout(const SdpaProblem &p) {
  const size_t rows = static_cast<size_t>(p.batch) * static_cast<size_t>(p.heads_q) * static_cast<size_t>(p.queries);
  const size_t query_tiles = static_cast<size_t>((p.queries + kSdpaBackwardQueryTile - 1) / kSdpaBackwardQueryTile);
  SdpaBackwardWorkspaceLayout w;
  w.delta = 0;
  w.dq = sdpa_align_up_256(rows * sizeof(float));
  w.counters = w.dq + sdpa_align_up_256(rows * static_cast<size_t>(p.head_dim) * sizeof(float));
  const size_t counters =
      sdpa_backward_takes_turns(p) ? static_cast<size_t>(p.batch) * static_cast<size_t>(p.heads_q) * query_tiles : 0;
  w.bytes = w.counters + sdpa_align_up_256(counters * sizeof(int32_t));
  return w;
}

}  // namespace baracuda::kernels
