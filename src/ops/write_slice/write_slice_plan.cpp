// write_slice plan: dest[start:end] = source.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <memory>

#include "baracuda/write_slice.h"
#include "core/args.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/layout.hpp"
#include "core/plan.hpp"
#include "core/tensor.hpp"
#include "core/versioned.hpp"
#include "ops/write_slice/write_slice_ops.hpp"
#include "write_slice/write_slice_kernels.h"

namespace baracuda::write_slice {

namespace {

constexpr const char *kOp = "write_slice";
constexpr int64_t kMaxExtent = int64_t{1} << 62;

struct SliceSpec {
  baracuda_dtype_t dtype;
  int32_t rank;
  int64_t dest_shape[BARACUDA_MAX_RANK];
  int64_t start[BARACUDA_MAX_RANK];
  int64_t source_shape[BARACUDA_MAX_RANK];
};

SliceSpec read_desc(const baracuda_op_header_t *header) {
  constexpr int32_t invalid = BARACUDA_STATUS_INVALID_PROBLEM;
  const baracuda_write_slice_desc_t defaults = BARACUDA_WRITE_SLICE_DESC_INIT;
  const baracuda_write_slice_desc_t desc = read_versioned(kOp, "descriptor", header, header->struct_size,
                                                          sizeof(baracuda_write_slice_desc_t), defaults);
  SliceSpec s{};
  s.dtype = desc.dtype;
  s.rank = desc.rank;
  if (!dtype_valid(desc.dtype)) fail(invalid, kOp, ": dtype ", desc.dtype, " is not a dtype");
  if (desc.rank < 1 || desc.rank > BARACUDA_MAX_RANK) fail(invalid, kOp, ": rank is ", desc.rank, ", must be 1 to 8");
  __int128 numel = 1;
  for (int32_t d = 0; d < s.rank; ++d) {
    const int64_t n = desc.dest_shape[d], b = desc.start[d], e = desc.end[d];
    if (n < 0 || n > kMaxExtent) fail(invalid, kOp, ": dest_shape[", d, "] is ", n, ", must be 0 to 2^62");
    if (b < 0 || b > e || e > n)
      fail(invalid, kOp, ": axis ", d, " has start ", b, " and end ", e, " with dest_shape ", n,
           "; need 0 <= start <= end <= dest_shape");
    numel *= n;
    if (numel > kMaxExtent) fail(invalid, kOp, ": dest has over 2^62 elements");
    s.dest_shape[d] = n;
    s.start[d] = b;
    s.source_shape[d] = e - b;
  }
  if (s.dtype == BARACUDA_DTYPE_BIN) fail(BARACUDA_STATUS_UNSUPPORTED, kOp, ": dtype bin is not served");
  return s;
}

class WriteSlicePlan final : public Plan {
 public:
  WriteSlicePlan(const SliceSpec &spec, const SelectContext &ctx) : spec_(spec) {
    info.op = BARACUDA_OP_WRITE_SLICE;
    info.dtype = spec.dtype;
    info.target_sm = ctx.target_sm;
    info.backend = BARACUDA_BACKEND_BESPOKE;
    info.deterministic = 1;
    info.bit_stable = 1;
    if (dtype_is_nibble(spec.dtype))
      std::snprintf(info.kernel_name, sizeof info.kernel_name, "write_slice_nibble (memcpy when dense)");
    else
      std::snprintf(info.kernel_name, sizeof info.kernel_name, "write_slice_rows_b%d (memcpy when dense)",
                    dtype_bytes(spec.dtype));
  }

  void check(const baracuda_arg_t *args, int32_t num_args) const override { bind(args, num_args); }

  void run(const baracuda_arg_t *args, int32_t num_args, void *, size_t, baracuda_stream_t stream) const override {
    const Bound b = bind(args, num_args);
    if (shape_numel(spec_.rank, spec_.source_shape) == 0) return;
    const AxisSet axes = layout(b);
    const int32_t inner = axes.rank - 1;
    const bool dense = axes.rank == 1 && axes.stride[0][0] == 1 && axes.stride[1][0] == 1;
    const int64_t count = axes.extent[inner];
    int64_t offset = 0;  // of the window's first element in dest, in elements
    for (int32_t d = 0; d < spec_.rank; ++d) offset += spec_.start[d] * b.dest->strides[d];

    if (dtype_is_nibble(spec_.dtype)) {
      auto *dest = static_cast<uint8_t *>(b.dest->data);
      if (dense && offset % 2 == 0 && count % 2 == 0) return copy(dest + offset / 2, b.source->data, count / 2, stream);
      kernels::NibbleSliceProblem p;
      p.rank = axes.rank;
      for (int32_t d = 0; d < axes.rank; ++d) {
        p.extent[d] = axes.extent[d];
        p.dest_stride[d] = axes.stride[0][d];
        p.source_stride[d] = axes.stride[1][d];
      }
      p.dest_offset = offset;
      p.dest = dest;
      p.source = static_cast<const uint8_t *>(b.source->data);
      return check_launch(kernels::write_slice_nibble_run(p, stream), kOp);
    }

    const int32_t bytes = dtype_bytes(spec_.dtype);
    auto *window = static_cast<unsigned char *>(b.dest->data) + offset * bytes;
    if (dense) return copy(window, b.source->data, count * bytes, stream);
    kernels::RowsProblem p;
    p.rank = axes.rank;
    p.map = kernels::IndexMap::Copy;
    for (int32_t d = 0; d < axes.rank; ++d) {
      p.out_extent[d] = p.in_extent[d] = axes.extent[d];
      p.out_stride[d] = axes.stride[0][d];
      p.in_stride[d] = axes.stride[1][d];
    }
    p.out = window;
    p.in = b.source->data;
    return check_launch(kernels::kWriteSliceByWidth[kernels::width_slot(bytes)](p, stream), kOp);
  }

 private:
  struct Bound {
    const baracuda_tensor_t *dest;
    const baracuda_tensor_t *source;
  };

  Bound bind(const baracuda_arg_t *args, int32_t num_args) const {
    static constexpr RoleSpec roles[2] = {{BARACUDA_ARG_DEST, true}, {BARACUDA_ARG_SOURCE, true}};
    const baracuda_tensor_t *t[2];
    bind_args(kOp, args, num_args, roles, 2, t);
    validate_tensor(*t[0], {kOp, "DEST", spec_.dtype, spec_.rank, spec_.dest_shape, true});
    validate_tensor(*t[1], {kOp, "SOURCE", spec_.dtype, spec_.rank, spec_.source_shape, false});
    return {t[0], t[1]};
  }

  // The window of dest (tensor 0) and the source (tensor 1), merged.
  AxisSet layout(const Bound &b) const {
    AxisSet axes;
    axes.rank = spec_.rank;
    axes.tensors = 2;
    for (int32_t d = 0; d < spec_.rank; ++d) {
      axes.extent[d] = spec_.source_shape[d];
      axes.stride[0][d] = b.dest->strides[d];
      axes.stride[1][d] = b.source->strides[d];
      axes.origin[d] = d;
    }
    return simplify_axes(axes);
  }

  static void copy(void *dst, const void *src, int64_t bytes, baracuda_stream_t stream) {
    check_cuda(cudaMemcpyAsync(dst, src, static_cast<size_t>(bytes), cudaMemcpyDeviceToDevice, stream), kOp,
               "cudaMemcpyAsync");
  }

  SliceSpec spec_;
};

}  // namespace

std::unique_ptr<Plan> select_write_slice(const baracuda_op_header_t *desc, const SelectContext &ctx) {
  return std::make_unique<WriteSlicePlan>(read_desc(desc), ctx);
}

uint64_t write_slice_dtypes() {
  uint64_t mask = 0;
  for (baracuda_dtype_t d = 1; d < BARACUDA_DTYPE_COUNT; ++d)
    if (d != BARACUDA_DTYPE_BIN) mask |= dtype_bit(d);
  return mask;
}

}  // namespace baracuda::write_slice
