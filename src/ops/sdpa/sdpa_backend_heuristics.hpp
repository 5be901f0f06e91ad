// Which attention implementation select puts first where both serve it:
// cuDNN's fused attention or the bespoke kernels. The rows are measurements
// from the GPU machine (bench/sdpa_candidates.cu forces each candidate on the
// same shapes; bench/NOTES.md keeps the timings); a shape no row covers goes
// to the bespoke kernels, which is also every arch cuDNN was not measured on.
// Plain functions, tested on the CPU (tests/cpu/test_sdpa_backend_heuristics.cpp).
#pragma once

#include <cstdint>

#include "baracuda/core.h"

namespace baracuda::sdpa {

enum class Faster { Cudnn, Bespoke };

// What the table looks at: the problem's class on the target arch.
struct ShapeClass {
  int32_t sm;
  bool backward;
  baracuda_dtype_t dtype;
  int32_t head_dim;  // max(D, Dv)
  bool causal;
  int64_t batch_heads;  // B * Hq
  int64_t queries, keys;
  bool deterministic = false;  // the backward's deterministic mode
};

// One measured region: the first row that covers a shape decides.
struct MeasuredRegion {
  int32_t sm;
  int32_t pass;   // 0 forward, 1 backward, -1 both; 2 the atomic backward alone, 3 the deterministic one alone
  int32_t dtype;  // a baracuda_dtype_t, or 0 for f16 and bf16 alike
  int32_t min_head_dim, max_head_dim;
  int32_t causal;  // 0, 1, or -1 for both
  int64_t min_batch_heads, max_batch_heads, min_queries, max_queries, min_keys, max_keys;
  Faster faster;
};

inline constexpr int64_t kAny = INT64_MAX;

// H200 (sm 90), cuDNN 9.14 (the system's), 2026-11-26: the grid of
// bench_ops "sdpa_grid", f16 and bf16 alike, D 64 / 128 / 256, both causal
// modes, B*H 16 to 512, Q = K from 512 to 4096, Q 256 at K 8192, and
// decoding (Q 1, K 4096, B*H 256). cuDNN ran 1.03x to 2.7x the sm_80 kernel
// forward and 1.2x to 3.6x backward on every shape but one: the decoding
// step at D 256, where the sm_80 forward ran 1.25x (non-causal) and 2x
// (causal) cuDNN's (the Hopper forward, first among the bespoke kernels on
// sm 90 since session 18, runs 2.7x the sm_80 one there). At D 64 the
// decoding step was a tie (1.00x to 1.05x).
// H200, session 18's probe (bench/probes/sdpa_forward_sm90, bf16, cuDNN
// 9.19 through PyTorch timed in the same call; bench/NOTES.md): on problems
// of at most 16 (b, h) at 1024 and 2048 queries and keys (fewer query tiles
// than SMs), the Hopper forward ran 1.2x to 2.4x cuDNN's single calls at
// D 64 and 128, both causal modes, in six calls over two sessions, and
// 0.97x to 1.25x timed over 20 calls back to back (no host time between
// them; two calls); at D 256 0.98x to 1.46x single, 0.85x-0.86x / 0.98x
// back to back, so cuDNN kept D 256 then.
// H200, session 20: the grid of bench/probes/sdpa_forward_sm90 (`grid`
// mode: the Hopper forward and this backend's cuDNN 9.14 launched in turn
// in one process, median of 11; f16 and bf16; bench/NOTES.md). At D 256 the
// Hopper forward ran 1.04x to 1.28x cuDNN without a mask from B*H 16 to 512
// at 512 to 8192 queries and keys (1.00x at B*H 512 with 512); under a
// causal mask 1.01x to 1.36x from 1024 queries and keys up to B*H 256
// (1.23x at B*H 8 with 16384), but 0.90x at B*H 512 with 1024 and 0.91x
// with 512. At D 192 (the
// same 256-column tiles, a quarter of their products on zero columns) cuDNN
// ran 1.03x to 1.29x it on all but the smallest problems, so only D 256
// moved.
// H200, session 21: the Hopper forward now skips S's 64-column slabs past D
// (1.03-1.11x its session 20 self at D 192, bits unchanged); against this
// backend's cuDNN in one process at D 192 it leads under a causal mask with
// at most 16 (b, h) from 4096 queries and keys (bf16 1.17x / 1.15x at B*H
// 16 with 4096, 1.23x / 1.18x at B*H 8 with 8192 in two rounds; f16 1.16x
// and 1.20x), not with 32 (b, h) (0.92-1.06x), at B*H 16 Q 2048 K 8192
// (0.94-1.02x) or without a mask (0.82-1.02x): D 192 moves there only.
// H200, session 22: bench_ops "sdpa_grid" at D 256 (bf16, the backward
// candidates in turn in one process, this backend's cuDNN 9.14). The Hopper
// backward ran 1.03x to 1.17x cuDNN's without a mask from B*H 16 to 512 at
// 512 to 4096 queries and keys (0.98x at B*H 32 with 4096), 1.06x to 1.11x
// under a causal mask at 512 and 2048 (B*H 16 to 512), 0.92x at Q 256 K 8192
// and 0.74x decoding; its deterministic mode 0.78x to 1.04x cuDNN's
// deterministic one (0.90x or less on most points): the atomic backward
// moves there, bf16 only (f16 was not measured).
// H200, session 23: the grid of bench/probes/sdpa_forward_sm90 at D 64
// (the Hopper forward with the 64-column tile's whole key tiles found once,
// bf16 and f16, this backend's cuDNN 9.14 in one process, median of 7). The
// Hopper forward ran 1.05x to 1.08x cuDNN at B*H 128 with 1024 (both masks),
// under a causal mask 1.05x at B*H 64 with 2048, 1.17x / 1.20x at B*H 16 with
// 4096 and 1.17x / 1.14x at B*H 8 with 8192 (bf16 / f16); but 0.93x-1.00x
// causal at B*H 512 with 1024, 256 with 2048, 32 with 8192 and 0.96x-1.04x at
// B*H 64 with 4096, 0.96x-1.07x unmasked past B*H 16 elsewhere: the forward
// at D 64 moves to it at those (b, h) counts and shorter rows between
// them (the first row below already holds 16 (b, h) at 1024 to 2048).
// H200, session 23: the grid of bench/probes/sdpa_forward_sm90 at D 128
// (`grid` mode, the branch's Hopper forward, whose producer now deals the
// causal tail, against this backend's cuDNN 9.14 launched in turn in one
// process, median of 9): bf16, both masks, B*H 16 to 512, Q = K 512 to
// 16384 (12 points), it ran 0.998x to 1.087x cuDNN unmasked (0.998x / 1.000x
// at B*H 512 with 1024 / 512 queries, 1.002x at B*H 64 with 8192) and 1.008x
// to 1.253x causal; f16 unmasked at 16 to 128 (b, h) from 4096 to 16384
// 1.027x to 1.063x. The D 128 forward (heads over 64 up to 128) moves
// there.
// Session 24 (H200): the probe's grid (bench/probes/sdpa_forward_sm90, the
// Hopper D 64 forward with the causal tail from 8 query tiles and four
// trimmed consumers from 2048 queries, against this backend's cuDNN 9.14)
// read the causal D 64 forward 1.065x cuDNN at 256 (b, h) with 1024, but
// the plans timed in turn in one process (bench/sdpa_same_process.py, the
// README's measure) read it 0.955x at B16 H16 S1024 in the same session;
// the causal D 64 regions stay session 23's until the plans' own measure
// backs a wider one.
inline constexpr MeasuredRegion kMeasuredRegions[] = {
    {90, 0, 0, 8, 128, -1, 1, 16, 1024, 2048, 1024, 2048, Faster::Bespoke},
    {90, 0, 0, 8, 64, -1, 1, 128, 1024, 1024, 1024, 1024, Faster::Bespoke},
    {90, 0, 0, 8, 64, 1, 1, 64, 1024, 2048, 1024, 2048, Faster::Bespoke},
    {90, 0, 0, 8, 64, 1, 1, 16, 2049, 4096, 2049, 4096, Faster::Bespoke},
    {90, 0, 0, 8, 64, 1, 1, 8, 4097, 8192, 4097, 8192, Faster::Bespoke},
    {90, 0, 0, 65, 128, -1, 16, 512, 512, 16384, 512, 16384, Faster::Bespoke},
    {90, 0, 0, 129, 256, -1, 1, kAny, 1, 1, 1, kAny, Faster::Bespoke},
    {90, 0, 0, 249, 256, 0, 1, 512, 512, kAny, 512, kAny, Faster::Bespoke},
    {90, 0, 0, 249, 256, 1, 1, 256, 1024, kAny, 1024, kAny, Faster::Bespoke},
    {90, 0, 0, 192, 192, 1, 1, 16, 4096, kAny, 4096, kAny, Faster::Bespoke},
    {90, 2, BARACUDA_DTYPE_BF16, 249, 256, 0, 16, 512, 512, 4096, 512, 4096, Faster::Bespoke},
    {90, 2, BARACUDA_DTYPE_BF16, 249, 256, 1, 16, 512, 512, 2048, 512, 2048, Faster::Bespoke},
    {90, -1, 0, 8, 256, -1, 1, kAny, 1, kAny, 1, kAny, Faster::Cudnn},
};

constexpr bool covers_pass(int32_t pass, const ShapeClass &c) {
  if (pass < 0) return true;
  if (!c.backward) return pass == 0;
  return pass == 1 || pass == (c.deterministic ? 3 : 2);
}

constexpr bool covers(const MeasuredRegion &r, const ShapeClass &c) {
  return r.sm == c.sm && covers_pass(r.pass, c) &&
         (r.dtype == 0 || r.dtype == c.dtype) && c.head_dim >= r.min_head_dim && c.head_dim <= r.max_head_dim &&
         (r.causal < 0 || r.causal == static_cast<int32_t>(c.causal)) && c.batch_heads >= r.min_batch_heads &&
         c.batch_heads <= r.max_batch_heads && c.queries >= r.min_queries && c.queries <= r.max_queries &&
         c.keys >= r.min_keys && c.keys <= r.max_keys;
}

constexpr Faster faster_backend(const ShapeClass &c) {
  for (const MeasuredRegion &r : kMeasuredRegions)
    if (covers(r, c)) return r.faster;
  return Faster::Bespoke;
}

}  // namespace baracuda::sdpa
