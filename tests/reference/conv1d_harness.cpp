#include "reference/conv1d_harness.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>

#include "reference/conv1d_reference.hpp"
#include "reference/device_tensor.hpp"

namespace baracuda::check {

namespace {

using reference::Conv1dInputs;

void seq_strides(SeqLayout l, int64_t C, int64_t L, int64_t *s, int64_t &offset) {
  offset = l == SeqLayout::Offset ? 1 : 0;
  switch (l) {
    case SeqLayout::ChannelsLast: s[0] = L * C, s[1] = 1, s[2] = C; return;
    case SeqLayout::Strided: s[0] = C * (2 * L + 3) + 5, s[1] = 2 * L + 3, s[2] = 2; return;
    default: s[0] = C * L, s[1] = L, s[2] = 1; return;
  }
}

baracuda_causal_conv1d_desc_t make_desc(int32_t op, baracuda_dtype_t dtype, int64_t B, int64_t C, int64_t L,
                                        int32_t W, bool silu) {
  baracuda_causal_conv1d_desc_t d = BARACUDA_CAUSAL_CONV1D_DESC_INIT;
  d.header.op = op;
  d.dtype = dtype;
  d.width = W;
  d.activation = silu ? BARACUDA_ACTIVATION_SILU : BARACUDA_ACTIVATION_NONE;
  d.batch = B;
  d.channels = C;
  d.seq_len = L;
  return d;
}

// Fills t, [B, L] I32, with ids cut as `kind` says, and returns them dense.
std::vector<int32_t> seq_ids_tensor(TestTensor &t, SeqIds kind, int64_t B, int64_t L, bool strided,
                                    std::mt19937_64 &rng) {
  const int64_t shape[2] = {B, L};
  int64_t strides[2];
  dense_strides(2, shape, strides);
  if (strided) strides[0] = 2 * L + 1, strides[1] = 2;
  make_strided_tensor(t, BARACUDA_DTYPE_I32, 2, shape, strides, 0, rng);
  std::vector<int32_t> ids(B * L);
  std::uniform_int_distribution<int64_t> run_length(1, std::max<int64_t>(L / 3, 1));
  std::uniform_int_distribution<int32_t> recurring(-1, 2);
  int32_t next = 0;
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t t0 = 0; t0 < L;) {
      // A third of the runs 1 to 3 timesteps long: shorter than most windows.
      const int64_t n = std::min(rng() % 3 == 0 ? 1 + static_cast<int64_t>(rng() % 3) : run_length(rng), L - t0);
      const int32_t id = kind == SeqIds::Repeating ? recurring(rng) : t0 + n == L && t0 > 0 ? -1 : next++;
      for (int64_t i = t0; i < t0 + n; ++i) ids[b * L + i] = id;
      t0 += n;
    }
  }
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < L; ++i) {
      const int64_t idx[2] = {b, i};
      std::memcpy(t.view.elem(idx), &ids[b * L + i], sizeof(int32_t));
    }
  t.upload();
  return ids;
}

}  // namespace

const char *seq_layout_name(SeqLayout l) {
  switch (l) {
    case SeqLayout::ChannelsLast: return "channels-last";
    case SeqLayout::Offset: return "offset";
    case SeqLayout::Strided: return "strided";
    default: return "contiguous";
  }
}

std::string describe(const Conv1dCase &c) {
  std::ostringstream os;
  os << (c.op == BARACUDA_OP_CAUSAL_CONV1D ? "causal_conv1d" : "causal_conv1d_backward") << ' '
     << baracuda_dtype_name(c.dtype) << " B" << c.batch << " C" << c.channels << " L" << c.length << " W" << c.width
     << (c.silu ? " silu" : "") << (c.bias ? " bias" : "") << (c.initial ? " initial" : "")
     << (c.state_out ? " state-out" : "") << (c.weight_grad ? "" : " no-dw") << (c.dfinal ? " dfinal" : "")
     << (c.seq_ids == SeqIds::Ascending ? " seq-idx" : c.seq_ids == SeqIds::Repeating ? " seq-idx-repeating" : "")
     << (c.weight_dtype ? " weights " : "") << (c.weight_dtype ? baracuda_dtype_name(c.weight_dtype) : "") << ' '
     << seq_layout_name(c.layout) << " seed " << c.seed;
  return os.str();
}

std::string describe(const Conv1dUpdateCase &c) {
  std::ostringstream os;
  os << "causal_conv1d_update " << baracuda_dtype_name(c.dtype) << " B" << c.batch << " C" << c.channels << " W"
     << c.width << " S" << c.state_len << (c.silu ? " silu" : "") << (c.bias ? " bias" : "")
     << (c.circular ? " circular" : "") << (c.flat_tokens ? " [B,C] tokens" : "")
     << (c.weight_dtype ? " weights " : "") << (c.weight_dtype ? baracuda_dtype_name(c.weight_dtype) : "");
  if (c.pool) os << " pool " << c.pool;
  os << " steps";
  for (int64_t n : c.steps) os << ' ' << n;
  os << " seed " << c.seed;
  return os.str();
}

Result run_conv1d(const Conv1dCase &c) {
  return guarded([&] {
    std::mt19937_64 rng(c.seed);
    const bool backward = c.op == BARACUDA_OP_CAUSAL_CONV1D_BACKWARD;
    const int64_t B = c.batch, C = c.channels, L = c.length, W = c.width;
    const int64_t seq[3] = {B, C, L}, taps[2] = {C, W}, chan[1] = {C}, ends[3] = {B, C, W - 1};
    int64_t seq_st[3], seq_off, taps_st[2], chan_st[1] = {1}, ends_st[3];
    seq_strides(c.layout, C, L, seq_st, seq_off);
    dense_strides(2, taps, taps_st);
    dense_strides(3, ends, ends_st);

    const baracuda_dtype_t wdt = c.weight_dtype ? c.weight_dtype : c.dtype;
    Conv1dInputs in;
    in.batch = B, in.channels = C, in.length = L, in.width = c.width, in.silu = c.silu;
    TestTensor x, w, bias, init, y, fin, dy, dfin, dx, dw, db, dinit;
    std::vector<baracuda_arg_t> args;
    auto arg = [&](int32_t role, const TestTensor &t) { args.push_back({role, t.tensor}); };
    in.x = random_tensor(x, c.dtype, 3, seq, seq_st, seq_off, rng);
    in.weight = random_tensor(w, wdt, 2, taps, taps_st, 0, rng);
    arg(BARACUDA_ARG_X, x);
    arg(BARACUDA_ARG_WEIGHT, w);
    if (c.bias) {
      in.bias = random_tensor(bias, wdt, 1, chan, chan_st, 0, rng);
      arg(BARACUDA_ARG_BIAS, bias);
    }
    if (c.initial) {
      in.initial = random_tensor(init, c.dtype, 3, ends, ends_st, 0, rng);
      arg(BARACUDA_ARG_INITIAL_STATES, init);
    }
    TestTensor seq_idx;
    if (c.seq_ids != SeqIds::None) {
      in.seq_idx = seq_ids_tensor(seq_idx, c.seq_ids, B, L, c.layout == SeqLayout::Strided, rng);
      arg(BARACUDA_ARG_SEQ_IDX, seq_idx);
    }

    std::vector<Output> outputs;
    if (!backward) {
      std::vector<double> ref_y, ref_final;
      reference::conv1d_forward(in, ref_y, ref_final);
      output_tensor(y, c.dtype, 3, seq, seq_st, seq_off, rng);
      arg(BARACUDA_ARG_Y, y);
      outputs.push_back({&y, ref_y, "Y", tolerance(c.dtype)});
      if (c.state_out) {
        output_tensor(fin, c.dtype, 3, ends, ends_st, 0, rng);
        arg(BARACUDA_ARG_FINAL_STATES, fin);
        outputs.push_back({&fin, ref_final, "FINAL_STATES", tolerance(c.dtype)});
      }
    } else {
      const std::vector<double> gy = random_tensor(dy, c.dtype, 3, seq, seq_st, seq_off, rng);
      std::vector<double> gfinal;
      if (c.dfinal) {
        gfinal = random_tensor(dfin, c.dtype, 3, ends, ends_st, 0, rng);
        arg(BARACUDA_ARG_DFINAL_STATES, dfin);
      }
      const reference::Conv1dGrads g = reference::conv1d_backward(in, gy, gfinal);
      arg(BARACUDA_ARG_DY, dy);
      output_tensor(dx, c.dtype, 3, seq, seq_st, seq_off, rng);
      arg(BARACUDA_ARG_DX, dx);
      outputs.push_back({&dx, g.dx, "DX", tolerance(c.dtype)});
      if (c.weight_grad) {
        output_tensor(dw, wdt, 2, taps, taps_st, 0, rng);
        arg(BARACUDA_ARG_DW, dw);
        outputs.push_back({&dw, g.dweight, "DW", tolerance(c.dtype)});
        if (c.bias) {
          output_tensor(db, wdt, 1, chan, chan_st, 0, rng);
          arg(BARACUDA_ARG_DB, db);
          outputs.push_back({&db, g.dbias, "DB", tolerance(c.dtype)});
        }
      }
      if (c.state_out) {
        output_tensor(dinit, c.dtype, 3, ends, ends_st, 0, rng);
        arg(BARACUDA_ARG_DINITIAL_STATES, dinit);
        outputs.push_back({&dinit, g.dinitial, "DINITIAL_STATES", tolerance(c.dtype)});
      }
    }

    baracuda_causal_conv1d_desc_t desc = make_desc(c.op, c.dtype, B, C, L, c.width, c.silu);
    desc.weight_dtype = c.weight_dtype;
    run_compare_repeat(&desc.header, args, outputs);
  });
}

// The state row batch row b steps (negative, or past the pool: padding),
// under Conv1dUpdateCase::pool's rule; b itself without a pool.
int64_t state_row_of(const Conv1dUpdateCase &c, int64_t b) {
  if (!c.pool) return b;
  if (b % 3 == 1) return b % 2 ? -1 : c.pool + b;
  return c.pool - 1 - 2 * b;  // distinct, and not the identity
}

Result run_conv1d_update(const Conv1dUpdateCase &c) {
  return guarded([&] {
    std::mt19937_64 rng(c.seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    const int64_t B = c.batch, C = c.channels, W = c.width, S = c.state_len, P = c.pool ? c.pool : B;
    const baracuda_dtype_t wdt = c.weight_dtype ? c.weight_dtype : c.dtype;
    int64_t total = 0;
    for (int64_t n : c.steps) total += n;
    std::vector<int64_t> prefix(B), row_of(B);
    for (int64_t b = 0; b < B; ++b) {
      prefix[b] = c.prefix.empty() ? 0 : c.prefix[b % c.prefix.size()];
      row_of[b] = state_row_of(c, b);
    }
    auto live = [&](int64_t b) { return row_of[b] >= 0 && row_of[b] < P; };

    // Whole sequences, rounded to the dtype, and the forward over each.
    const int64_t taps[2] = {C, W}, chan[1] = {C}, state_shape[3] = {P, C, S};
    int64_t taps_st[2], chan_st[1] = {1}, state_st[3];
    dense_strides(2, taps, taps_st);
    dense_strides(3, state_shape, state_st);
    TestTensor w, bias, state, seqlens, indices;
    Conv1dInputs common;
    common.channels = C, common.width = c.width, common.silu = c.silu, common.batch = 1;
    common.weight = random_tensor(w, wdt, 2, taps, taps_st, 0, rng);
    if (c.bias) common.bias = random_tensor(bias, wdt, 1, chan, chan_st, 0, rng);
    unsigned char scratch[16];
    auto rounded = [&](double v) {
      reference::encode_float(c.dtype, v, scratch);
      return reference::decode_float(c.dtype, scratch);
    };
    std::vector<std::vector<double>> seqs(B), ys(B);  // [C][prefix + total] each
    for (int64_t b = 0; b < B; ++b) {
      Conv1dInputs in = common;
      in.length = prefix[b] + total;
      for (int64_t i = 0; i < C * in.length; ++i) in.x.push_back(rounded(dist(rng)));
      std::vector<double> fin;
      reference::conv1d_forward(in, ys[b], fin);
      seqs[b] = in.x;
    }
    auto value = [&](int64_t b, int64_t ch, int64_t q) {  // input q of (b, ch); zero before the sequence
      const int64_t len = prefix[b] + total;
      return q < 0 ? 0.0 : seqs[b][ch * len + q];
    };
    // The state rows of live batch rows hold every input before the first
    // step; the pool's other rows keep their random bytes, which must survive.
    make_strided_tensor(state, c.dtype, 3, state_shape, state_st, 0, rng);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t ch = 0; ch < C && live(b); ++ch)
        for (int64_t s = 0; s < S; ++s) {
          const int64_t q = c.circular ? prefix[b] - S + ((s - prefix[b]) % S + S) % S : prefix[b] - S + s;
          const int64_t idx[3] = {row_of[b], ch, s};
          reference::encode_float(c.dtype, value(b, ch, q), state.view.elem(idx));
        }
    state.upload();
    const int64_t batch_shape[1] = {B}, batch_st[1] = {1};
    if (c.circular) make_strided_tensor(seqlens, BARACUDA_DTYPE_I32, 1, batch_shape, batch_st, 0, rng);
    if (c.pool) {
      make_strided_tensor(indices, BARACUDA_DTYPE_I32, 1, batch_shape, batch_st, 0, rng);
      for (int64_t b = 0; b < B; ++b)
        *reinterpret_cast<int32_t *>(indices.view.elem(&b)) = static_cast<int32_t>(row_of[b]);
      indices.upload();
    }

    int64_t done = 0;
    for (int64_t n : c.steps) {
      const bool flat = c.flat_tokens && n == 1;
      const int64_t tok_shape[3] = {B, C, n};
      int64_t tok_st[3];
      dense_strides(flat ? 2 : 3, tok_shape, tok_st);
      TestTensor x, y;
      make_strided_tensor(x, c.dtype, flat ? 2 : 3, tok_shape, tok_st, 0, rng);
      std::vector<double> ref;
      reference::for_each_index(3, tok_shape, [&](const int64_t *idx) {
        const int64_t q = prefix[idx[0]] + done + idx[2];
        reference::encode_float(c.dtype, value(idx[0], idx[1], q), x.view.elem(idx));
        ref.push_back(live(idx[0]) ? ys[idx[0]][idx[1] * (prefix[idx[0]] + total) + q] : 0.0);
      });
      x.upload();
      output_tensor(y, c.dtype, flat ? 2 : 3, tok_shape, tok_st, 0, rng);
      std::vector<baracuda_arg_t> args = {{BARACUDA_ARG_X, x.tensor}, {BARACUDA_ARG_WEIGHT, w.tensor},
                                          {BARACUDA_ARG_Y, y.tensor}, {BARACUDA_ARG_STATE, state.tensor}};
      if (c.bias) args.push_back({BARACUDA_ARG_BIAS, bias.tensor});
      if (c.circular) {
        for (int64_t b = 0; b < B; ++b)
          *reinterpret_cast<int32_t *>(seqlens.view.elem(&b)) = static_cast<int32_t>(prefix[b] + done);
        seqlens.upload();
        args.push_back({BARACUDA_ARG_CACHE_SEQLENS, seqlens.tensor});
      }
      if (c.pool) args.push_back({BARACUDA_ARG_CONV_STATE_INDICES, indices.tensor});
      baracuda_causal_conv1d_desc_t desc =
          make_desc(BARACUDA_OP_CAUSAL_CONV1D_UPDATE, c.dtype, B, C, n, c.width, c.silu);
      desc.state_len = S;
      desc.weight_dtype = c.weight_dtype;
      run_with_workspace(&desc.header, args);
      // Padding rows' Y must hold its poison; checked here, then written as
      // the zeros their reference holds, for the comparison of the rest.
      std::vector<unsigned char> got = y.download();
      const reference::HostView gv = y.view_of(got);
      reference::for_each_index(3, tok_shape, [&](const int64_t *idx) {
        if (live(idx[0])) return;
        const size_t bytes = static_cast<size_t>(gv.bits / 8), o = static_cast<size_t>(gv.at(idx)) * bytes;
        if (!std::equal(got.begin() + o, got.begin() + o + bytes, y.host.begin() + o))
          throw Fail{"Y of padding row " + std::to_string(idx[0]) + " was written"};
        reference::encode_float(c.dtype, 0.0, &got[o]);
      });
      compare_to_reference(y, got, ref, "Y of step " + std::to_string(done), tolerance(c.dtype));
      done += n;
    }
    // The state after the last step: live rows hold the inputs they should,
    // exactly; every other row of the pool its first bytes.
    std::vector<unsigned char> got = state.download();
    const reference::HostView v = state.view_of(got);
    std::vector<bool> stepped(P, false);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t ch = 0; ch < C && live(b); ++ch)
        for (int64_t s = 0; s < S; ++s) {
          stepped[row_of[b]] = true;
          const int64_t end = prefix[b] + total;
          const int64_t q = c.circular ? end - S + ((s - end) % S + S) % S : end - S + s;
          const int64_t idx[3] = {row_of[b], ch, s};
          if (reference::decode_float(c.dtype, v.elem(idx)) != value(b, ch, q))
            throw Fail{"STATE[" + std::to_string(row_of[b]) + "," + std::to_string(ch) + "," + std::to_string(s) +
                       "] does not hold input " + std::to_string(q) + " of batch row " + std::to_string(b)};
        }
    const size_t bytes = static_cast<size_t>(v.bits / 8);
    reference::for_each_index(3, state_shape, [&](const int64_t *idx) {  // state.host: the bytes uploaded
      if (!stepped[idx[0]] && !std::equal(v.elem(idx), v.elem(idx) + bytes, state.view.elem(idx)))
        throw Fail{"STATE row " + std::to_string(idx[0]) + ", which no batch row steps, was written"};
    });
  });
}

}  // namespace baracuda::check
