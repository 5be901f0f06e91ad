// Attention forward and backward on the GPU against the float64 reference,
// every kernel variant forced through target_sm and the select flags.
#include <vector>

#include "gpu_helpers.hpp"
#include "reference/sdpa_harness.hpp"

using namespace baracuda::check;

namespace {

const baracuda_dtype_t kDtypes[] = {BARACUDA_DTYPE_BF16, BARACUDA_DTYPE_F16, BARACUDA_DTYPE_F32, BARACUDA_DTYPE_F64};
const int32_t kHeadDims[] = {32, 64, 80, 96, 128, 192, 256};

bool tensor_cores(baracuda_dtype_t dtype) { return dtype == BARACUDA_DTYPE_F16 || dtype == BARACUDA_DTYPE_BF16; }

// c through every variant that serves its dtype: for f16 / bf16 the sm_80
// kernel (the device's choice on sm 90, and forced by target_sm 80), the
// sm_89 forward (target_sm 89) and the deterministic backward; for f32 the
// 3xTF32 forward (the device's choice) and the CUDA-core one (forced by
// F32_STRICT, which the 3xTF32 kernel does not serve); for f64 and the f32
// backward the CUDA-core kernel. The backward is not forced to sm 89: there
// it is the sm_80 kernel again, refused at select past 99 KiB of shared
// memory (the CPU suite checks that). Forcing an arch needs the build to hold
// code for it.
void check_variants(SdpaCase c) {
  if (!tensor_cores(c.dtype)) {
    CHECK_CASE(c, run_sdpa);
    if (c.dtype == BARACUDA_DTYPE_F32 && !c.backward) {
      c.dtype = BARACUDA_DTYPE_F32_STRICT;
      CHECK_CASE(c, run_sdpa);
    }
    return;
  }
  for (int32_t sm : {0, 80, 89}) {
    if (sm == 89 && c.backward) continue;
    if (sm != 0 && !build_serves(sm)) {
      WARN("this build has no code for sm " << sm << ": its variant is not forced (build with -Dgpu_arch=80,89,90)");
      continue;
    }
    c.target_sm = sm;
    c.flags = 0;
    CHECK_CASE(c, run_sdpa);
    if (c.backward && sm == 0) {
      c.flags = BARACUDA_SELECT_DETERMINISTIC;
      CHECK_CASE(c, run_sdpa);
    }
  }
}

SdpaCase base(bool backward, baracuda_dtype_t dtype, int64_t queries, int64_t keys, int32_t head_dim = 64) {
  SdpaCase c;
  c.backward = backward;
  c.dtype = dtype;
  c.batch = 2;
  c.heads_q = 2;
  c.heads_kv = 1;
  c.queries = queries;
  c.keys = keys;
  c.head_dim = head_dim;
  return c;
}

}  // namespace

TEST_CASE("sdpa: every dtype and head size, odd lengths", "[sdpa]") {
  for (bool backward : {false, true})
    for (baracuda_dtype_t dtype : kDtypes)
      for (int32_t d : kHeadDims) check_variants(base(backward, dtype, 37, 53, d));
}

TEST_CASE("sdpa: Dv different from D, both ways", "[sdpa]") {
  const int32_t pairs[][2] = {{64, 128}, {128, 64}, {32, 256}, {256, 40}};
  for (bool backward : {false, true})
    for (baracuda_dtype_t dtype : kDtypes)
      for (const auto &dd : pairs) {
        SdpaCase c = base(backward, dtype, 45, 61, dd[0]);
        c.head_dim_v = dd[1];
        check_variants(c);
      }
}

TEST_CASE("sdpa: Q != K both ways, Q = 1, K = 1, with every mask alignment", "[sdpa]") {
  const int64_t sizes[][2] = {{1, 1}, {1, 300}, {300, 1}, {129, 65}, {65, 129}, {200, 200}};
  for (bool backward : {false, true})
    for (baracuda_dtype_t dtype : kDtypes)
      for (const auto &qk : sizes)
        for (int32_t causal : {0, 1})
          for (int32_t alignment : {BARACUDA_SDPA_TOP_LEFT, BARACUDA_SDPA_BOTTOM_RIGHT}) {
            if (!causal && alignment == BARACUDA_SDPA_BOTTOM_RIGHT) continue;  // no mask: nothing to align
            SdpaCase c = base(backward, dtype, qk[0], qk[1]);
            c.causal = causal;
            c.alignment = alignment;
            check_variants(c);
          }
}

TEST_CASE("sdpa: GQA ratios 1, 2 and 8, and a kv head shared through stride 0", "[sdpa]") {
  for (bool backward : {false, true})
    for (baracuda_dtype_t dtype : kDtypes) {
      for (int64_t hkv : {8, 4, 1}) {
        SdpaCase c = base(backward, dtype, 33, 47);
        c.batch = 1;
        c.heads_q = 8;
        c.heads_kv = hkv;
        c.causal = 1;
        check_variants(c);
      }
      SdpaCase c = base(false, dtype, 33, 47);
      c.heads_kv = c.heads_q = 4;
      c.layout = SdpaLayout::SharedKv;
      check_variants(c);
    }
}

TEST_CASE("sdpa: sliding windows with and without the causal mask, both alignments", "[sdpa]") {
  const int64_t windows[][2] = {{16, 0}, {5, 7}, {0, 0}, {-1, 3}, {9, -1}};
  for (bool backward : {false, true})
    for (baracuda_dtype_t dtype : kDtypes)
      for (const auto &w : windows)
        for (int32_t alignment : {BARACUDA_SDPA_TOP_LEFT, BARACUDA_SDPA_BOTTOM_RIGHT})
          for (int32_t causal : {0, 1}) {
            SdpaCase c = base(backward, dtype, 70, 90);
            c.window_left = w[0];
            c.window_right = w[1];
            c.alignment = alignment;
            c.causal = causal;
            check_variants(c);
          }
}

TEST_CASE("sdpa: ALiBi in both conventions with [Hq] and [B, Hq] slopes, softcap and scale", "[sdpa]") {
  for (bool backward : {false, true})
    for (baracuda_dtype_t dtype : kDtypes) {
      for (int32_t alibi : {BARACUDA_ALIBI_SIGNED, BARACUDA_ALIBI_SYMMETRIC})
        for (bool per_batch : {false, true}) {
          SdpaCase c = base(backward, dtype, 51, 77);
          c.heads_q = 4;
          c.heads_kv = 2;
          c.alibi = alibi;
          c.per_batch_slopes = per_batch;
          c.causal = alibi == BARACUDA_ALIBI_SIGNED;
          c.alignment = BARACUDA_SDPA_BOTTOM_RIGHT;
          check_variants(c);
        }
      for (float softcap : {30.0f, 2.0f}) {
        SdpaCase c = base(backward, dtype, 51, 77);
        c.softcap = softcap;
        c.scale = 0.5f;  // scores of several units: the cap bends them
        check_variants(c);
        c.alibi = BARACUDA_ALIBI_SYMMETRIC;
        c.causal = 1;
        c.scale = -0.3f;
        check_variants(c);
      }
    }
}

TEST_CASE("sdpa: rows that see no key give out 0, lse -inf and zero gradients", "[sdpa]") {
  for (bool backward : {false, true})
    for (baracuda_dtype_t dtype : kDtypes) {
      SdpaCase c = base(backward, dtype, 12, 5);  // bottom-right causal: rows 0..6 see no key
      c.causal = 1;
      c.alignment = BARACUDA_SDPA_BOTTOM_RIGHT;
      check_variants(c);
      c = base(backward, dtype, 40, 20);  // a one-key window past the last key for rows 20..39
      c.window_left = c.window_right = 0;
      check_variants(c);
      check_variants(base(backward, dtype, 9, 0));  // K = 0: every row
      check_variants(base(backward, dtype, 0, 9));  // Q = 0: dk = dv = 0
    }
}

TEST_CASE("sdpa: strided views: padded rows, Q K V packed in one buffer, no LSE", "[sdpa]") {
  for (bool backward : {false, true})
    for (baracuda_dtype_t dtype : kDtypes) {
      SdpaCase c = base(backward, dtype, 41, 41, 64);
      c.heads_kv = c.heads_q = 3;
      c.causal = 1;
      for (SdpaLayout l : {SdpaLayout::Padded, SdpaLayout::PackedQkv}) {
        c.layout = l;
        check_variants(c);
      }
      if (!backward) {
        c.layout = SdpaLayout::Contiguous;
        c.lse = false;
        check_variants(c);
      }
    }
}

TEST_CASE("sdpa: sequences over a thousand, several tiles of every kind", "[sdpa]") {
  for (bool backward : {false, true})
    for (int32_t causal : {0, 1}) {
      SdpaCase c = base(backward, BARACUDA_DTYPE_BF16, 1030, 1100, 128);
      c.batch = 1;
      c.causal = causal;
      c.alignment = BARACUDA_SDPA_BOTTOM_RIGHT;
      check_variants(c);
      c = base(backward, BARACUDA_DTYPE_F16, 1031, 1031, 64);
      c.batch = 1;
      c.heads_kv = 2;
      c.causal = causal;
      check_variants(c);
      c = base(backward, BARACUDA_DTYPE_F32, 1000, 1003, 64);
      c.batch = c.heads_q = 1;
      c.causal = causal;
      check_variants(c);
    }
}

TEST_CASE("sdpa: forward and backward captured in a CUDA graph", "[sdpa][graph]") {
  for (bool backward : {false, true})
    for (baracuda_dtype_t dtype : kDtypes) {
      SdpaCase c = base(backward, dtype, 77, 130, 96);
      c.causal = 1;
      c.graph = true;
      check_variants(c);
    }
}
