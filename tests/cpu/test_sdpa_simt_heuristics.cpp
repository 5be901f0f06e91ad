// The CUDA-core attention's host rules (kernels/sdpa/sdpa_simt_heuristics.h,
// sdpa_simt_mask.h): head-size classes, shared memory within each arch's
// limit, the grid bound, the workspace, and the tile spans and element mask
// against a brute-force walk over every (i, j). No GPU.
#include <catch2/catch.hpp>

#include "sdpa/sdpa_simt_heuristics.h"
#include "sdpa/sdpa_simt_mask.h"

using baracuda::kernels::sdpa_simt_all_seen;
using baracuda::kernels::sdpa_simt_backward_smem;
using baracuda::kernels::sdpa_simt_backward_workspace;
using baracuda::kernels::sdpa_simt_blocks;
using baracuda::kernels::sdpa_simt_forward_smem;
using baracuda::kernels::sdpa_simt_head_class;
using baracuda::kernels::sdpa_simt_key_span;
using baracuda::kernels::sdpa_simt_query_span;
using baracuda::kernels::sdpa_simt_sees;
using baracuda::kernels::SdpaSimtMask;
using baracuda::kernels::SdpaSimtSpan;
using baracuda::kernels::SdpaSimtTile;
using baracuda::kernels::SdpaSimtTraits;

TEST_CASE("sdpa simt: head-size classes", "[heuristics][sdpa]") {
  CHECK(sdpa_simt_head_class(8, 8) == 64);
  CHECK(sdpa_simt_head_class(64, 64) == 64);
  CHECK(sdpa_simt_head_class(64, 72) == 128);
  CHECK(sdpa_simt_head_class(136, 8) == 256);
  CHECK(sdpa_simt_head_class(256, 256) == 256);
  CHECK(sdpa_simt_head_class(264, 8) == 0);
}

TEST_CASE("sdpa simt: tiles fit their threads and shared memory", "[heuristics][sdpa]") {
  constexpr size_t kHopper = 227 * 1024, kAmpere = 163 * 1024, kAda = 99 * 1024;
  for (int bytes : {4, 8})
    for (int c : SdpaSimtTraits::kClasses)
      for (bool compact : {false, true}) {
        INFO("bytes " << bytes << " class " << c << " compact " << compact);
        for (SdpaSimtTile t : {SdpaSimtTraits::forward(bytes, c, compact), SdpaSimtTraits::backward(bytes, c, compact)}) {
          CHECK(t.rows % 16 == 0);
          CHECK(t.cols % 16 == 0);
          // P's row pitch, cols + one vector, an odd number of 16-byte units.
          CHECK((t.cols * bytes / 16) % 2 == 0);
        }
        const size_t fwd = sdpa_simt_forward_smem(bytes, c, c, SdpaSimtTraits::forward(bytes, c, compact));
        const size_t bwd = sdpa_simt_backward_smem(bytes, c, c, SdpaSimtTraits::backward(bytes, c, compact));
        CHECK(fwd <= kHopper);
        CHECK(bwd <= kHopper);
        if (compact) {
          CHECK(fwd <= kAda);
          // Only the f64 backward at D over 128 is past sm_86 / sm_89 (it still fits sm_80).
          if (bytes == 4 || c <= 128) CHECK(bwd <= kAda);
          CHECK(bwd <= kAmpere);
        }
      }
  // f32 at D = 64: two forward blocks per SM on Hopper (228 KiB, 1 KiB reserved per block).
  CHECK(2 * (sdpa_simt_forward_smem(4, 64, 64, SdpaSimtTraits::forward(4, 64, false)) + 1024) <= 228 * 1024);
}

TEST_CASE("sdpa simt: grid bound and workspace", "[heuristics][sdpa]") {
  CHECK(sdpa_simt_blocks(4, 16, 2048, 128) == 4 * 16 * 16);
  CHECK(sdpa_simt_blocks(1, 1, 1, 128) == 1);
  CHECK(sdpa_simt_blocks(2, 3, 0, 64) == 0);
  CHECK(sdpa_simt_blocks(0, 3, 10, 64) == 0);
  CHECK(sdpa_simt_blocks(1, 1, (int64_t{1} << 31) * 16, 16) == -1);
  CHECK(sdpa_simt_blocks(65536, 65536, 64, 16) == -1);
  CHECK(sdpa_simt_backward_workspace(2, 3, 5) == 2 * 3 * 5 * 8);
  CHECK(sdpa_simt_backward_workspace(2, 3, 0) == 0);
}

namespace {
bool sees(const SdpaSimtMask &m, int64_t i, int64_t j) {
  return i < m.queries && j < m.keys && sdpa_simt_sees(m, j - i - m.shift);
}
}  // namespace

TEST_CASE("sdpa simt: tile spans and the all-seen test match the element mask", "[heuristics][sdpa]") {
  for (int64_t q : {1, 5, 17, 40})
    for (int64_t k : {1, 6, 19, 40})
      for (bool causal : {false, true})
        for (bool bottom_right : {false, true})
          for (int64_t wl : {-1, 0, 3, 100})
            for (int64_t wr : {-1, 0, 2}) {
              const SdpaSimtMask m{q, k, bottom_right ? k - q : 0, wl, wr, causal};
              INFO("Q " << q << " K " << k << " causal " << causal << " br " << bottom_right << " wl " << wl
                        << " wr " << wr);
              for (int64_t i0 = 0; i0 < q; i0 += 4)
                for (int64_t j0 = 0; j0 < k; j0 += 8) {
                  const int64_t i1 = i0 + 4, j1 = j0 + 8;
                  bool all = true;
                  for (int64_t i = i0; i < i1; ++i)
                    for (int64_t j = j0; j < j1; ++j) all &= sees(m, i, j);
                  // Every key a query of [i0, i1) sees lies in the key span, and
                  // every query that sees a key of [j0, j1) in the query span.
                  const SdpaSimtSpan ks = sdpa_simt_key_span(m, i0, i1 < q ? i1 : q);
                  const SdpaSimtSpan qs = sdpa_simt_query_span(m, j0, j1 < k ? j1 : k);
                  for (int64_t i = i0; i < i1 && i < q; ++i)
                    for (int64_t j = 0; j < k; ++j)
                      if (sees(m, i, j)) {
                        CHECK(j >= ks.begin);
                        CHECK(j < ks.end);
                      }
                  for (int64_t j = j0; j < j1 && j < k; ++j)
                    for (int64_t i = 0; i < q; ++i)
                      if (sees(m, i, j)) {
                        CHECK(i >= qs.begin);
                        CHECK(i < qs.end);
                      }
                  CHECK(sdpa_simt_all_seen(m, i0, i1, j0, j1) == all);
                }
            }
}
