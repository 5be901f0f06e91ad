// GPU benchmarks of the shape family, causal conv1d, ALiBi and attention on the
// issues' problem sizes, timed with CUDA events (median of many runs after warm-up).
// Each big buffer is 0.5 to 2 GiB, far past the 60 MB L2, so runs need no
// buffer rotation. Writes
// one JSON object per row to stdout; bench/report.py adds the PyTorch side.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "baracuda/baracuda.h"
#include "bench_checks.hpp"
#include "bench_harness.hpp"
#include "bench_normal_fill.hpp"

namespace {

// Rows whose op name contains this (argv[1]) are timed; the rest are skipped.
const char *g_filter = "";

bool wanted(const std::string &op) { return op.find(g_filter) != std::string::npos; }

void bench_dtype(baracuda_dtype_t dt, const char *name, int elem) {
  const int64_t B = 8, H = 4096, W = 8192;
  const std::vector<int64_t> in{B, H, W}, out{B + 2, H, W + 8};
  const double in_bytes = double(B) * H * W * elem, out_bytes = double(B + 2) * H * (W + 8) * elem;
  Buffer x(static_cast<size_t>(in_bytes)), y(static_cast<size_t>(out_bytes));

  for (int32_t mode : {BARACUDA_PAD_CONSTANT, BARACUDA_PAD_REFLECT}) {
    const char *mode_name = mode == BARACUDA_PAD_CONSTANT ? "constant" : "reflect";
    baracuda_pad_desc_t d = BARACUDA_PAD_DESC_INIT;
    d.dtype = dt;
    d.mode = mode;
    d.rank = 3;
    for (int i = 0; i < 3; ++i) d.input_shape[i] = in[i];
    d.pad_low[0] = 1, d.pad_high[0] = 1, d.pad_low[2] = 3, d.pad_high[2] = 5;
    {
      Plan p(&d.header);
      const std::vector<baracuda_arg_t> args{{BARACUDA_ARG_X, tensor(x.p, dt, in)}, {BARACUDA_ARG_Y, tensor(y.p, dt, out)}};
      if (wanted(std::string("pad_") + mode_name))
        row((std::string("pad_") + mode_name).c_str(), name, "[8,4096,8192]", median_ms([&] { p.run(args); }),
            in_bytes + out_bytes);
    }
    d.header.op = BARACUDA_OP_PAD_BACKWARD;
    {
      Plan p(&d.header);
      const std::vector<baracuda_arg_t> args{{BARACUDA_ARG_DY, tensor(y.p, dt, out)},
                                             {BARACUDA_ARG_DX, tensor(x.p, dt, in)}};
      // Constant's backward reads only the interior of dy; the others read all of it.
      const double bytes = mode == BARACUDA_PAD_CONSTANT ? 2 * in_bytes : in_bytes + out_bytes;
      if (wanted(std::string("pad_backward_") + mode_name))
        row((std::string("pad_backward_") + mode_name).c_str(), name, "[8,4096,8192]",
            median_ms([&] { p.run(args); }), bytes);
    }
  }
  {
    baracuda_write_slice_desc_t d = BARACUDA_WRITE_SLICE_DESC_INIT;
    d.dtype = dt;
    d.rank = 3;
    const int64_t start[3] = {0, 100, 17}, end[3] = {B, 3000, 8000};
    for (int i = 0; i < 3; ++i) d.dest_shape[i] = in[i], d.start[i] = start[i], d.end[i] = end[i];
    const std::vector<int64_t> src{B, 2900, 7983};
    Plan p(&d.header);
    const std::vector<baracuda_arg_t> args{{BARACUDA_ARG_DEST, tensor(x.p, dt, in)},
                                           {BARACUDA_ARG_SOURCE, tensor(y.p, dt, src)}};
    if (wanted("write_slice"))
      row("write_slice", name, "dest[:,100:3000,17:8000]", median_ms([&] { p.run(args); }),
          2.0 * double(B) * 2900 * 7983 * elem);
  }
  if (wanted("copy_d2d"))
    row("copy_d2d", name, "[8,4096,8192]",
        median_ms([&] { cuda(cudaMemcpyAsync(y.p, x.p, x.bytes, cudaMemcpyDeviceToDevice), "copy"); }), 2 * in_bytes);
}

// Writes packed sequences into ids, SEQ_IDX [B, L]: runs of 256 to 2303
// timesteps (as Mamba-2's packed batches), numbered across the batch.
void upload_packed_sequence_ids(const Buffer &buffer, int64_t B, int64_t L) {
  std::vector<int32_t> ids(B * L);
  int32_t next = 0;
  uint32_t h = 2024;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < L; ++next) {
      h = h * 1664525u + 1013904223u;
      const int64_t n = std::min<int64_t>(256 + (h >> 21), L - t);
      std::fill(ids.begin() + b * L + t, ids.begin() + b * L + t + n, next);
      t += n;
    }
  cuda(cudaMemcpy(buffer.p, ids.data(), ids.size() * sizeof(int32_t), cudaMemcpyHostToDevice),
       "upload sequence ids");
}

// Causal conv1d, B=8 C=4096 L=8192 with bias and SiLU, in both layouts, at
// widths 4, 6 and 8, and at width 4 with packed sequences (SEQ_IDX, whose
// bytes are not counted); the decoding update at B=64 C=8192, W 4 and 8,
// beside an empty kernel's time. Weights, bias and their gradients in
// weight_dt (0: dt; f32 beside 16-bit x is how Mamba trains).
void bench_conv1d(baracuda_dtype_t dt, const char *name, int elem, baracuda_dtype_t weight_dt = 0) {
  const int64_t B = 8, C = 4096, L = 8192, kMaxW = 8;
  const baracuda_dtype_t wdt = weight_dt ? weight_dt : dt;
  const int64_t welem = baracuda_dtype_bits(wdt) / 8;
  const double seq_bytes = double(B) * C * L * elem;
  Buffer x(static_cast<size_t>(seq_bytes)), y(static_cast<size_t>(seq_bytes)), dy(static_cast<size_t>(seq_bytes));
  Buffer w(C * kMaxW * welem), bias(C * welem), dw(C * kMaxW * welem), db(C * welem);
  const Buffer ids(B * L * sizeof(int32_t));
  upload_packed_sequence_ids(ids, B, L);
  struct Variant {
    int64_t width;
    bool packed;
  };
  for (const Variant v : {Variant{4, false}, Variant{6, false}, Variant{8, false}, Variant{4, true}})
    for (bool channels_last : {false, true}) {
      const int64_t W = v.width;
      auto seq = [&](void *p) {
        baracuda_tensor_t t = tensor(p, dt, {B, C, L});
        if (channels_last) t.strides[0] = L * C, t.strides[1] = 1, t.strides[2] = C;
        return t;
      };
      // The W 4 rows keep their names of earlier runs.
      const std::string shape = std::string(channels_last ? "[8,4096,8192] channels-last" : "[8,4096,8192]") +
                                (W != 4 ? " W" + std::to_string(W) : "") + (v.packed ? " seq_idx" : "");
      const baracuda_arg_t seq_idx{BARACUDA_ARG_SEQ_IDX, tensor(ids.p, BARACUDA_DTYPE_I32, {B, L})};
      baracuda_causal_conv1d_desc_t d = BARACUDA_CAUSAL_CONV1D_DESC_INIT;
      d.dtype = dt;
      d.width = static_cast<int32_t>(W);
      d.activation = BARACUDA_ACTIVATION_SILU;
      d.weight_dtype = weight_dt;
      d.batch = B, d.channels = C, d.seq_len = L;
      if (wanted("causal_conv1d_forward")) {
        Plan p(&d.header);
        std::vector<baracuda_arg_t> args{{BARACUDA_ARG_X, seq(x.p)},
                                         {BARACUDA_ARG_WEIGHT, tensor(w.p, wdt, {C, W})},
                                         {BARACUDA_ARG_BIAS, tensor(bias.p, wdt, {C})},
                                         {BARACUDA_ARG_Y, seq(y.p)}};
        if (v.packed) args.push_back(seq_idx);
        row("causal_conv1d_forward", name, shape.c_str(), median_ms([&] { p.run(args); }), 2 * seq_bytes);
      }
      d.header.op = BARACUDA_OP_CAUSAL_CONV1D_BACKWARD;
      if (wanted("causal_conv1d_backward")) {
        Plan p(&d.header);
        std::vector<baracuda_arg_t> args{
            {BARACUDA_ARG_X, seq(x.p)},           {BARACUDA_ARG_WEIGHT, tensor(w.p, wdt, {C, W})},
            {BARACUDA_ARG_BIAS, tensor(bias.p, wdt, {C})}, {BARACUDA_ARG_DY, seq(dy.p)},
            {BARACUDA_ARG_DX, seq(y.p)},          {BARACUDA_ARG_DW, tensor(dw.p, wdt, {C, W})},
            {BARACUDA_ARG_DB, tensor(db.p, wdt, {C})}};
        if (v.packed) args.push_back(seq_idx);
        row("causal_conv1d_backward", name, shape.c_str(), median_ms([&] { p.run(args); }), 3 * seq_bytes);
      }
    }
  if (wanted("causal_conv1d_update"))
    for (const int64_t W : {int64_t{4}, int64_t{8}}) {
      const int64_t UB = 64, UC = 8192, S = W - 1;
      Buffer ux(UB * UC * elem), uy(UB * UC * elem), state(UB * UC * S * elem), uw(UC * W * welem), ub(UC * welem);
      baracuda_causal_conv1d_desc_t d = BARACUDA_CAUSAL_CONV1D_UPDATE_DESC_INIT;
      d.dtype = dt;
      d.weight_dtype = weight_dt;
      d.width = static_cast<int32_t>(W);
      d.activation = BARACUDA_ACTIVATION_SILU;
      d.batch = UB, d.channels = UC, d.seq_len = 1, d.state_len = S;
      Plan p(&d.header);
      const std::vector<baracuda_arg_t> args{{BARACUDA_ARG_X, tensor(ux.p, dt, {UB, UC})},
                                             {BARACUDA_ARG_WEIGHT, tensor(uw.p, wdt, {UC, W})},
                                             {BARACUDA_ARG_BIAS, tensor(ub.p, wdt, {UC})},
                                             {BARACUDA_ARG_Y, tensor(uy.p, dt, {UB, UC})},
                                             {BARACUDA_ARG_STATE, tensor(state.p, dt, {UB, UC, S})}};
      const std::string shape = "B64 C8192 W" + std::to_string(W) + " state " + std::to_string(S);
      // Bytes: x and y once, the state read and written.
      row("causal_conv1d_update", name, shape.c_str(), median_ms([&] { p.run(args); }, 200),
          double(UB) * UC * elem * (2 + 2 * S));
    }
}

// ALiBi at B=4 H=32 Q=K=2048, and a decoding step (B=1 H=32 Q=1 K=32768, a few
// MB: launch-bound, to be read beside the empty kernel). Forward bytes: scores
// read, y written; backward with both outputs: dy read, dscores written.
void bench_alibi(baracuda_dtype_t dt, const char *name, int elem) {
  struct Problem {
    int64_t batch, heads, queries, keys;
    const char *shape;
    int reps;
  };
  for (const Problem &p : {Problem{4, 32, 2048, 2048, "[4,32,2048,2048]", 30},
                           Problem{1, 32, 1, 32768, "decode [1,32,1,32768]", 200}}) {
    const std::vector<int64_t> shape{p.batch, p.heads, p.queries, p.keys}, heads{p.heads};
    const double bytes = double(p.batch) * p.heads * p.queries * p.keys * elem;
    Buffer scores(static_cast<size_t>(bytes)), y(static_cast<size_t>(bytes)), slopes(p.heads * 4),
        dslopes(p.heads * 4);
    baracuda_alibi_desc_t d = BARACUDA_ALIBI_DESC_INIT;
    d.dtype = dt;
    d.slopes_dtype = BARACUDA_DTYPE_F32;
    d.batch = p.batch, d.heads = p.heads, d.queries = p.queries, d.keys = p.keys;
    if (wanted("alibi_forward")) {
      Plan plan(&d.header);
      const std::vector<baracuda_arg_t> args{{BARACUDA_ARG_SCORES, tensor(scores.p, dt, shape)},
                                             {BARACUDA_ARG_SLOPES, tensor(slopes.p, BARACUDA_DTYPE_F32, heads)},
                                             {BARACUDA_ARG_Y, tensor(y.p, dt, shape)}};
      row("alibi_forward", name, p.shape, median_ms([&] { plan.run(args); }, p.reps), 2 * bytes);
    }
    d.header.op = BARACUDA_OP_ALIBI_BACKWARD;
    if (wanted("alibi_backward")) {
      Plan plan(&d.header);
      const std::vector<baracuda_arg_t> args{{BARACUDA_ARG_DY, tensor(y.p, dt, shape)},
                                             {BARACUDA_ARG_DSCORES, tensor(scores.p, dt, shape)},
                                             {BARACUDA_ARG_DSLOPES, tensor(dslopes.p, BARACUDA_DTYPE_F32, heads)}};
      row("alibi_backward", name, p.shape, median_ms([&] { plan.run(args); }, p.reps), 2 * bytes);
    }
  }
}

// Attention's inputs (q, k, v, dout) hold standard-normal values, as
// bench/torch_sdpa.py's torch.randn tensors do, so that both sides time the
// same distribution; a tensor's seed is its argument's number.
void fill_attention_input(const Buffer &b, baracuda_dtype_t dt, int32_t arg) {
  fill_standard_normal(b.p, dt, b.bytes / (baracuda_dtype_bits(dt) / 8), static_cast<uint64_t>(arg));
}

// Attention at every row of ../shared/reference/baselines-h200.md's table
// (bf16, both causal modes; the deterministic backward on the first shape)
// and its f32 forward row, both causal modes and D 128 too. TFLOP/s counts 4*B*H*S*S*D forward, halved when
// causal, and 2.5 times that backward, as that file does.
void sdpa_row(const char *op, const char *dtype, const std::string &shape, double ms, double flops,
              baracuda_plan_t plan) {
  baracuda_plan_info_t info = BARACUDA_PLAN_INFO_INIT;
  ok(baracuda_plan_get_info(plan, &info), "get_info");
  std::printf("{\"op\": \"%s\", \"dtype\": \"%s\", \"shape\": \"%s\", \"ms\": %.5f, \"bytes\": 0, \"flops\": %.0f, "
              "\"kernel\": \"%s\"}\n",
              op, dtype, shape.c_str(), ms, flops, info.kernel_name);
  std::fflush(stdout);
}

void bench_sdpa(baracuda_dtype_t dt, const char *name, int elem, int64_t B, int64_t H, int64_t S, int64_t D,
                bool causal, bool backward, bool deterministic_too) {
  const std::string shape = "B" + std::to_string(B) + " H" + std::to_string(H) + " S" + std::to_string(S) + " D" +
                            std::to_string(D) + (causal ? " causal" : " non-causal");
  const std::vector<int64_t> rows{B, H, S, D}, stats{B, H, S};
  const size_t bytes = static_cast<size_t>(B * H * S * D * elem);
  const baracuda_dtype_t stats_dt = dt == BARACUDA_DTYPE_F64 ? BARACUDA_DTYPE_F64 : BARACUDA_DTYPE_F32;
  Buffer q(bytes), k(bytes), v(bytes), out(bytes), lse(static_cast<size_t>(B * H * S * 8));
  fill_attention_input(q, dt, BARACUDA_ARG_Q);
  fill_attention_input(k, dt, BARACUDA_ARG_K);
  fill_attention_input(v, dt, BARACUDA_ARG_V);
  baracuda_sdpa_desc_t d = BARACUDA_SDPA_DESC_INIT;
  d.dtype = dt;
  d.head_dim = static_cast<int32_t>(D);
  d.causal = causal;
  d.batch = B, d.heads_q = H, d.queries = d.keys = S;
  const double flops = 4.0 * B * H * S * S * D / (causal ? 2 : 1);
  std::vector<baracuda_arg_t> args{{BARACUDA_ARG_Q, tensor(q.p, dt, rows)},     {BARACUDA_ARG_K, tensor(k.p, dt, rows)},
                                   {BARACUDA_ARG_V, tensor(v.p, dt, rows)},     {BARACUDA_ARG_OUT, tensor(out.p, dt, rows)},
                                   {BARACUDA_ARG_LSE, tensor(lse.p, stats_dt, stats)}};
  {
    Plan fwd(&d.header);
    const double ms = median_ms([&] { fwd.run(args); });  // also leaves the backward its out and lse
    if (wanted("sdpa_forward")) sdpa_row("sdpa_forward", name, shape, ms, flops, fwd.p);
  }
  if (!backward || !wanted("sdpa_backward_deterministic")) return;  // a filter that names either backward row
  Buffer dout(bytes), dq(bytes), dk(bytes), dv(bytes);
  fill_attention_input(dout, dt, BARACUDA_ARG_DOUT);
  args.insert(args.end(), {{BARACUDA_ARG_DOUT, tensor(dout.p, dt, rows)},
                           {BARACUDA_ARG_DQ, tensor(dq.p, dt, rows)},
                           {BARACUDA_ARG_DK, tensor(dk.p, dt, rows)},
                           {BARACUDA_ARG_DV, tensor(dv.p, dt, rows)}});
  d.header.op = BARACUDA_OP_SDPA_BACKWARD;
  for (bool deterministic : {false, true}) {
    const char *op = deterministic ? "sdpa_backward_deterministic" : "sdpa_backward";
    if ((deterministic && !deterministic_too) || !wanted(op)) continue;
    baracuda_select_options_t o = BARACUDA_SELECT_OPTIONS_INIT;
    o.flags = deterministic ? BARACUDA_SELECT_DETERMINISTIC : 0;
    Plan bwd(&d.header, &o);
    sdpa_row(op, name, shape, median_ms([&] { bwd.run(args); }, 20), 2.5 * flops, bwd.p);
  }
}

void bench_attention() {
  if (!wanted("sdpa_forward") && !wanted("sdpa_backward_deterministic")) return;
  struct Shape {
    int64_t B, H, S, D;
  };
  const Shape shapes[] = {{4, 32, 4096, 128}, {2, 32, 8192, 128}, {16, 16, 1024, 64}, {8, 16, 2048, 256}};
  for (const Shape &s : shapes)
    for (bool causal : {false, true})
      bench_sdpa(BARACUDA_DTYPE_BF16, "bf16", 2, s.B, s.H, s.S, s.D, causal, true, &s == &shapes[0]);
  // f32: the 3xTF32 tensor-core forward, and the CUDA-core one that F32_STRICT gets, beside it.
  for (baracuda_dtype_t dt : {BARACUDA_DTYPE_F32, BARACUDA_DTYPE_F32_STRICT})
    for (int64_t d : {64, 128})
      for (bool causal : {false, true})
        bench_sdpa(dt, dt == BARACUDA_DTYPE_F32 ? "f32" : "f32_strict", 4, 4, 16, 2048, d, causal, false, false);
}

// One forced candidate of a row timed in turn (sdpa_rows_in_turn): its plan (or why
// it refused), its workspace and its best time.
struct TimedCandidate {
  const char *name;
  baracuda_plan_t plan = nullptr;
  std::unique_ptr<Buffer> ws;
  size_t ws_bytes = 0;
  double select_ms = 0, best_ms = 1e30;
  std::string refused;
  TimedCandidate(const char *candidate, const baracuda_op_header_t *desc) : name(candidate) {
    setenv("BARACUDA_FORCE_CANDIDATE", candidate, 1);
    const auto t0 = std::chrono::steady_clock::now();
    const baracuda_status_t selected = baracuda_plan_select(desc, nullptr, &plan);
    select_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    unsetenv("BARACUDA_FORCE_CANDIDATE");
    if (selected != BARACUDA_STATUS_SUCCESS) {
      refused = baracuda_last_error_message();
      plan = nullptr;
      return;
    }
    ok(baracuda_plan_workspace_size(plan, &ws_bytes), "workspace_size");
    ws = std::make_unique<Buffer>(std::max<size_t>(ws_bytes, 4));
  }
  ~TimedCandidate() {
    if (plan) baracuda_plan_destroy(plan);
  }
  void run(const std::vector<baracuda_arg_t> &args) const {
    ok(baracuda_plan_run(plan, args.data(), static_cast<int32_t>(args.size()), ws->p, ws_bytes, nullptr), "run");
  }
};

// Whether BENCH_SDPA_CANDIDATES (comma-separated parts of names, e.g. "bwd"
// or "bwd_cudnn$,bwd_sm90": a part ending in $ ends the name; all when
// unset) keeps a candidate.
bool candidate_wanted(const std::string &candidate) {
  const char *only = std::getenv("BENCH_SDPA_CANDIDATES");
  if (only == nullptr) return true;
  const std::string list = only, name = candidate + "$";
  for (size_t at = 0; at <= list.size();) {
    const size_t end = std::min(list.find(',', at), list.size());
    if (end > at && name.find(list.substr(at, end - at)) != std::string::npos) return true;
    at = end + 1;
  }
  return false;
}

// A row's candidates (f16 / bf16, those candidate_wanted keeps) forced on the
// same tensors: every plan built first, then 200 ms of warm-up (BENCH_SDPA_WARM_MS), then the
// candidates timed in turn, three rounds, each one's figure the best of its
// rounds; one JSON row each with the kernel its plan names, or the reason it
// refused. The H200 runs these rows at its 700 W cap, its clock set by the
// work just before: timed one after the other, cuDNN's backward, right after
// its select had idled the GPU for 0.6 s, ran at 1980 MHz (574 TFLOP/s at B4
// H32 S4096 D128) and the Hopper backward right after it at 1860 MHz (483):
// 0.84x, 0.94x in turn (bench/NOTES.md, session 21). The backward's out and
// lse come from the default forward plan (or BENCH_SDPA_OUT_FROM's); causal rows use the bottom-right
// diagonal (top-left when Q = K).
void sdpa_row_in_turn(baracuda_dtype_t dt, int64_t B, int64_t H, int64_t Q, int64_t K, int32_t D, bool causal,
                      const std::vector<const char *> &candidates) {
  std::vector<const char *> kept;
  for (const char *c : candidates)
    if (candidate_wanted(c)) kept.push_back(c);
  if (kept.empty()) return;
  baracuda_sdpa_desc_t d = BARACUDA_SDPA_DESC_INIT;
  d.dtype = dt;
  d.head_dim = D;
  d.causal = causal;
  d.alignment = BARACUDA_SDPA_BOTTOM_RIGHT;
  d.batch = B, d.heads_q = H, d.queries = Q, d.keys = K;
  const std::vector<int64_t> qs{B, H, Q, D}, ks{B, H, K, D}, stats{B, H, Q};
  const size_t q_bytes = static_cast<size_t>(B * H * Q * D * 2), k_bytes = static_cast<size_t>(B * H * K * D * 2);
  Buffer q(q_bytes), k(k_bytes), v(k_bytes), out(q_bytes), lse(B * H * Q * 4), dout(q_bytes), dq(q_bytes),
      dk(k_bytes), dv(k_bytes), fwd_out(q_bytes), fwd_lse(lse.bytes);
  fill_attention_input(q, dt, BARACUDA_ARG_Q);
  fill_attention_input(k, dt, BARACUDA_ARG_K);
  fill_attention_input(v, dt, BARACUDA_ARG_V);
  fill_attention_input(dout, dt, BARACUDA_ARG_DOUT);
  const std::vector<baracuda_arg_t> inputs{{BARACUDA_ARG_Q, tensor(q.p, dt, qs)},
                                           {BARACUDA_ARG_K, tensor(k.p, dt, ks)},
                                           {BARACUDA_ARG_V, tensor(v.p, dt, ks)}};
  // The forward candidates write their own out and lse; the backward's come from the default plan.
  std::vector<baracuda_arg_t> fwd_args = inputs, bwd_args = inputs;
  fwd_args.insert(fwd_args.end(), {{BARACUDA_ARG_OUT, tensor(fwd_out.p, dt, qs)},
                                   {BARACUDA_ARG_LSE, tensor(fwd_lse.p, BARACUDA_DTYPE_F32, stats)}});
  bwd_args.insert(bwd_args.end(), {{BARACUDA_ARG_OUT, tensor(out.p, dt, qs)},
                                   {BARACUDA_ARG_LSE, tensor(lse.p, BARACUDA_DTYPE_F32, stats)}});
  const auto is_backward = [](const char *name) { return std::string(name).find("_bwd_") != std::string::npos; };
  if (std::any_of(kept.begin(), kept.end(), is_backward)) {
    // BENCH_SDPA_OUT_FROM: the forward candidate that writes them (its select
    // builds no cuDNN graph where it names a bespoke kernel).
    const char *from = std::getenv("BENCH_SDPA_OUT_FROM");
    if (from != nullptr) setenv("BARACUDA_FORCE_CANDIDATE", from, 1);
    Plan(&d.header).run(bwd_args);
    if (from != nullptr) unsetenv("BARACUDA_FORCE_CANDIDATE");
  }
  bwd_args.insert(bwd_args.end(), {{BARACUDA_ARG_DOUT, tensor(dout.p, dt, qs)},
                                   {BARACUDA_ARG_DQ, tensor(dq.p, dt, qs)},
                                   {BARACUDA_ARG_DK, tensor(dk.p, dt, ks)},
                                   {BARACUDA_ARG_DV, tensor(dv.p, dt, ks)}});
  baracuda_sdpa_desc_t bd = d;
  bd.header.op = BARACUDA_OP_SDPA_BACKWARD;
  std::vector<std::unique_ptr<TimedCandidate>> runs;
  for (const char *candidate : kept)
    runs.push_back(std::make_unique<TimedCandidate>(candidate, is_backward(candidate) ? &bd.header : &d.header));
  auto args_of = [&](const TimedCandidate &c) -> const std::vector<baracuda_arg_t> & {
    return is_backward(c.name) ? bwd_args : fwd_args;
  };
  const char *warm_ms = std::getenv("BENCH_SDPA_WARM_MS");  // 200 ms; less for a long grid
  const double warm_s = (warm_ms ? std::atof(warm_ms) : 200.0) / 1000;
  const auto warm = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - warm).count() < warm_s) {
    for (const auto &c : runs)
      if (c->plan) c->run(args_of(*c));
    cuda(cudaDeviceSynchronize(), "warm-up");
  }
  const char *reps = std::getenv("BENCH_SDPA_REPS");  // timed runs a round (10; fewer for a long grid)
  // Every other round in the reverse order: of two kernels timed in turn at
  // the power cap, the first ran 7-8% ahead whichever it was (the probe, B4
  // H32 S4096 D128, both orders: bench/NOTES.md, session 22).
  for (int round = 0; round < 3; ++round)
    for (size_t i = 0; i < runs.size(); ++i) {
      const auto &c = runs[round % 2 == 0 ? i : runs.size() - 1 - i];
      if (c->plan)
        c->best_ms = std::min(c->best_ms, median_ms([&] { c->run(args_of(*c)); }, reps ? std::atoi(reps) : 10));
    }
  const double pairs = causal ? double(Q) * K - double(Q) * (Q - 1) / 2 : double(Q) * K;  // keys seen, Q <= K
  const std::string shape = std::string(dt == BARACUDA_DTYPE_BF16 ? "bf16" : "f16") + " D" + std::to_string(D) +
                            (causal ? " causal" : " non-causal") + " BH" + std::to_string(B * H) + " Q" +
                            std::to_string(Q) + " K" + std::to_string(K);
  for (const auto &c : runs) {
    if (!c->plan) {
      std::printf("{\"op\": \"sdpa_grid\", \"candidate\": \"%s\", \"shape\": \"%s\", \"refused\": \"%s\"}\n", c->name,
                  shape.c_str(), c->refused.c_str());
      continue;
    }
    const double flops = 4.0 * B * H * D * pairs * (is_backward(c->name) ? 2.5 : 1.0);
    baracuda_plan_info_t info = BARACUDA_PLAN_INFO_INIT;
    ok(baracuda_plan_get_info(c->plan, &info), "get_info");
    std::printf("{\"op\": \"sdpa_grid\", \"candidate\": \"%s\", \"shape\": \"%s\", \"ms\": %.5f, \"tflops\": %.1f, "
                "\"select_ms\": %.1f, \"kernel\": \"%s\"}\n",
                c->name, shape.c_str(), c->best_ms, flops / c->best_ms / 1e9, c->select_ms, info.kernel_name);
  }
  std::fflush(stdout);
}

// Whether a comma-separated list in environment variable `name` (unset:
// everything) holds `value`.
bool listed(const char *name, const std::string &value) {
  const char *list = std::getenv(name);
  return list == nullptr || ("," + std::string(list) + ",").find("," + value + ",") != std::string::npos;
}

// The grid behind src/ops/sdpa/sdpa_backend_heuristics.hpp: every f16 / bf16
// attention candidate forced on each point (sdpa_row_in_turn), forward and
// backward, the deterministic backwards too. Run only when the filter names it ("sdpa_grid"): it builds a
// cuDNN graph per shape. Stops after seconds_left seconds so that a device
// call ends in time. BENCH_SDPA_GRID_DTYPE ("bf16,f16"), BENCH_SDPA_GRID_D
// ("128,64,256") and BENCH_SDPA_GRID_CAUSAL ("0,1") keep parts of it.
void bench_sdpa_grid(double seconds_left) {
  if (std::string(g_filter).find("sdpa_grid") == std::string::npos) return;
  const auto start = std::chrono::steady_clock::now();
  struct Point {
    int64_t B, H, Q, K;
  };
  const Point points[] = {{4, 16, 512, 512},   {32, 16, 512, 512},  {1, 16, 2048, 2048}, {8, 16, 2048, 2048},
                          {2, 16, 4096, 4096}, {8, 16, 4096, 4096}, {16, 16, 1, 4096},   {2, 16, 256, 8192}};
  const std::vector<const char *> candidates{"sdpa_fwd_cudnn",
                                             "sdpa_fwd_sm90_wgmma",
                                             "sdpa_fwd_sm80",
                                             "sdpa_bwd_cudnn",
                                             "sdpa_bwd_sm90_wgmma",
                                             "sdpa_bwd_sm80",
                                             "sdpa_bwd_cudnn_deterministic",
                                             "sdpa_bwd_sm90_deterministic"};
  for (baracuda_dtype_t dt : {BARACUDA_DTYPE_BF16, BARACUDA_DTYPE_F16})
    for (int32_t D : {128, 64, 256})
      for (bool causal : {false, true}) {
        if (!listed("BENCH_SDPA_GRID_DTYPE", dt == BARACUDA_DTYPE_BF16 ? "bf16" : "f16") ||
            !listed("BENCH_SDPA_GRID_D", std::to_string(D)) || !listed("BENCH_SDPA_GRID_CAUSAL", causal ? "1" : "0"))
          continue;
        for (const Point &p : points) {
          if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds_left) {
            std::printf("{\"op\": \"sdpa_grid\", \"stopped\": \"time is up\"}\n");
            return;
          }
          sdpa_row_in_turn(dt, p.B, p.H, p.Q, p.K, D, causal, candidates);
        }
      }
}

// Host microseconds of one forward plan run (its launch enqueued, not
// waited for) with the candidate forced, on a small problem: the Hopper
// kernel's per-run tensor-map encoding shows beside the sm_80 kernel's.
void sdpa_host_cost(const char *candidate) {
  baracuda_sdpa_desc_t d = BARACUDA_SDPA_DESC_INIT;
  d.dtype = BARACUDA_DTYPE_BF16;
  d.head_dim = 128;
  d.batch = 1, d.heads_q = 1, d.queries = d.keys = 128;
  const std::vector<int64_t> rows{1, 1, 128, 128};
  Buffer q(128 * 128 * 2), k(q.bytes), v(q.bytes), out(q.bytes);
  const std::vector<baracuda_arg_t> args{{BARACUDA_ARG_Q, tensor(q.p, d.dtype, rows)},
                                         {BARACUDA_ARG_K, tensor(k.p, d.dtype, rows)},
                                         {BARACUDA_ARG_V, tensor(v.p, d.dtype, rows)},
                                         {BARACUDA_ARG_OUT, tensor(out.p, d.dtype, rows)}};
  setenv("BARACUDA_FORCE_CANDIDATE", candidate, 1);
  Plan plan(&d.header);
  unsetenv("BARACUDA_FORCE_CANDIDATE");
  const int n = 2000;
  for (int i = 0; i < 100; ++i) plan.run(args);
  cuda(cudaDeviceSynchronize(), "sync");
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) plan.run(args);
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / n;
  cuda(cudaDeviceSynchronize(), "sync");
  std::printf("{\"op\": \"sdpa_host_cost\", \"candidate\": \"%s\", \"run_us\": %.2f}\n", candidate, us);
}

// The attention table's rows (bf16, both causal modes) with each forward and
// backward candidate forced (the deterministic backwards too), in turn
// (sdpa_row_in_turn). Stops after seconds_left seconds; BENCH_SDPA_ROWS
// ("6,7,0"): only those rows, in that order, numbered from 0 in the order below.
void bench_sdpa_candidates(double seconds_left) {
  if (std::string(g_filter).find("sdpa_candidates") == std::string::npos) return;
  const auto start = std::chrono::steady_clock::now();
  struct Shape {
    int64_t B, H, S;
    int32_t D;
  };
  const Shape shapes[] = {{4, 32, 4096, 128}, {2, 32, 8192, 128}, {16, 16, 1024, 64}, {8, 16, 2048, 256}};
  std::string order = "01234567";
  if (const char *only = std::getenv("BENCH_SDPA_ROWS")) {
    order.clear();
    for (const char *x = only; *x; ++x)
      if (*x >= '0' && *x <= '7') order += *x;
  }
  for (const char row : order) {
    const Shape &s = shapes[(row - '0') / 2];
    const bool causal = (row - '0') % 2 == 1;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds_left) {
      std::printf("{\"op\": \"sdpa_grid\", \"stopped\": \"time is up\"}\n");
      return;
    }
    sdpa_row_in_turn(BARACUDA_DTYPE_BF16, s.B, s.H, s.S, s.S, s.D, causal,
                     {"sdpa_fwd_cudnn", "sdpa_fwd_sm90_wgmma", "sdpa_fwd_sm80", "sdpa_bwd_cudnn",
                      "sdpa_bwd_sm90_wgmma", "sdpa_bwd_sm80", "sdpa_bwd_cudnn_deterministic",
                      "sdpa_bwd_sm90_deterministic"});
  }
  for (const char *candidate : {"sdpa_fwd_sm90_wgmma", "sdpa_fwd_sm80"})
    if (candidate_wanted(candidate)) sdpa_host_cost(candidate);
}

// Host time of one plan run on a tiny tensor, beside a bare kernel launch.
void bench_host_overhead() {
  const int n = 200000;
  float *x, *y;
  cuda(cudaMalloc(reinterpret_cast<void **>(&x), 64), "cudaMalloc");
  cuda(cudaMalloc(reinterpret_cast<void **>(&y), 64), "cudaMalloc");
  baracuda_pad_desc_t d = BARACUDA_PAD_DESC_INIT;
  d.dtype = BARACUDA_DTYPE_F32;
  d.rank = 1;
  d.input_shape[0] = 4;
  d.pad_low[0] = 2;
  d.pad_high[0] = 2;
  Plan p(&d.header);
  const std::vector<baracuda_arg_t> args{{BARACUDA_ARG_X, tensor(x, BARACUDA_DTYPE_F32, {4})},
                                         {BARACUDA_ARG_Y, tensor(y, BARACUDA_DTYPE_F32, {8})}};
  cudaStream_t s;
  cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  auto host_us = [&](const std::function<void()> &fn) {
    for (int i = 0; i < 1000; ++i) fn();
    cuda(cudaStreamSynchronize(s), "sync");
    double best = 1e30;
    for (int trial = 0; trial < 5; ++trial) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < n / 5; ++i) fn();
      const auto t1 = std::chrono::steady_clock::now();
      cuda(cudaStreamSynchronize(s), "sync");
      best = std::min(best, std::chrono::duration<double, std::micro>(t1 - t0).count() / (n / 5));
    }
    return best;
  };
  const double bare = host_us([&] { empty_kernel<<<1, 32, 0, s>>>(); });
  const double plan = host_us([&] { ok(baracuda_plan_run(p.p, args.data(), 2, nullptr, 0, s), "run"); });
  std::printf("{\"op\": \"host_overhead\", \"bare_launch_us\": %.3f, \"plan_run_us\": %.3f}\n", bare, plan);
  cudaStreamDestroy(s);
  cudaFree(x);
  cudaFree(y);
}

}  // namespace

int main(int argc, char **argv) {
  if (argc > 1) g_filter = argv[1];
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::fprintf(stderr, "bench_ops: no CUDA device\n");
    return 77;
  }
  bench_dtype(BARACUDA_DTYPE_F32, "f32", 4);
  bench_dtype(BARACUDA_DTYPE_BF16, "bf16", 2);
  bench_conv1d(BARACUDA_DTYPE_F32, "f32", 4);
  bench_conv1d(BARACUDA_DTYPE_BF16, "bf16", 2);
  bench_conv1d(BARACUDA_DTYPE_BF16, "bf16_f32w", 2, BARACUDA_DTYPE_F32);
  bench_alibi(BARACUDA_DTYPE_F32, "f32", 4);
  bench_alibi(BARACUDA_DTYPE_BF16, "bf16", 2);
  bench_attention();
  bench_sdpa_grid(argc > 2 ? std::atof(argv[2]) : 1e9);
  bench_sdpa_candidates(argc > 2 ? std::atof(argv[2]) : 1e9);
  // The floor of the launch-bound rows (conv1d update, ALiBi decoding).
  if (wanted("causal_conv1d_update") || wanted("alibi") || wanted("empty_kernel"))
    row("empty_kernel", "-", "<<<1, 32>>>", median_ms([] { empty_kernel<<<1, 32>>>(); }, 200), 0);
  if (wanted("host_overhead")) bench_host_overhead();
  return 0;
}
