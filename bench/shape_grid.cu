// The shape family on a grid of shapes (issue 14): pad and pad backward in
// every mode over ranks 2 to 5, padded axes inner and outer, small and large
// pads; write_slice as KV-cache appends of 1 to 4096 tokens into a
// [B, H, S, D] cache; f32, bf16 and f16; each row timed in turn with a
// device-to-device copy of as many bytes (SameSizeCopy), beside a 512 MiB
// copy of each dtype and an empty kernel, timed the same way. One JSON row
// per line for bench/report.py (% of the same-size copy):
//   build/bench/shape_grid [filter] | python3 bench/report.py /dev/stdin
#include <cuda_runtime.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "baracuda/baracuda.h"
#include "bench_harness.hpp"

namespace {

// Rows whose op name contains this (argv[1]) are timed; the rest are skipped.
const char *g_filter = "";

bool wanted(const std::string &op) { return op.find(g_filter) != std::string::npos; }

struct DtypeCase {
  baracuda_dtype_t dtype;
  const char *name;
  int bytes;
};
constexpr DtypeCase kDtypes[] = {
    {BARACUDA_DTYPE_F32, "f32", 4}, {BARACUDA_DTYPE_BF16, "bf16", 2}, {BARACUDA_DTYPE_F16, "f16", 2}};

struct Mode {
  int32_t mode;
  const char *name;
};
constexpr Mode kModes[] = {{BARACUDA_PAD_CONSTANT, "constant"},
                           {BARACUDA_PAD_REFLECT, "reflect"},
                           {BARACUDA_PAD_REPLICATE, "replicate"},
                           {BARACUDA_PAD_CIRCULAR, "circular"}};

// An input shape (64 to 134 M elements: every tensor far past the 60 MB L2)
// and its pads, low and high per axis.
struct PadCase {
  std::vector<int64_t> shape, low, high;
};
const PadCase kPadCases[] = {
    {{16384, 8192}, {0, 3}, {0, 5}},                           // rank 2, the inner axis, small pads
    {{16384, 8192}, {2, 0}, {3, 0}},                           // rank 2, the outer axis
    {{16384, 8192}, {0, 100}, {0, 300}},                       // rank 2, large inner pads
    {{16, 2048, 4096}, {0, 3, 7}, {0, 2, 9}},                  // rank 3, the two inner axes (F.pad (7, 9, 3, 2))
    {{16, 2048, 4096}, {1, 0, 0}, {1, 0, 0}},                  // rank 3, the outer axis alone
    {{8, 64, 512, 512}, {0, 0, 1, 1}, {0, 0, 1, 1}},           // rank 4, a convolution's spatial pad
    {{8, 64, 512, 512}, {0, 0, 16, 16}, {0, 0, 16, 16}},       // rank 4, large spatial pads
    {{4, 32, 64, 64, 128}, {0, 0, 2, 2, 2}, {0, 0, 2, 2, 2}},  // rank 5, three inner axes
    {{4, 32, 64, 64, 127}, {0, 1, 0, 0, 3}, {0, 0, 0, 0, 4}},  // rank 5, an odd row and an outer axis
};

std::string shape_text(const PadCase &c) {
  std::string s = "[";
  for (size_t i = 0; i < c.shape.size(); ++i) s += (i ? "," : "") + std::to_string(c.shape[i]);
  s += "] pads";
  for (size_t i = 0; i < c.shape.size(); ++i)
    if (c.low[i] || c.high[i]) s += " " + std::to_string(i) + ":(" + std::to_string(c.low[i]) + "," +
                                     std::to_string(c.high[i]) + ")";
  return s;
}

int64_t count(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  return n;
}

// A device-to-device copy moving as many bytes as a row (half read, half
// written), timed in turn with the row: each row's "% of copy" is against a
// transfer of its size at the GPU's clock of that moment. One 512 MiB copy a
// dtype, timed before the dtype's rows, is no fair measure: it pays a
// launch's fixed cost over more bytes than a row does, and the clock under
// the power cap drifts between it and rows timed seconds later (session
// 21's grid: bf16's copy ran at 3835 GB/s, f16's at 4158, and rows of the
// same kernel read 84-87% against one and 90-92% against the other).
struct SameSizeCopy {
  Buffer from, to;
  std::vector<float> ms;  // every turn's copy time, for one row of the row's shape
  explicit SameSizeCopy(double row_bytes) : from(copy_bytes(row_bytes)), to(copy_bytes(row_bytes)) {}
  static size_t copy_bytes(double row_bytes) { return (static_cast<size_t>(row_bytes / 2) + 15) / 16 * 16; }
  // fn's median ms, timed in turn with this copy.
  double beside(const std::function<void()> &fn, int reps = 30) {
    const auto t = times_in_turn(
        {fn, [&] { cuda(cudaMemcpyAsync(to.p, from.p, from.bytes, cudaMemcpyDeviceToDevice), "copy"); }}, reps);
    ms.insert(ms.end(), t[1].begin(), t[1].end());
    return median_of(t[0]);
  }
  void report(const DtypeCase &dt, const std::string &shape) const {
    if (!ms.empty()) row("copy_d2d_same_size", dt.name, shape.c_str(), median_of(ms), 2.0 * from.bytes);
  }
};

// A pad case's rows, forward and backward in every mode, each beside a copy of
// as many bytes as the forward moves (the one copy row of the case; bench/report.py
// takes a row's % against the copy of its dtype and shape).
void bench_pad(const DtypeCase &dt, const PadCase &c) {
  std::vector<int64_t> out = c.shape;
  for (size_t i = 0; i < out.size(); ++i) out[i] += c.low[i] + c.high[i];
  const double in_bytes = double(count(c.shape)) * dt.bytes, out_bytes = double(count(out)) * dt.bytes;
  bool any = false;
  for (const Mode &m : kModes)
    any |= wanted(std::string("pad_") + m.name) || wanted(std::string("pad_backward_") + m.name);
  if (!any) return;
  Buffer x(static_cast<size_t>(in_bytes)), y(static_cast<size_t>(out_bytes));
  SameSizeCopy copy(in_bytes + out_bytes);
  const std::string shape = shape_text(c);
  for (const Mode &m : kModes) {
    const std::string forward = std::string("pad_") + m.name, backward = std::string("pad_backward_") + m.name;
    baracuda_pad_desc_t d = BARACUDA_PAD_DESC_INIT;
    d.dtype = dt.dtype;
    d.mode = m.mode;
    d.rank = static_cast<int32_t>(c.shape.size());
    for (size_t i = 0; i < c.shape.size(); ++i)
      d.input_shape[i] = c.shape[i], d.pad_low[i] = c.low[i], d.pad_high[i] = c.high[i];
    if (wanted(forward)) {
      Plan p(&d.header);
      const std::vector<baracuda_arg_t> args{{BARACUDA_ARG_X, tensor(x.p, dt.dtype, c.shape)},
                                             {BARACUDA_ARG_Y, tensor(y.p, dt.dtype, out)}};
      row(forward.c_str(), dt.name, shape.c_str(), copy.beside([&] { p.run(args); }), in_bytes + out_bytes);
    }
    if (!wanted(backward)) continue;
    d.header.op = BARACUDA_OP_PAD_BACKWARD;
    Plan p(&d.header);
    const std::vector<baracuda_arg_t> args{{BARACUDA_ARG_DY, tensor(y.p, dt.dtype, out)},
                                           {BARACUDA_ARG_DX, tensor(x.p, dt.dtype, c.shape)}};
    // Constant's backward reads only the interior of dy; the others read all of it.
    const double bytes = m.mode == BARACUDA_PAD_CONSTANT ? 2 * in_bytes : in_bytes + out_bytes;
    row(backward.c_str(), dt.name, shape.c_str(), copy.beside([&] { p.run(args); }), bytes);
  }
  copy.report(dt, shape);
}

// Appends of n tokens at position 1000 (0 for 4096) of a [16, 32, 4096, 128]
// cache: bytes are the source read and its copy written.
void bench_kv_append(const DtypeCase &dt) {
  if (!wanted("write_slice")) return;
  const std::vector<int64_t> cache{16, 32, 4096, 128};
  Buffer dest(static_cast<size_t>(count(cache) * dt.bytes));
  for (int64_t n : {1, 4, 16, 128, 1024, 4096}) {
    const int64_t at = n == 4096 ? 0 : 1000;
    const std::vector<int64_t> source{16, 32, n, 128};
    Buffer src(static_cast<size_t>(count(source) * dt.bytes));
    baracuda_write_slice_desc_t d = BARACUDA_WRITE_SLICE_DESC_INIT;
    d.dtype = dt.dtype;
    d.rank = 4;
    for (int i = 0; i < 4; ++i) d.dest_shape[i] = cache[i], d.start[i] = 0, d.end[i] = cache[i];
    d.start[2] = at, d.end[2] = at + n;
    Plan p(&d.header);
    const std::vector<baracuda_arg_t> args{{BARACUDA_ARG_DEST, tensor(dest.p, dt.dtype, cache)},
                                           {BARACUDA_ARG_SOURCE, tensor(src.p, dt.dtype, source)}};
    const std::string shape = "cache [16,32,4096,128] append " + std::to_string(n) + " at " + std::to_string(at);
    const int reps = n < 128 ? 200 : 30;
    // Beside a copy of as many bytes: the rate a transfer of this size can reach.
    SameSizeCopy copy(2.0 * src.bytes);
    row("write_slice", dt.name, shape.c_str(), copy.beside([&] { p.run(args); }, reps), 2.0 * count(source) * dt.bytes);
    copy.report(dt, shape);
  }
}

void bench_copy(const DtypeCase &dt) {
  const size_t bytes = size_t{512} << 20;
  Buffer a(bytes), b(bytes);
  row("copy_d2d", dt.name, "512 MiB",
      median_ms([&] { cuda(cudaMemcpyAsync(b.p, a.p, bytes, cudaMemcpyDeviceToDevice), "copy"); }), 2.0 * bytes);
}

}  // namespace

int main(int argc, char **argv) {
  if (argc > 1) g_filter = argv[1];
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::fprintf(stderr, "shape_grid: no CUDA device\n");
    return 77;
  }
  for (const DtypeCase &dt : kDtypes) {
    bench_copy(dt);
    for (const PadCase &c : kPadCases) bench_pad(dt, c);
    bench_kv_append(dt);
  }
  row("empty_kernel", "-", "<<<1, 32>>>", median_ms([] { empty_kernel<<<1, 32>>>(); }, 200), 0);
  return 0;
}
