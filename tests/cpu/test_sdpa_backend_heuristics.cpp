// The measured table that orders cuDNN and the bespoke attention kernels
// (src/ops/sdpa/sdpa_backend_heuristics.hpp): what it says per arch and shape.
#include <utility>

#include "cpu_helpers.hpp"
#include "ops/sdpa/sdpa_backend_heuristics.hpp"

using baracuda::sdpa::Faster;
using baracuda::sdpa::ShapeClass;

namespace {

ShapeClass shape(int32_t sm, bool backward, int32_t head_dim, bool causal, int64_t batch_heads, int64_t q, int64_t k) {
  return {sm, backward, BARACUDA_DTYPE_BF16, head_dim, causal, batch_heads, q, k};
}

}  // namespace

TEST_CASE("sdpa backends: the table puts cuDNN first on the measured sm 90 shapes", "[sdpa]") {
  for (bool backward : {false, true})
    for (bool causal : {false, true}) {
      INFO("backward " << backward << " causal " << causal);
      if (backward) CHECK(faster_backend(shape(90, backward, 128, causal, 128, 4096, 4096)) == Faster::Cudnn);
      CHECK(faster_backend(shape(90, backward, 64, causal, 256, 1024, 1024)) == Faster::Cudnn);
      CHECK(faster_backend(shape(90, backward, 192, causal, 128, 2048, 2048)) == Faster::Cudnn);
    }
  for (bool causal : {false, true}) {
    ShapeClass deterministic = shape(90, true, 256, causal, 128, 2048, 2048);
    deterministic.deterministic = true;
    CHECK(faster_backend(deterministic) == Faster::Cudnn);
  }
}

TEST_CASE("sdpa backends: the atomic backward at D 256 (bf16) goes to the Hopper kernel from 512 queries and keys, "
          "up to 4096 unmasked and 2048 causal, from 16 to 512 (b, h)",
          "[sdpa]") {
  for (bool causal : {false, true}) {
    INFO("causal " << causal);
    const int64_t most = causal ? 2048 : 4096;
    CHECK(faster_backend(shape(90, true, 256, causal, 128, 2048, 2048)) == Faster::Bespoke);
    CHECK(faster_backend(shape(90, true, 256, causal, 16, 512, 512)) == Faster::Bespoke);
    CHECK(faster_backend(shape(90, true, 256, causal, 512, most, most)) == Faster::Bespoke);
    CHECK(faster_backend(shape(90, true, 249, causal, 64, 1024, 1024)) == Faster::Bespoke);
    // Past the measured box, and the points where cuDNN led: decoding, Q 256 K 8192.
    CHECK(faster_backend(shape(90, true, 256, causal, 15, 2048, 2048)) == Faster::Cudnn);
    CHECK(faster_backend(shape(90, true, 256, causal, 513, 1024, 1024)) == Faster::Cudnn);
    CHECK(faster_backend(shape(90, true, 256, causal, 64, 511, 512)) == Faster::Cudnn);
    CHECK(faster_backend(shape(90, true, 256, causal, 64, most + 1, most + 1)) == Faster::Cudnn);
    CHECK(faster_backend(shape(90, true, 256, causal, 256, 1, 4096)) == Faster::Cudnn);
    CHECK(faster_backend(shape(90, true, 256, causal, 32, 256, 8192)) == Faster::Cudnn);
    CHECK(faster_backend(shape(90, true, 248, causal, 128, 2048, 2048)) == Faster::Cudnn);
    // f16 was not measured; the deterministic mode stays with cuDNN's deterministic backward.
    ShapeClass f16 = shape(90, true, 256, causal, 128, 2048, 2048);
    f16.dtype = BARACUDA_DTYPE_F16;
    CHECK(faster_backend(f16) == Faster::Cudnn);
    ShapeClass deterministic = shape(90, true, 256, causal, 128, 2048, 2048);
    deterministic.deterministic = true;
    CHECK(faster_backend(deterministic) == Faster::Cudnn);
  }
  CHECK(faster_backend(shape(90, true, 256, true, 32, 4096, 4096)) == Faster::Cudnn);  // causal past 2048: not measured
}

TEST_CASE("sdpa backends: a region's pass names the forward, the backward or one backward mode", "[sdpa]") {
  using baracuda::sdpa::covers_pass;
  ShapeClass c = shape(90, false, 128, false, 128, 4096, 4096);
  CHECK(covers_pass(0, c));
  CHECK(covers_pass(-1, c));
  for (int32_t pass : {1, 2, 3}) CHECK_FALSE(covers_pass(pass, c));
  c.backward = true;
  CHECK_FALSE(covers_pass(0, c));
  CHECK(covers_pass(1, c));
  CHECK(covers_pass(2, c));
  CHECK_FALSE(covers_pass(3, c));
  c.deterministic = true;
  CHECK(covers_pass(1, c));
  CHECK_FALSE(covers_pass(2, c));
  CHECK(covers_pass(3, c));
}

TEST_CASE("sdpa backends: the forward at D 256 goes to the Hopper kernel from 512 queries and keys unmasked (up to "
          "512 (b, h)), from 1024 causal (up to 256 (b, h))",
          "[sdpa]") {
  for (bool causal : {false, true}) {
    INFO("causal " << causal);
    CHECK(faster_backend(shape(90, false, 256, causal, 16, 1024, 1024)) == Faster::Bespoke);
    CHECK(faster_backend(shape(90, false, 256, causal, 128, 1024, 1024)) == Faster::Bespoke);
    CHECK(faster_backend(shape(90, false, 256, causal, 256, 2048, 2048)) == Faster::Bespoke);
    CHECK(faster_backend(shape(90, false, 256, causal, 32, 8192, 8192)) == Faster::Bespoke);
    CHECK(faster_backend(shape(90, false, 256, causal, 32, 1024, 4096)) == Faster::Bespoke);
    CHECK(faster_backend(shape(90, false, 256, causal, 16, 2048, 8192)) == Faster::Bespoke);
    CHECK(faster_backend(shape(90, false, 256, causal, 16, 256, 8192)) == Faster::Cudnn);
    // D 192 (and the sizes up to 248 that share its 256-column tiles) stays with cuDNN, but D 192 causal
    // with few (b, h) on long rows (below).
    for (int32_t d : {136, 192, 248}) {
      INFO("D " << d);
      CHECK(faster_backend(shape(90, false, d, causal, 128, 2048, 2048)) == Faster::Cudnn);
      if (d != 192 || !causal) CHECK(faster_backend(shape(90, false, d, causal, 16, 4096, 4096)) == Faster::Cudnn);
    }
  }
  // D 192 under a causal mask: the Hopper kernel up to 16 (b, h) from 4096 queries and keys.
  CHECK(faster_backend(shape(90, false, 192, true, 16, 4096, 4096)) == Faster::Bespoke);
  CHECK(faster_backend(shape(90, false, 192, true, 8, 8192, 8192)) == Faster::Bespoke);
  CHECK(faster_backend(shape(90, false, 192, true, 1, 4096, 16384)) == Faster::Bespoke);
  CHECK(faster_backend(shape(90, false, 192, true, 17, 4096, 4096)) == Faster::Cudnn);
  CHECK(faster_backend(shape(90, false, 192, true, 32, 8192, 8192)) == Faster::Cudnn);
  CHECK(faster_backend(shape(90, false, 192, true, 16, 2048, 8192)) == Faster::Cudnn);
  CHECK(faster_backend(shape(90, false, 192, true, 16, 4096, 4095)) == Faster::Cudnn);
  CHECK(faster_backend(shape(90, true, 192, true, 16, 4096, 4096)) == Faster::Cudnn);
  for (int32_t d : {176, 200}) CHECK(faster_backend(shape(90, false, d, true, 16, 4096, 4096)) == Faster::Cudnn);
  // Unmasked: up to 512 (b, h) from 512 queries and keys.
  CHECK(faster_backend(shape(90, false, 256, false, 512, 512, 512)) == Faster::Bespoke);
  CHECK(faster_backend(shape(90, false, 256, false, 512, 1024, 1024)) == Faster::Bespoke);
  CHECK(faster_backend(shape(90, false, 256, false, 513, 1024, 1024)) == Faster::Cudnn);
  CHECK(faster_backend(shape(90, false, 256, false, 64, 511, 512)) == Faster::Cudnn);
  CHECK(faster_backend(shape(90, false, 256, false, 64, 512, 511)) == Faster::Cudnn);
  // Causal: up to 256 (b, h); more of them on short rows stay with cuDNN (0.90x at 512 (b, h), 1024 queries).
  CHECK(faster_backend(shape(90, false, 256, true, 256, 1024, 1024)) == Faster::Bespoke);
  CHECK(faster_backend(shape(90, false, 256, true, 8, 16384, 16384)) == Faster::Bespoke);
  CHECK(faster_backend(shape(90, false, 256, true, 257, 1024, 1024)) == Faster::Cudnn);
  CHECK(faster_backend(shape(90, false, 256, true, 512, 1024, 1024)) == Faster::Cudnn);
  CHECK(faster_backend(shape(90, false, 256, true, 257, 2048, 2048)) == Faster::Cudnn);
  CHECK(faster_backend(shape(90, false, 256, true, 64, 512, 512)) == Faster::Cudnn);
  CHECK(faster_backend(shape(90, false, 256, true, 64, 1023, 1024)) == Faster::Cudnn);
}

TEST_CASE("sdpa backends: the decoding step past D 128 forward goes to the sm_80 kernel, its backward to cuDNN",
          "[sdpa]") {
  for (bool causal : {false, true}) {
    CHECK(faster_backend(shape(90, false, 256, causal, 256, 1, 4096)) == Faster::Bespoke);
    CHECK(faster_backend(shape(90, false, 192, causal, 256, 1, 4096)) == Faster::Bespoke);
    CHECK(faster_backend(shape(90, true, 256, causal, 256, 1, 4096)) == Faster::Cudnn);
    CHECK(faster_backend(shape(90, false, 128, causal, 256, 1, 4096)) == Faster::Cudnn);
    CHECK(faster_backend(shape(90, false, 256, causal, 32, 256, 8192)) == Faster::Cudnn);
  }
}

TEST_CASE("sdpa backends: the forward of at most 16 (b, h) at 1024 to 2048 queries and keys goes to the Hopper kernel "
          "up to D 128",
          "[sdpa]") {
  for (bool causal : {false, true}) {
    for (int32_t d : {64, 128}) {
      INFO("causal " << causal << " D " << d);
      CHECK(faster_backend(shape(90, false, d, causal, 8, 2048, 2048)) == Faster::Bespoke);
      CHECK(faster_backend(shape(90, false, d, causal, 16, 1024, 1024)) == Faster::Bespoke);
      CHECK(faster_backend(shape(90, true, d, causal, 16, 1024, 1024)) == Faster::Cudnn);
      if (d == 64) {  // D 128 holds these in its own measured grid (below)
        CHECK(faster_backend(shape(90, false, d, causal, 16, 1024, 4096)) == Faster::Cudnn);
        CHECK(faster_backend(shape(90, false, d, causal, 16, 512, 512)) == Faster::Cudnn);
      }
    }
  }
}

TEST_CASE("sdpa backends: the D 64 forward goes to the Hopper kernel up to 128 (b, h) at 1024, and causal up to 64 "
          "at 2048, 16 at 4096 and 8 at 8192",
          "[sdpa]") {
  for (int32_t d : {32, 64}) {
    INFO("D " << d);
    for (bool causal : {false, true}) {
      INFO("causal " << causal);
      CHECK(faster_backend(shape(90, false, d, causal, 128, 1024, 1024)) == Faster::Bespoke);
      CHECK(faster_backend(shape(90, false, d, causal, 129, 1024, 1024)) == Faster::Cudnn);
      CHECK(faster_backend(shape(90, true, d, causal, 128, 1024, 1024)) == Faster::Cudnn);
    }
    // Unmasked past 16 (b, h) only at 1024.
    CHECK(faster_backend(shape(90, false, d, false, 64, 2048, 2048)) == Faster::Cudnn);
    CHECK(faster_backend(shape(90, false, d, false, 17, 1025, 1025)) == Faster::Cudnn);
    // The causal regions' edges: the most (b, h) the Hopper kernel takes at each length.
    for (const auto &[most, length] : {std::pair<int64_t, int64_t>{64, 2048}, {16, 4096}, {8, 8192}}) {
      INFO("causal edge " << most << " (b, h) at " << length);
      CHECK(faster_backend(shape(90, false, d, true, most, length, length)) == Faster::Bespoke);
      CHECK(faster_backend(shape(90, false, d, true, most + 1, length, length)) == Faster::Cudnn);
    }
    CHECK(faster_backend(shape(90, false, d, true, 8, 16384, 16384)) == Faster::Cudnn);
    CHECK(faster_backend(shape(90, false, d, true, 16, 2048, 4096)) == Faster::Cudnn);
  }
  // Beyond D 64 the 128-column tile's own grid decides (below): the Hopper kernel up to 512 (b, h).
  CHECK(faster_backend(shape(90, false, 65, true, 16, 4096, 4096)) == Faster::Bespoke);
  CHECK(faster_backend(shape(90, false, 96, false, 513, 1024, 1024)) == Faster::Cudnn);
}

TEST_CASE("sdpa backends: the forward at D 128 goes to the Hopper kernel from 16 to 512 (b, h) at 512 to 16384 "
          "queries and keys",
          "[sdpa]") {
  for (baracuda_dtype_t dt : {BARACUDA_DTYPE_BF16, BARACUDA_DTYPE_F16})
    for (bool causal : {false, true}) {
      INFO("causal " << causal << " dtype " << dt);
      const auto at = [&](int32_t d, int64_t bh, int64_t q, int64_t k, bool backward = false) {
        ShapeClass c = shape(90, backward, d, causal, bh, q, k);
        c.dtype = dt;
        return faster_backend(c);
      };
      // {D, B*H, Q, K, backward, which}: inside the grid, then past it, at D 64 (its own regions) and backward.
      const struct {
        int32_t d;
        int64_t bh, q, k;
        bool backward;
        Faster faster;
      } points[] = {{128, 128, 4096, 4096, false, Faster::Bespoke},  {128, 64, 8192, 8192, false, Faster::Bespoke},
                    {128, 16, 16384, 16384, false, Faster::Bespoke}, {128, 512, 512, 512, false, Faster::Bespoke},
                    {128, 17, 1024, 1024, false, Faster::Bespoke},   {96, 256, 2048, 2048, false, Faster::Bespoke},
                    {72, 32, 4096, 4096, false, Faster::Bespoke},    {128, 513, 1024, 1024, false, Faster::Cudnn},
                    {128, 15, 4096, 4096, false, Faster::Cudnn},     {128, 64, 511, 512, false, Faster::Cudnn},
                    {128, 16, 16385, 16385, false, Faster::Cudnn},   {64, 128, 4096, 4096, false, Faster::Cudnn},
                    {136, 128, 4096, 4096, false, Faster::Cudnn},    {128, 128, 4096, 4096, true, Faster::Cudnn}};
      for (const auto &pt : points) {
        INFO("D " << pt.d << " B*H " << pt.bh << " Q " << pt.q << " K " << pt.k << " backward " << pt.backward);
        CHECK(at(pt.d, pt.bh, pt.q, pt.k, pt.backward) == pt.faster);
      }
    }
}

TEST_CASE("sdpa backends: archs the table has no measurement for go to the bespoke kernels", "[sdpa]") {
  for (int32_t sm : {80, 86, 89, 100, 120})
    for (bool backward : {false, true}) {
      INFO("sm " << sm);
      CHECK(faster_backend(shape(sm, backward, 128, false, 128, 4096, 4096)) == Faster::Bespoke);
    }
}

TEST_CASE("sdpa backends: a region covers its bounds and nothing past them", "[sdpa]") {
  const baracuda::sdpa::MeasuredRegion r{
      90, 1, BARACUDA_DTYPE_F16, 64, 128, 0, 32, 64, 1024, 4096, 2048, 8192, Faster::Cudnn};
  ShapeClass c{90, true, BARACUDA_DTYPE_F16, 64, false, 32, 1024, 2048};
  CHECK(covers(r, c));
  c.head_dim = 128;
  CHECK(covers(r, c));
  for (auto miss : {+[](ShapeClass &x) { x.sm = 89; }, +[](ShapeClass &x) { x.backward = false; },
                    +[](ShapeClass &x) { x.dtype = BARACUDA_DTYPE_BF16; }, +[](ShapeClass &x) { x.head_dim = 136; },
                    +[](ShapeClass &x) { x.head_dim = 56; }, +[](ShapeClass &x) { x.causal = true; },
                    +[](ShapeClass &x) { x.batch_heads = 31; }, +[](ShapeClass &x) { x.batch_heads = 65; },
                    +[](ShapeClass &x) { x.queries = 1023; }, +[](ShapeClass &x) { x.queries = 4097; },
                    +[](ShapeClass &x) { x.keys = 2047; }, +[](ShapeClass &x) { x.keys = 8193; }}) {
    ShapeClass m = c;
    miss(m);
    CHECK_FALSE(covers(r, m));
  }
}
