// Which keys a query sees (causal, window, lengths), per element and per
// tile, so the kernels visit only the tiles that hold a visible score and
// apply the element mask only where a tile is partly hidden. Host and
// device; tested on the CPU. Position i' = i + shift (shift = K - Q for the
// bottom-right alignment, else 0); bounds clamp before they could overflow.
#pragma once

#include <cstdint>

#include "common/host_device.h"

namespace baracuda::kernels {

struct SdpaSimtMask {
  int64_t queries, keys;
  int64_t shift;                      // i' - i
  int64_t window_left, window_right;  // -1: unbounded
  bool causal;
};

struct SdpaSimtSpan {
  int64_t begin, end;  // empty when end <= begin
};

// Whether query i sees key j, given d = j - i' and that i and j lie inside
// the problem.
BARACUDA_HOST_DEVICE_INLINE bool sdpa_simt_sees(const SdpaSimtMask &m, int64_t d) {
  return (!m.causal || d <= 0) && (m.window_left < 0 || -d <= m.window_left) &&
         (m.window_right < 0 || d <= m.window_right);
}

// The keys that at least one query of [i0, i1) may see (0 <= i0 < i1).
BARACUDA_HOST_DEVICE_INLINE SdpaSimtSpan sdpa_simt_key_span(const SdpaSimtMask &m, int64_t i0, int64_t i1) {
  const int64_t first = i0 + m.shift, last = i1 - 1 + m.shift;  // i' of the first and last query
  SdpaSimtSpan s{0, m.keys};
  if (m.causal && last + 1 < s.end) s.end = last + 1;
  if (m.window_right >= 0 && m.window_right < s.end - last - 1) s.end = last + 1 + m.window_right;
  if (m.window_left >= 0 && m.window_left < first) s.begin = first - m.window_left;
  return s;
}

// The queries that see at least one key of [j0, j1) (0 <= j0 < j1).
BARACUDA_HOST_DEVICE_INLINE SdpaSimtSpan sdpa_simt_query_span(const SdpaSimtMask &m, int64_t j0, int64_t j1) {
  SdpaSimtSpan s{0, m.queries};
  const int64_t first = j0 - m.shift;  // the query whose i' is j0
  if (m.causal && first > s.begin) s.begin = first;
  if (m.window_right >= 0 && m.window_right < first - s.begin) s.begin = first - m.window_right;
  const int64_t last = j1 - 1 - m.shift;  // the query whose i' is j1 - 1
  if (m.window_left >= 0 && m.window_left < s.end - last - 1) s.end = last + 1 + m.window_left;
  return s;
}

// Whether every query of [i0, i1) sees every key of [j0, j1): then the tile
// needs no element mask.
BARACUDA_HOST_DEVICE_INLINE bool sdpa_simt_all_seen(const SdpaSimtMask &m, int64_t i0, int64_t i1, int64_t j0,
                                                    int64_t j1) {
  if (i1 > m.queries || j1 > m.keys) return false;
  const int64_t most = j1 - 1 - (i0 + m.shift), least = j0 - (i1 - 1 + m.shift);  // extremes of d = j - i'
  return (!m.causal || most <= 0) && (m.window_left < 0 || -least <= m.window_left) &&
         (m.window_right < 0 || most <= m.window_right);
}

}  // namespace baracuda::kernels
