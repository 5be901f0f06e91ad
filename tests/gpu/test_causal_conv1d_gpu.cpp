// causal conv1d on the GPU against the float64 reference.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "gpu_helpers.hpp"
#include "random_draws.hpp"
#include "reference/conv1d_harness.hpp"

using namespace baracuda::check;

namespace {

const baracuda_dtype_t kDtypes[] = {BARACUDA_DTYPE_F32, BARACUDA_DTYPE_F16, BARACUDA_DTYPE_BF16, BARACUDA_DTYPE_F64};
const SeqLayout kLayouts[] = {SeqLayout::Contiguous, SeqLayout::ChannelsLast, SeqLayout::Offset, SeqLayout::Strided};

struct Size {
  int64_t batch, channels, length;
};
// L = 1, L < W, odd C and L, lengths past one chunk (256), vector-friendly and
// not; rows of several time tiles with a partial last one (2056, 8200: more
// tiles than a block takes), channel counts over one block's with a partial
// last group (136), chunks with a short last one; short rows of a power of
// two of vectors (64, 256: the row groups, with a partial last group of rows,
// and in the dense layouts the forward's register-fed rows; 128 at B 1: the
// row groups' backward writes DW and DB itself); rows of one backward time
// tile (4096 in 16 bits, 1024 in f32: the register tiles' one-tile blocks, or
// DW and DB directly at B 1).
const Size kSizes[] = {{2, 3, 1},     {1, 5, 2},   {2, 8, 67},  {3, 17, 300}, {2, 16, 1024}, {2, 136, 2056},
                       {1, 24, 8200}, {4, 33, 64}, {3, 37, 256}, {1, 40, 128}, {3, 9, 4096},  {1, 6, 4096}};

Conv1dCase make_case(int32_t op, baracuda_dtype_t dtype, const Size &s, int32_t width, SeqLayout layout,
                     uint64_t seed) {
  Conv1dCase c;
  c.op = op;
  c.dtype = dtype;
  c.batch = s.batch, c.channels = s.channels, c.length = s.length;
  c.width = width;
  c.layout = layout;
  c.seed = seed;
  return c;
}

const int32_t kWidths[] = {2, 3, 4, 5, 6, 7, 8};

// Decoding steps of 1, 3 and 8 tokens over prefixes of 0, 2 and 9, bias,
// SiLU and [B, C] tokens varied with the seed.
Conv1dUpdateCase make_update_case(baracuda_dtype_t dtype, int32_t width, bool circular, uint64_t seed) {
  Conv1dUpdateCase c;
  c.dtype = dtype;
  c.batch = 3;
  c.channels = 19;
  c.width = width;
  c.silu = seed % 2 == 0;
  c.bias = seed % 3 == 0;
  c.state_len = circular ? 7 : width - 1 + seed % 3;
  c.prefix = {0, 2, 9};
  c.steps = {1, 1, 3, 1, 8};
  c.circular = circular;
  c.flat_tokens = seed % 4 == 0;
  c.seed = seed;
  return c;
}

// op over every dtype x width x layout x size, bias and SiLU varied with the seed.
void check_every_shape(int32_t op, uint64_t seed) {
  for (baracuda_dtype_t dtype : kDtypes)
    for (int32_t width : kWidths)
      for (SeqLayout layout : kLayouts)
        for (const Size &s : kSizes) {
          Conv1dCase c = make_case(op, dtype, s, width, layout, seed++);
          c.bias = seed % 2 == 0;
          c.silu = seed % 3 != 0;
          CHECK_CASE(c, run_conv1d);
        }
}

}  // namespace

TEST_CASE("causal conv1d forward matches the reference for every dtype, width, layout and size",
          "[gpu][causal_conv1d]") {
  check_every_shape(BARACUDA_OP_CAUSAL_CONV1D, 1);
}

TEST_CASE("causal conv1d forward with and without bias, SiLU, initial and final states", "[gpu][causal_conv1d]") {
  uint64_t seed = 1000;
  for (baracuda_dtype_t dtype : kDtypes)
    for (SeqLayout layout : {SeqLayout::Contiguous, SeqLayout::ChannelsLast})
      for (const Size &s : {Size{2, 12, 40}, Size{3, 12, 256}})  // time tiles; row groups, register-fed rows
        for (int flags = 0; flags < 16; ++flags) {
          Conv1dCase c = make_case(BARACUDA_OP_CAUSAL_CONV1D, dtype, s, 4, layout, seed++);
          c.bias = flags & 1, c.silu = flags & 2, c.initial = flags & 4, c.state_out = flags & 8;
          CHECK_CASE(c, run_conv1d);
        }
}

TEST_CASE("causal conv1d channels-last forward past the one-box blocks' cap", "[gpu][causal_conv1d]") {
  // 4.5 MB of x, past kChannelBoxMaxBytes: the channel tiles, which the
  // one-box blocks replace on every other test shape at W <= 4; a partial
  // last group of channels (1032) and a short last chunk (1100).
  uint64_t seed = 12000;
  for (baracuda_dtype_t dtype : {BARACUDA_DTYPE_F32, BARACUDA_DTYPE_F16, BARACUDA_DTYPE_BF16})
    for (int32_t width : {2, 4, 8})
      for (int flags = 0; flags < 4; ++flags) {
        const Size s = dtype == BARACUDA_DTYPE_F32 ? Size{1, 1032, 1100} : Size{2, 1032, 1100};
        Conv1dCase c = make_case(BARACUDA_OP_CAUSAL_CONV1D, dtype, s, width, SeqLayout::ChannelsLast, seed++);
        c.silu = flags & 1, c.initial = flags & 2, c.bias = seed % 2 == 0;
        c.weight_dtype = dtype != BARACUDA_DTYPE_F32 && seed % 3 == 0 ? BARACUDA_DTYPE_F32 : 0;
        CHECK_CASE(c, run_conv1d);
      }
}

TEST_CASE("causal conv1d final states of sequences shorter than the window come from the initial states",
          "[gpu][causal_conv1d]") {
  for (int64_t length : {1, 2}) {
    Conv1dCase c = make_case(BARACUDA_OP_CAUSAL_CONV1D, BARACUDA_DTYPE_F32, {2, 5, length}, 4, SeqLayout::Contiguous,
                             2000 + length);
    c.initial = c.state_out = true;
    CHECK_CASE(c, run_conv1d);
  }
}

TEST_CASE("causal conv1d backward matches the reference gradients for every dtype, width, layout and size",
          "[gpu][causal_conv1d]") {
  check_every_shape(BARACUDA_OP_CAUSAL_CONV1D_BACKWARD, 3000);
}

TEST_CASE("causal conv1d backward through SiLU with initial states and their gradient", "[gpu][causal_conv1d]") {
  uint64_t seed = 4000;
  for (baracuda_dtype_t dtype : kDtypes)
    for (SeqLayout layout : {SeqLayout::Contiguous, SeqLayout::ChannelsLast, SeqLayout::Strided})
      // time tiles, row groups, register tiles (16-bit rows of one and of two tiles)
      for (const Size &s : {Size{2, 16, 2056}, Size{3, 16, 512}, Size{2, 9, 4096}, Size{1, 7, 8192}})
        for (int flags = 0; flags < 16; ++flags) {
          Conv1dCase c = make_case(BARACUDA_OP_CAUSAL_CONV1D_BACKWARD, dtype, s, 4, layout, seed++);
          c.bias = flags & 1, c.silu = flags & 2, c.initial = flags & 4, c.state_out = flags & 8;
          CHECK_CASE(c, run_conv1d);
        }
}

TEST_CASE("causal conv1d backward computes dx alone when no weight gradient is asked for", "[gpu][causal_conv1d]") {
  for (const Size &s : {Size{2, 16, 512}, Size{1, 16, 512}}) {  // B 1: no reduction after the row groups
    Conv1dCase c = make_case(BARACUDA_OP_CAUSAL_CONV1D_BACKWARD, BARACUDA_DTYPE_BF16, s, 3, SeqLayout::Contiguous, 5000);
    c.weight_grad = false;
    c.silu = true;
    CHECK_CASE(c, run_conv1d);
  }
}

// Packed sequences: runs shorter and longer than the window, padding ids,
// recurring ids; with every state argument (DFINAL_STATES too), f32 weights
// beside 16-bit x, in every layout.
void check_packed_sequences(int32_t op, uint64_t seed) {
  const Size sizes[] = {{1, 3, 5}, {2, 5, 67}, {3, 17, 300}, {2, 136, 2056}};
  for (baracuda_dtype_t dtype : kDtypes)
    for (int32_t width : {2, 4, 5, 8})
      for (SeqLayout layout : kLayouts)
        for (const Size &s : sizes)
          for (SeqIds ids : {SeqIds::Ascending, SeqIds::Repeating}) {
            Conv1dCase c = make_case(op, dtype, s, width, layout, seed++);
            c.seq_ids = ids;
            c.bias = seed % 2 == 0;
            c.silu = seed % 3 != 0;
            c.initial = seed % 4 < 2;
            c.state_out = seed % 5 < 3;
            c.dfinal = op == BARACUDA_OP_CAUSAL_CONV1D_BACKWARD && seed % 3 == 1;
            const bool half = dtype == BARACUDA_DTYPE_F16 || dtype == BARACUDA_DTYPE_BF16;
            c.weight_dtype = half && seed % 7 < 3 ? BARACUDA_DTYPE_F32 : 0;
            CHECK_CASE(c, run_conv1d);
          }
}

TEST_CASE("causal conv1d forward keeps packed sequences (SEQ_IDX) apart", "[gpu][causal_conv1d][seq_idx]") {
  check_packed_sequences(BARACUDA_OP_CAUSAL_CONV1D, 10000);
}

TEST_CASE("causal conv1d backward keeps packed sequences (SEQ_IDX) apart", "[gpu][causal_conv1d][seq_idx]") {
  check_packed_sequences(BARACUDA_OP_CAUSAL_CONV1D_BACKWARD, 11000);
}

TEST_CASE("causal conv1d update steps match the forward over the whole sequence", "[gpu][causal_conv1d]") {
  uint64_t seed = 6000;
  for (baracuda_dtype_t dtype : kDtypes)
    for (int32_t width : kWidths)
      for (bool circular : {false, true}) CHECK_CASE(make_update_case(dtype, width, circular, seed++), run_conv1d_update);
}

const baracuda_dtype_t kHalfDtypes[] = {BARACUDA_DTYPE_F16, BARACUDA_DTYPE_BF16};

// Odd C and L, L < W, a row of several time tiles, channel counts that fill
// vectors (the staged channel tiles) and do not.
const Size kMixedSizes[] = {{2, 17, 301}, {1, 5, 2}, {3, 136, 67}, {2, 24, 2056}, {2, 10, 8192}};

TEST_CASE("causal conv1d forward and backward with f32 weights beside f16 and bf16 x", "[gpu][causal_conv1d][mixed]") {
  uint64_t seed = 7000;
  for (int32_t op : {BARACUDA_OP_CAUSAL_CONV1D, BARACUDA_OP_CAUSAL_CONV1D_BACKWARD})
    for (baracuda_dtype_t dtype : kHalfDtypes)
      for (int32_t width : {2, 3, 4, 5, 8})
        for (SeqLayout layout : kLayouts)
          for (const Size &s : kMixedSizes) {
            Conv1dCase c = make_case(op, dtype, s, width, layout, seed++);
            c.weight_dtype = BARACUDA_DTYPE_F32;
            c.bias = seed % 2 == 0;
            c.silu = seed % 3 != 0;
            c.initial = c.state_out = seed % 5 < 2;
            CHECK_CASE(c, run_conv1d);
          }
}

TEST_CASE("causal conv1d backward with f32 dweight stays bitwise deterministic", "[gpu][causal_conv1d][mixed]") {
  // run_conv1d runs each case twice on garbage workspaces and wants equal bytes.
  uint64_t seed = 7500;
  for (baracuda_dtype_t dtype : kHalfDtypes)
    for (SeqLayout layout : {SeqLayout::Contiguous, SeqLayout::ChannelsLast})
      for (int repeat = 0; repeat < 4; ++repeat) {  // (4096: the register tiles' one-tile blocks)
        const Size s = repeat < 3 ? Size{4, 256, 4099} : Size{4, 256, 4096};
        Conv1dCase c = make_case(BARACUDA_OP_CAUSAL_CONV1D_BACKWARD, dtype, s, 4, layout, seed);
        c.weight_dtype = BARACUDA_DTYPE_F32;
        c.bias = c.silu = true;
        CHECK_CASE(c, run_conv1d);
      }
}

TEST_CASE("causal conv1d backward adds DFINAL_STATES to dx and, for L < W-1, to the initial states' gradient",
          "[gpu][causal_conv1d][dfinal]") {
  uint64_t seed = 8000;
  const Size sizes[] = {{2, 5, 1}, {2, 5, 2}, {1, 3, 3}, {2, 17, 301}, {2, 24, 2056}, {2, 6, 4096}};
  for (baracuda_dtype_t dtype : kDtypes)
    for (baracuda_dtype_t weights : {BARACUDA_DTYPE_F32, baracuda_dtype_t{0}})
      for (int32_t width : {2, 3, 4, 5, 8})
        for (SeqLayout layout : {SeqLayout::Contiguous, SeqLayout::ChannelsLast})
          for (const Size &s : sizes) {
            if (weights && dtype != BARACUDA_DTYPE_F16 && dtype != BARACUDA_DTYPE_BF16) continue;
            Conv1dCase c = make_case(BARACUDA_OP_CAUSAL_CONV1D_BACKWARD, dtype, s, width, layout, seed++);
            c.weight_dtype = weights;
            c.dfinal = true;
            c.bias = seed % 2 == 0;
            c.silu = seed % 3 != 0;
            c.initial = seed % 4 != 0;
            c.state_out = seed % 5 != 0;
            CHECK_CASE(c, run_conv1d);
          }
}

TEST_CASE("causal conv1d update steps rows of a state pool through CONV_STATE_INDICES, skipping padding rows",
          "[gpu][causal_conv1d][pool]") {
  uint64_t seed = 9000;
  for (baracuda_dtype_t dtype : kDtypes)
    for (int32_t width : kWidths)
      for (bool circular : {false, true}) {
        Conv1dUpdateCase c = make_update_case(dtype, width, circular, seed++);
        const bool half = dtype == BARACUDA_DTYPE_F16 || dtype == BARACUDA_DTYPE_BF16;
        c.weight_dtype = half && seed % 2 ? BARACUDA_DTYPE_F32 : 0;
        c.batch = 7;
        c.pool = 23;
        CHECK_CASE(c, run_conv1d_update);
      }
}

TEST_CASE("causal conv1d update steps over vectors of channels", "[gpu][causal_conv1d][pool]") {
  // 520 channels: 65 vectors of 8 in 16-bit (a second block of one), 130 of 4
  // in f32; a shifted state of exactly W-1 (the vector kernel's) and, on the
  // same sizes, a circular one of 7 (the thread-per-channel kernel's); steps
  // of one token and of two and four (the vector kernel's too, over 8-byte
  // vectors) around a three-token one (the general kernel), alone and
  // through a pool with padding rows.
  uint64_t seed = 9500;
  for (baracuda_dtype_t dtype : {BARACUDA_DTYPE_F32, BARACUDA_DTYPE_F16, BARACUDA_DTYPE_BF16})
    for (int32_t width : {2, 3, 4})
      for (bool circular : {false, true})
        for (int64_t pool : {0, 23}) {
          Conv1dUpdateCase c = make_update_case(dtype, width, circular, seed++);
          const bool half = dtype != BARACUDA_DTYPE_F32;
          c.weight_dtype = half && seed % 2 ? BARACUDA_DTYPE_F32 : 0;
          c.batch = pool ? 7 : 3;
          c.channels = 520;
          c.pool = pool;
          c.state_len = circular ? 7 : width - 1;
          c.steps = {1, 2, 1, 3, 4, 1};
          CHECK_CASE(c, run_conv1d_update);
        }
}

TEST_CASE("causal conv1d update over a circular state of 16-, 32- and 64-byte rows", "[gpu][causal_conv1d][pool]") {
  // The rows the circular-rows kernel loads whole (conv1d_update_choice.h):
  // every dtype and width over states of 16, 32 and 64 bytes (where they hold
  // the window), 70 channels (a partial second block), 7 batch rows (an odd
  // count, for a kernel taking two a thread), steps of one and of several
  // tokens whose slots wrap, alone and through a pool with padding rows.
  uint64_t seed = 9700;
  for (baracuda_dtype_t dtype : kDtypes)
    for (int32_t width : kWidths)
      for (int64_t row_bytes : {16, 32, 64})
        for (int64_t pool : {0, 23}) {
          Conv1dUpdateCase c = make_update_case(dtype, width, true, seed++);
          c.state_len = row_bytes / (baracuda_dtype_bits(dtype) / 8);
          if (c.state_len < width - 1) continue;
          const bool half = dtype == BARACUDA_DTYPE_F16 || dtype == BARACUDA_DTYPE_BF16;
          c.weight_dtype = half && seed % 2 ? BARACUDA_DTYPE_F32 : 0;
          c.batch = 7;
          c.channels = 70;
          c.pool = pool;
          CHECK_CASE(c, run_conv1d_update);
        }
}

TEST_CASE("causal conv1d update indexes a state pool past 2^31 elements", "[gpu][causal_conv1d][large]") {
  // bf16, C 2, W 4, batch rows stepping pool rows P-1 (which starts past
  // element 2^31: the kernels' 64-bit offsets) and 0: a circular state of 16
  // and one token, a shifted state of 3 and two tokens.
  auto bf16 = [](uint16_t v) {
    const uint32_t bits = static_cast<uint32_t>(v) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return static_cast<double>(f);
  };
  auto value = [](int64_t i) { return static_cast<uint16_t>(0x3f80 + (i * 37 % 97)); };  // bf16 in [1, 2)
  const uint16_t taps[8] = {0x3f80, 0xbf00, 0x3e80, 0x3f00, 0x3f40, 0x3e00, 0xbf80, 0x3f80};
  for (const bool circular : {true, false}) {
    const int64_t B = 2, C = 2, W = 4, S = circular ? 16 : 3, n = circular ? 1 : 2;
    const int64_t P = (int64_t{1} << 31) / (C * S) + 2, row = C * S;
    const int32_t indices[2] = {static_cast<int32_t>(P - 1), 0}, seqlens[2] = {37, 5};
    INFO((circular ? "circular" : "shifted") << ", pool of " << P << " rows");
    void *state = nullptr, *x = nullptr, *y = nullptr, *w = nullptr, *idx = nullptr, *lens = nullptr;
    REQUIRE(cudaMalloc(&state, P * row * 2) == cudaSuccess);
    REQUIRE(cudaMalloc(&x, B * C * n * 2) == cudaSuccess);
    REQUIRE(cudaMalloc(&y, B * C * n * 2) == cudaSuccess);
    REQUIRE(cudaMalloc(&w, sizeof taps) == cudaSuccess);
    REQUIRE(cudaMalloc(&idx, sizeof indices) == cudaSuccess);
    REQUIRE(cudaMalloc(&lens, sizeof seqlens) == cudaSuccess);
    std::vector<uint16_t> rows(B * row), tokens(B * C * n);
    for (int64_t i = 0; i < B * row; ++i) rows[i] = value(i);
    for (int64_t i = 0; i < B * C * n; ++i) tokens[i] = value(1000 + i);
    for (int64_t b = 0; b < B; ++b)
      REQUIRE(cudaMemcpy(static_cast<uint16_t *>(state) + indices[b] * row, &rows[b * row], row * 2,
                         cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(x, tokens.data(), tokens.size() * 2, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(w, taps, sizeof taps, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(idx, indices, sizeof indices, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(lens, seqlens, sizeof seqlens, cudaMemcpyHostToDevice) == cudaSuccess);

    baracuda_causal_conv1d_desc_t d = BARACUDA_CAUSAL_CONV1D_UPDATE_DESC_INIT;
    d.dtype = BARACUDA_DTYPE_BF16;
    d.batch = B, d.channels = C, d.seq_len = n, d.width = W, d.state_len = S;
    const int64_t seq[3] = {B, C, n}, wshape[2] = {C, W}, sshape[3] = {P, C, S}, bshape[1] = {B};
    std::vector<baracuda_arg_t> args = {
        {BARACUDA_ARG_X, baracuda_tensor_contiguous(x, BARACUDA_DTYPE_BF16, 3, seq)},
        {BARACUDA_ARG_WEIGHT, baracuda_tensor_contiguous(w, BARACUDA_DTYPE_BF16, 2, wshape)},
        {BARACUDA_ARG_Y, baracuda_tensor_contiguous(y, BARACUDA_DTYPE_BF16, 3, seq)},
        {BARACUDA_ARG_STATE, baracuda_tensor_contiguous(state, BARACUDA_DTYPE_BF16, 3, sshape)},
        {BARACUDA_ARG_CONV_STATE_INDICES, baracuda_tensor_contiguous(idx, BARACUDA_DTYPE_I32, 1, bshape)}};
    if (circular)
      args.push_back({BARACUDA_ARG_CACHE_SEQLENS, baracuda_tensor_contiguous(lens, BARACUDA_DTYPE_I32, 1, bshape)});
    baracuda_plan_t plan = nullptr;
    REQUIRE(baracuda_plan_select(&d.header, nullptr, &plan) == BARACUDA_STATUS_SUCCESS);
    REQUIRE(baracuda_plan_run(plan, args.data(), static_cast<int32_t>(args.size()), nullptr, 0, nullptr) ==
            BARACUDA_STATUS_SUCCESS);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    baracuda_plan_destroy(plan);

    std::vector<uint16_t> got_y(B * C * n), got_rows(B * row);
    REQUIRE(cudaMemcpy(got_y.data(), y, got_y.size() * 2, cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int64_t b = 0; b < B; ++b)
      REQUIRE(cudaMemcpy(&got_rows[b * row], static_cast<uint16_t *>(state) + indices[b] * row, row * 2,
                         cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t c = 0; c < C; ++c) {
        const uint16_t *old = &rows[b * row + c * S], *tok = &tokens[(b * C + c) * n];
        std::vector<uint16_t> history, expect(old, old + S);  // the window's inputs, oldest first; the new row
        const int64_t pos = seqlens[b] % S;
        for (int64_t j = 0; j < W - 1; ++j)
          history.push_back(circular ? old[(pos - (W - 1) + j + S) % S] : old[S - (W - 1) + j]);
        for (int64_t i = 0; i < n; ++i) {
          history.push_back(tok[i]);
          if (circular) expect[(pos + i) % S] = tok[i];
        }
        if (!circular) expect.assign(history.end() - S, history.end());  // S = W-1 here
        for (int64_t i = 0; i < n; ++i) {
          double z = 0;
          for (int64_t k = 0; k < W; ++k) z += bf16(taps[c * W + k]) * bf16(history[i + k]);
          INFO("b " << b << " c " << c << " token " << i);
          CHECK(std::fabs(bf16(got_y[(b * C + c) * n + i]) - z) <= 8e-3 * std::fabs(z) + 1e-6);
        }
        for (int64_t s = 0; s < S; ++s) CHECK(got_rows[b * row + c * S + s] == expect[s]);
      }
    for (void *ptr : {state, x, y, w, idx, lens}) cudaFree(ptr);
  }
}

TEST_CASE("causal conv1d forward indexes past 2^31 elements", "[gpu][causal_conv1d][large]") {
  // x and y of bf16 [1, 2, 2^30 + 5]: the second row ends past element 2^31.
  const int64_t L = (int64_t{1} << 30) + 5, C = 2, n = C * L;
  std::vector<uint16_t> pattern(4099);
  uint32_t h = 12345;
  for (uint16_t &v : pattern) {
    h = h * 1664525u + 1013904223u;
    v = static_cast<uint16_t>(0x3c00 | (h >> 22));  // bf16 in [0.0078, 0.0156) and [1, 2): never zero
  }
  void *x = nullptr, *y = nullptr, *w = nullptr;
  REQUIRE(cudaMalloc(&x, n * 2) == cudaSuccess);
  REQUIRE(cudaMalloc(&y, n * 2) == cudaSuccess);
  REQUIRE(cudaMalloc(&w, C * 4 * 2) == cudaSuccess);
  constexpr int64_t kBlock = int64_t{1} << 24;  // uploaded a block at a time; element i holds pattern[i % size]
  for (int64_t at = 0; at < n; at += kBlock) {
    const int64_t count = std::min(kBlock, n - at);
    std::vector<uint16_t> block(count);
    for (int64_t i = 0; i < count; ++i) block[i] = pattern[(at + i) % pattern.size()];
    REQUIRE(cudaMemcpy(static_cast<uint16_t *>(x) + at, block.data(), count * 2, cudaMemcpyHostToDevice) ==
            cudaSuccess);
  }
  const uint16_t taps[8] = {0x3f80, 0xbf00, 0x3e80, 0x3f00, 0x3f40, 0x3e00, 0xbf80, 0x3f80};  // 1 -.5 .25 .5 / .75 .125 -1 1
  REQUIRE(cudaMemcpy(w, taps, sizeof taps, cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemset(y, 0xff, n * 2) == cudaSuccess);

  baracuda_causal_conv1d_desc_t d = BARACUDA_CAUSAL_CONV1D_DESC_INIT;
  d.dtype = BARACUDA_DTYPE_BF16;
  d.batch = 1, d.channels = C, d.seq_len = L, d.width = 4;
  const int64_t seq[3] = {1, C, L}, wshape[2] = {C, 4};
  baracuda_arg_t args[3] = {{BARACUDA_ARG_X, baracuda_tensor_contiguous(x, BARACUDA_DTYPE_BF16, 3, seq)},
                            {BARACUDA_ARG_WEIGHT, baracuda_tensor_contiguous(w, BARACUDA_DTYPE_BF16, 2, wshape)},
                            {BARACUDA_ARG_Y, baracuda_tensor_contiguous(y, BARACUDA_DTYPE_BF16, 3, seq)}};
  baracuda_plan_t plan = nullptr;
  REQUIRE(baracuda_plan_select(&d.header, nullptr, &plan) == BARACUDA_STATUS_SUCCESS);
  REQUIRE(baracuda_plan_run(plan, args, 3, nullptr, 0, nullptr) == BARACUDA_STATUS_SUCCESS);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  baracuda_plan_destroy(plan);

  auto bf16 = [](uint16_t v) {
    const uint32_t bits = static_cast<uint32_t>(v) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return static_cast<double>(f);
  };
  // Windows at the start, across the row boundary, and at the end (which crosses 2^31).
  for (int64_t start : {int64_t{0}, L - 100, n - 200}) {
    std::vector<uint16_t> got(200);
    const cudaError_t e = cudaMemcpy(got.data(), static_cast<uint16_t *>(y) + start, 400, cudaMemcpyDeviceToHost);
    INFO("window at " << start << ": " << cudaGetErrorString(e));
    REQUIRE(e == cudaSuccess);
    for (int64_t i = 0; i < 200; ++i) {
      const int64_t flat = start + i, c = flat / L, t = flat % L;
      double z = 0;
      for (int k = 0; k < 4; ++k) {
        const int64_t src = t - 3 + k;
        if (src >= 0) z += bf16(taps[c * 4 + k]) * bf16(pattern[(c * L + src) % pattern.size()]);
      }
      INFO("element " << flat);
      CHECK(std::fabs(bf16(got[i]) - z) <= 8e-3 * std::fabs(z) + 1e-6);
    }
  }
  cudaFree(x);
  cudaFree(y);
  cudaFree(w);
}

namespace {

bool half_dtype(baracuda_dtype_t dtype) { return dtype == BARACUDA_DTYPE_F16 || dtype == BARACUDA_DTYPE_BF16; }

// A random forward or backward (kernels/causal_conv1d/conv1d_heuristics.h
// and conv1d_traits.h; V elements to a 16-byte vector): L of 1 or under the
// width; whole vectors of 8 to 256 (the row groups: a power of two of
// vectors up to half a time tile), 512 (a forward time tile), 4096 (a block
// of 8 of them), each one less or one more; about the walks' 256-step chunk
// and 1024-step segment. C tiny, about V (the channel tiles need whole
// vectors), a block's 128 channels, or 136; B 1 to 4, now and then up to 64
// (the channel tiles' chunk halves while they make under 1024 blocks); at
// most 2^20 elements. Every dtype (f32 weights beside 16-bit x now and
// then), width, layout and flag, packed sequences (SEQ_IDX) in two of five.
Conv1dCase random_conv1d_case(Draws &d) {
  Conv1dCase c;
  c.op = d.percent(50) ? BARACUDA_OP_CAUSAL_CONV1D : BARACUDA_OP_CAUSAL_CONV1D_BACKWARD;
  const bool backward = c.op == BARACUDA_OP_CAUSAL_CONV1D_BACKWARD;
  c.dtype = d.pick(kDtypes);
  c.width = d.pick(kWidths);
  const int64_t v = 16 / (baracuda_dtype_bits(c.dtype) / 8);
  for (bool fits = false; !fits;) {
    c.length = d.size({1, c.width - 1, 8 * v, 16 * v, 32 * v, 64 * v, 128 * v, 256 * v, 512 * v, 4096 * v, 256, 1024},
                      1, 5000 * v);
    c.channels = d.size({1, v, 2 * v, 128, 136}, 1, 300);
    c.batch = d.percent(10) ? d.between(5, 64) : d.between(1, 4);
    fits = c.batch * c.channels * c.length <= (int64_t{1} << 20);
  }
  c.layout = d.pick(kLayouts);
  c.weight_dtype = half_dtype(c.dtype) && d.percent(30) ? BARACUDA_DTYPE_F32 : 0;
  c.silu = d.percent(50);
  c.bias = d.percent(50);
  c.initial = d.percent(40);
  c.state_out = d.percent(40);
  c.seq_ids = d.percent(60) ? SeqIds::None : d.pick({SeqIds::Ascending, SeqIds::Repeating});
  if (backward) {
    c.weight_grad = d.percent(85);
    c.dfinal = d.percent(30);
  }
  c.seed = d.seed();
  return c;
}

// A random decoding run (the update's kernels): C tiny, odd, or whole
// vectors of 16 and 8 bytes, a block's 64 of them, one less or one more; B
// 1 to 8, now and then up to 64 (16-byte vectors from 2^17 bytes of x up);
// a shifted state of W - 1 (the vector kernel) or longer, or a circular one;
// steps of one token (in [B, C, 1] or [B, C]) and of several; through a
// state pool with padding rows now and then. Every dtype (f32 weights beside
// 16-bit x now and then) and width.
Conv1dUpdateCase random_update_case(Draws &d) {
  Conv1dUpdateCase c;
  c.dtype = d.pick(kDtypes);
  c.width = d.pick(kWidths);
  const int64_t v = 16 / (baracuda_dtype_bits(c.dtype) / 8);
  for (bool fits = false; !fits;) {
    c.channels = d.size({1, 3, v / 2, v, 2 * v, 64 * v / 2, 64 * v, 128 * v}, 1, 2100);
    c.batch = d.percent(15) ? d.between(9, 64) : d.between(1, 8);
    fits = c.batch * c.channels <= (int64_t{1} << 17);
  }
  c.weight_dtype = half_dtype(c.dtype) && d.percent(30) ? BARACUDA_DTYPE_F32 : 0;
  c.silu = d.percent(50);
  c.bias = d.percent(50);
  c.circular = d.percent(30);
  c.state_len = c.width - 1 + (d.percent(50) ? 0 : d.between(1, 6));
  c.flat_tokens = d.percent(25);
  c.prefix.clear();
  for (int64_t n = d.between(1, 3); n > 0; --n) c.prefix.push_back(d.size({0, c.state_len}, 0, 12));
  c.steps.clear();
  for (int64_t n = d.between(1, 4); n > 0; --n) c.steps.push_back(d.percent(70) ? 1 : d.between(2, 9));
  c.pool = d.percent(30) ? 2 * c.batch + 1 + d.between(0, 5) : 0;
  c.seed = d.seed();
  return c;
}

}  // namespace

TEST_CASE("causal conv1d forward and backward of 160 random problems at the kernels' boundaries",
          "[gpu][causal_conv1d][random]") {
  // random_conv1d_case says which boundaries the draws aim at.
  Draws d(0x636f6e7631);
  for (int i = 0; i < 160; ++i) CHECK_CASE(random_conv1d_case(d), run_conv1d);
}

TEST_CASE("causal conv1d update of 80 random decoding runs at the kernels' boundaries",
          "[gpu][causal_conv1d][random]") {
  // random_update_case says which boundaries the draws aim at.
  Draws d(0x636f6e7632);
  for (int i = 0; i < 80; ++i) CHECK_CASE(random_update_case(d), run_conv1d_update);
}

// The [B, C, L] forward's kernels start overlapping the kernel before them
// on the stream (they wait for its end before touching memory): a forward
// whose x is the y of the forward just before it, no synchronization between,
// reads every element of it as written. The time tiles (rows of 1000, not a
// power of two of vectors), the direct rows in a grid that overlaps (4096
// blocks of 1024-timestep f32 rows), and one that does not (8192 blocks).
TEST_CASE("causal conv1d forward reads the y of the forward launched just before it", "[gpu][causal_conv1d]") {
  const Size sizes[] = {{8, 512, 1000}, {1, 4096, 1024}, {2, 4096, 1024}};
  for (const Size &s : sizes) {
    const int64_t B = s.batch, C = s.channels, L = s.length, W = 4, n = B * C * L;
    CAPTURE(B, C, L);
    std::mt19937_64 rng(B * 1000003 + L);
    std::uniform_real_distribution<float> dist(-1, 1);
    std::vector<float> x(n), w(C * W), bias(C), y(n);
    for (float &v : x) v = dist(rng);
    for (float &v : w) v = dist(rng) / W;
    for (float &v : bias) v = dist(rng);
    // The reference: the forward twice, in double.
    auto forward = [&](const std::vector<double> &in) {
      std::vector<double> out(n);
      for (int64_t r = 0; r < B * C; ++r)
        for (int64_t t = 0; t < L; ++t) {
          double z = bias[r % C];
          for (int64_t k = 0; k < W; ++k) {
            const int64_t u = t - (W - 1) + k;
            if (u >= 0) z += double{w[r % C * W + k]} * in[r * L + u];
          }
          out[r * L + t] = z;
        }
      return out;
    };
    const std::vector<double> want = forward(forward(std::vector<double>(x.begin(), x.end())));
    float *dx = nullptr, *dy = nullptr, *dz = nullptr, *dw = nullptr, *db = nullptr;
    for (float **p : {&dx, &dy, &dz}) REQUIRE(cudaMalloc(reinterpret_cast<void **>(p), n * 4) == cudaSuccess);
    REQUIRE(cudaMalloc(reinterpret_cast<void **>(&dw), C * W * 4) == cudaSuccess);
    REQUIRE(cudaMalloc(reinterpret_cast<void **>(&db), C * 4) == cudaSuccess);
    REQUIRE(cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(dw, w.data(), C * W * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(db, bias.data(), C * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemset(dy, 0xFF, n * 4) == cudaSuccess);  // NaN poison
    REQUIRE(cudaMemset(dz, 0xFF, n * 4) == cudaSuccess);
    baracuda_causal_conv1d_desc_t d = BARACUDA_CAUSAL_CONV1D_DESC_INIT;
    d.dtype = BARACUDA_DTYPE_F32, d.width = W, d.batch = B, d.channels = C, d.seq_len = L;
    baracuda_plan_t plan = nullptr;
    REQUIRE(baracuda_plan_select(&d.header, nullptr, &plan) == BARACUDA_STATUS_SUCCESS);
    cudaStream_t stream;
    REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
    const int64_t xs[3] = {B, C, L}, ws[2] = {C, W}, bs[1] = {C};
    auto run = [&](float *in, float *out) {
      const baracuda_arg_t args[4] = {{BARACUDA_ARG_X, baracuda_tensor_contiguous(in, BARACUDA_DTYPE_F32, 3, xs)},
                                      {BARACUDA_ARG_WEIGHT, baracuda_tensor_contiguous(dw, BARACUDA_DTYPE_F32, 2, ws)},
                                      {BARACUDA_ARG_BIAS, baracuda_tensor_contiguous(db, BARACUDA_DTYPE_F32, 1, bs)},
                                      {BARACUDA_ARG_Y, baracuda_tensor_contiguous(out, BARACUDA_DTYPE_F32, 3, xs)}};
      return baracuda_plan_run(plan, args, 4, nullptr, 0, stream);
    };
    for (int rep = 0; rep < 3; ++rep) {  // (x -> y -> z, again: z's second write follows y's)
      CHECK(run(dx, dy) == BARACUDA_STATUS_SUCCESS);
      CHECK(run(dy, dz) == BARACUDA_STATUS_SUCCESS);
    }
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    REQUIRE(cudaMemcpy(y.data(), dz, n * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
    double err = 0, scale = 0;
    for (int64_t i = 0; i < n; ++i) {
      err = std::max(err, std::fabs(y[i] - want[i]));  // (NaN: fabs is NaN, max keeps err; caught below)
      scale = std::max(scale, std::fabs(want[i]));
      if (std::isnan(y[i])) err = INFINITY;
    }
    CHECK(err <= 1e-5 * scale);
    baracuda_plan_destroy(plan);
    cudaStreamDestroy(stream);
    for (float *p : {dx, dy, dz, dw, db}) cudaFree(p);
  }
}
