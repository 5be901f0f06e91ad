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
#include <string>
#include <vector>

#include "baracuda/baracuda.h"
#include "bench_checks.hpp"

namespace {

__global__ void empty_kernel() {}

// Random bits, so that no timing runs on zeros.
__global__ void fill_random(uint32_t *p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint32_t v = static_cast<uint32_t>(i) * 2654435761u ^ seed;
    v ^= v >> 15;
    v *= 2246822519u;
    v ^= v >> 13;
    p[i] = (v & 0x3F7F3F7F);  // finite floats of any width (each 16-bit half too), magnitudes below 2
  }
}

struct Buffer {
  void *p = nullptr;
  size_t bytes = 0;
  explicit Buffer(size_t n) : bytes(n) {
    cuda(cudaMalloc(&p, n), "cudaMalloc");
    fill_random<<<1024, 256>>>(static_cast<uint32_t *>(p), n / 4, static_cast<uint32_t>(n));
    cuda(cudaGetLastError(), "fill_random");
  }
  ~Buffer() { cudaFree(p); }
};

double median_ms(const std::function<void()> &fn, int reps = 30) {
  cudaEvent_t a, b;
  cuda(cudaEventCreate(&a), "event");
  cuda(cudaEventCreate(&b), "event");
  for (int i = 0; i < 5; ++i) fn();
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    cuda(cudaEventRecord(a), "record");
    fn();
    cuda(cudaEventRecord(b), "record");
    cuda(cudaEventSynchronize(b), "sync");
    float ms;
    cuda(cudaEventElapsedTime(&ms, a, b), "elapsed");
    t.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Rows whose op name contains this (argv[1]) are timed; the rest are skipped.
const char *g_filter = "";

bool wanted(const std::string &op) { return op.find(g_filter) != std::string::npos; }

void row(const char *op, const char *dtype, const char *shape, double ms, double bytes) {
  std::printf("{\"op\": \"%s\", \"dtype\": \"%s\", \"shape\": \"%s\", \"ms\": %.5f, \"bytes\": %.0f}\n", op, dtype,
              shape, ms, bytes);
  std::fflush(stdout);
}

struct Plan {
  baracuda_plan_t p = nullptr;
  void *workspace = nullptr;
  size_t workspace_bytes = 0;
  explicit Plan(const baracuda_op_header_t *d, const baracuda_select_options_t *options = nullptr) {
    ok(baracuda_plan_select(d, options, &p), "select");
    ok(baracuda_plan_workspace_size(p, &workspace_bytes), "workspace_size");
    if (workspace_bytes) cuda(cudaMalloc(&workspace, workspace_bytes), "cudaMalloc workspace");
  }
  ~Plan() {
    baracuda_plan_destroy(p);
    cudaFree(workspace);
  }
  void run(const std::vector<baracuda_arg_t> &args) const {
    ok(baracuda_plan_run(p, args.data(), static_cast<int32_t>(args.size()), workspace, workspace_bytes, nullptr),
       "run");
  }
};

baracuda_tensor_t tensor(void *p, baracuda_dtype_t dt, std::vector<int64_t> shape) {
  return baracuda_tensor_contiguous(p, dt, static_cast<int32_t>(shape.size()), shape.data());
}

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

// Attention at every row of ../shared/reference/baselines-h200.md's table
// (bf16, both causal modes; the deterministic backward on the first shape)
// and its f32 forward row. TFLOP/s counts 4*B*H*S*S*D forward, halved when
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
  bench_sdpa(BARACUDA_DTYPE_F32, "f32", 4, 4, 16, 2048, 64, false, false, false);
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
  // The floor of the launch-bound rows (conv1d update, ALiBi decoding).
  if (wanted("causal_conv1d_update") || wanted("alibi") || wanted("empty_kernel"))
    row("empty_kernel", "-", "<<<1, 32>>>", median_ms([] { empty_kernel<<<1, 32>>>(); }, 200), 0);
  if (wanted("host_overhead")) bench_host_overhead();
  return 0;
}
