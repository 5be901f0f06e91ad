#include "reference/harness.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>

#include "reference/device_tensor.hpp"
#include "reference/reference.hpp"

namespace baracuda::check {

namespace {

// Lays out shape in a fresh buffer filled with random bytes.
void make_tensor(TestTensor &t, baracuda_dtype_t dtype, int32_t rank, const int64_t *shape, Layout layout,
                 std::mt19937_64 &rng) {
  const int32_t bits = baracuda_dtype_bits(dtype);
  int64_t strides[BARACUDA_MAX_RANK] = {};
  int64_t stride = 1;
  if (layout == Layout::ColumnMajor) {
    for (int32_t d = 0; d < rank; ++d) {
      strides[d] = stride;
      stride *= std::max<int64_t>(shape[d], 1);
    }
  } else {
    for (int32_t d = rank - 1; d >= 0; --d) {
      const int64_t scale = layout == Layout::InnerStride2 && d == rank - 1 ? 2 : 1;
      strides[d] = stride * scale;
      stride *= std::max<int64_t>(shape[d], 1) * scale + (layout == Layout::Gapped ? 1 : 0);
    }
    if (layout == Layout::Broadcast) strides[0] = 0;
  }
  // Offset: one element past a 16-byte boundary (two nibbles for S4/U4, which are byte-addressed).
  const int64_t offset = layout == Layout::Offset ? (bits < 8 ? 2 : 1) : 0;
  make_strided_tensor(t, dtype, rank, shape, strides, offset, rng);
}

// Random values in [-1, 1] for every element slot of a float buffer.
void fill_float(TestTensor &t, baracuda_dtype_t dtype, std::mt19937_64 &rng) {
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  const size_t size = static_cast<size_t>(baracuda_dtype_bits(dtype) / 8);
  for (size_t at = 0; at + size <= t.host.size(); at += size) reference::encode_float(dtype, dist(rng), &t.host[at]);
}

void run_plan(const baracuda_op_header_t *desc, const baracuda_arg_t *args, int32_t n, cudaStream_t stream) {
  PlanGuard g;
  status(baracuda_plan_select(desc, nullptr, &g.plan), "baracuda_plan_select");
  status(baracuda_plan_check(g.plan, args, n), "baracuda_plan_check");
  status(baracuda_plan_run(g.plan, args, n, nullptr, 0, stream), "baracuda_plan_run");
  cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
}

std::string first_difference(const std::vector<unsigned char> &got, const std::vector<unsigned char> &want) {
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i]) {
      std::ostringstream os;
      os << "byte " << i << " of " << got.size() << " is 0x" << std::hex << int(got[i]) << ", expected 0x"
         << int(want[i]);
      return os.str();
    }
  return {};
}

std::string shape_text(int32_t rank, const int64_t *v) {
  std::ostringstream os;
  os << '[';
  for (int32_t d = 0; d < rank; ++d) os << (d ? "," : "") << v[d];
  os << ']';
  return os.str();
}

// The largest sum of |dy| over one dx cell's sources: the scale of a pad
// backward sum's rounding. A dx cell's sum may cancel far below its terms
// (12 f32 dy cells of 7.5 in magnitude summed to -8.2e-4), and any f32 sum of
// them is then further off that cell than its own size can measure.
double largest_source_magnitude(const baracuda_pad_desc_t &desc, const TestTensor &dy) {
  std::vector<unsigned char> magnitudes = dy.host;
  const reference::HostView v = dy.view_of(magnitudes);
  const int32_t size = v.bits / 8;
  reference::for_each_index(v.rank, v.shape, [&](const int64_t *idx) { v.elem(idx)[size - 1] &= 0x7F; });
  const std::vector<double> sums = reference::pad_backward(desc, v);
  double largest = 0;
  for (double x : sums) largest = std::max(largest, x);
  return largest;
}

}  // namespace

const char *layout_name(Layout l) {
  switch (l) {
    case Layout::Contiguous: return "contiguous";
    case Layout::Gapped: return "gapped";
    case Layout::InnerStride2: return "inner-stride-2";
    case Layout::ColumnMajor: return "column-major";
    case Layout::Broadcast: return "broadcast";
    case Layout::Offset: return "offset";
  }
  return "?";
}

bool build_serves(int32_t sm) {
  baracuda_build_info_t b = BARACUDA_BUILD_INFO_INIT;
  if (baracuda_get_build_info(&b) != BARACUDA_STATUS_SUCCESS) return false;
  bool served = b.ptx_arch <= sm;
  for (int i = 0; i < b.num_sass_archs; ++i) served |= b.sass_archs[i] / 10 == sm / 10 && b.sass_archs[i] <= sm;
  return served;
}

double tolerance(baracuda_dtype_t dtype) {
  switch (dtype) {
    case BARACUDA_DTYPE_F64: return 1e-12;
    case BARACUDA_DTYPE_F16: return 1e-3;
    case BARACUDA_DTYPE_BF16: return 8e-3;
    default: return 1e-5;
  }
}

baracuda_pad_desc_t pad_desc(int32_t op, baracuda_dtype_t dtype, int32_t mode, std::vector<int64_t> shape,
                             std::vector<int64_t> low, std::vector<int64_t> high, double value) {
  baracuda_pad_desc_t d = BARACUDA_PAD_DESC_INIT;
  d.header.op = op;
  d.dtype = dtype;
  d.mode = mode;
  d.rank = static_cast<int32_t>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    d.input_shape[i] = shape[i];
    d.pad_low[i] = low[i];
    d.pad_high[i] = high[i];
  }
  d.value = value;
  return d;
}

baracuda_write_slice_desc_t slice_desc(baracuda_dtype_t dtype, std::vector<int64_t> dest_shape,
                                       std::vector<int64_t> start, std::vector<int64_t> end) {
  baracuda_write_slice_desc_t d = BARACUDA_WRITE_SLICE_DESC_INIT;
  d.dtype = dtype;
  d.rank = static_cast<int32_t>(dest_shape.size());
  for (size_t i = 0; i < dest_shape.size(); ++i) {
    d.dest_shape[i] = dest_shape[i];
    d.start[i] = start[i];
    d.end[i] = end[i];
  }
  return d;
}

std::string describe(const PadCase &c) {
  std::ostringstream os;
  os << (c.desc.header.op == BARACUDA_OP_PAD ? "pad " : "pad_backward ") << baracuda_dtype_name(c.desc.dtype)
     << " mode " << c.desc.mode << " in " << shape_text(c.desc.rank, c.desc.input_shape) << " low "
     << shape_text(c.desc.rank, c.desc.pad_low) << " high " << shape_text(c.desc.rank, c.desc.pad_high) << " "
     << layout_name(c.in_layout) << " -> " << layout_name(c.out_layout);
  return os.str();
}

std::string describe(const SliceCase &c) {
  std::ostringstream os;
  os << "write_slice " << baracuda_dtype_name(c.desc.dtype) << " dest " << shape_text(c.desc.rank, c.desc.dest_shape)
     << " start " << shape_text(c.desc.rank, c.desc.start) << " end " << shape_text(c.desc.rank, c.desc.end) << " "
     << layout_name(c.source_layout) << " -> " << layout_name(c.dest_layout);
  return os.str();
}

Result run_pad(const PadCase &c, cudaStream_t stream) {
  return guarded([&] {
    const bool backward = c.desc.header.op == BARACUDA_OP_PAD_BACKWARD;
    std::mt19937_64 rng(c.seed);
    int64_t out_shape[BARACUDA_MAX_RANK];
    for (int32_t d = 0; d < c.desc.rank; ++d)
      out_shape[d] = c.desc.input_shape[d] + c.desc.pad_low[d] + c.desc.pad_high[d];
    const int64_t *in_shape = backward ? out_shape : c.desc.input_shape;
    const int64_t *res_shape = backward ? c.desc.input_shape : out_shape;
    TestTensor in, out;
    make_tensor(in, c.desc.dtype, c.desc.rank, in_shape, c.in_layout, rng);
    make_tensor(out, c.desc.dtype, c.desc.rank, res_shape, c.out_layout, rng);  // random bytes: the poison
    if (backward) fill_float(in, c.desc.dtype, rng);
    in.upload();
    out.upload();
    const baracuda_arg_t args[2] = {{backward ? BARACUDA_ARG_DY : BARACUDA_ARG_X, in.tensor},
                                    {backward ? BARACUDA_ARG_DX : BARACUDA_ARG_Y, out.tensor}};
    run_plan(&c.desc.header, args, 2, stream);
    const std::vector<unsigned char> got = out.download();
    if (backward) {
      compare_to_reference(out, got, reference::pad_backward(c.desc, in.view), "dx", tolerance(c.desc.dtype),
                           largest_source_magnitude(c.desc, in));
    } else {
      std::vector<unsigned char> want = out.host;
      reference::pad_forward(c.desc, in.view, out.view_of(want));
      if (std::string diff = first_difference(got, want); !diff.empty()) throw Fail{diff};
    }
    if (c.repeat_bitwise) {
      out.upload();
      run_plan(&c.desc.header, args, 2, stream);
      if (out.download() != got) throw Fail{"a second run gave different bytes"};
    }
  });
}

Result run_write_slice(const SliceCase &c, cudaStream_t stream) {
  return guarded([&] {
    std::mt19937_64 rng(c.seed);
    int64_t source_shape[BARACUDA_MAX_RANK];
    for (int32_t d = 0; d < c.desc.rank; ++d) source_shape[d] = c.desc.end[d] - c.desc.start[d];
    TestTensor dest, source;
    make_tensor(dest, c.desc.dtype, c.desc.rank, c.desc.dest_shape, c.dest_layout, rng);
    make_tensor(source, c.desc.dtype, c.desc.rank, source_shape, c.source_layout, rng);
    dest.upload();
    source.upload();
    const baracuda_arg_t args[2] = {{BARACUDA_ARG_DEST, dest.tensor}, {BARACUDA_ARG_SOURCE, source.tensor}};
    run_plan(&c.desc.header, args, 2, stream);
    std::vector<unsigned char> want = dest.host;
    reference::write_slice(c.desc, dest.view_of(want), source.view);
    if (std::string diff = first_difference(dest.download(), want); !diff.empty()) throw Fail{diff};
  });
}

}  // namespace baracuda::check
