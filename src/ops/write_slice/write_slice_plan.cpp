// write_slice plan: dest[start:end] = source.
#include <cuda_runtime_api.h>

#include <memory>

#include "baracuda/write_slice.h"
#include "core/args.hpp"
#include "core/candidates.hpp"
#include "core/checked_math.hpp"
#include "core/descriptor.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/kernel_table.hpp"
#include "core/layout.hpp"
#include "core/plan.hpp"
#include "core/plan_info.hpp"
#include "core/tensor.hpp"
#include "ops/write_slice/write_slice_ops.hpp"
#include "write_slice/write_slice_kernels.h"

namespace baracuda::write_slice {

namespace {

using kernels::RowsEntry;

constexpr const char *kOp = kWriteSlice.name;

struct SliceSpec {
  baracuda_dtype_t dtype;
  int32_t rank;
  int64_t dest_shape[BARACUDA_MAX_RANK];
  int64_t start[BARACUDA_MAX_RANK];
  int64_t source_shape[BARACUDA_MAX_RANK];
};

SliceSpec read_desc(const baracuda_op_header_t *header) {
  const baracuda_write_slice_desc_t defaults = BARACUDA_WRITE_SLICE_DESC_INIT;
  const baracuda_write_slice_desc_t desc = read_descriptor(kWriteSlice, header, defaults);
  SliceSpec s{};
  s.dtype = desc.dtype;
  s.rank = desc.rank;
  require_rank(kWriteSlice, desc.rank);
  for (int32_t d = 0; d < s.rank; ++d) {
    const int64_t n = require_extent(kWriteSlice, cat("dest_shape[", d, "]"), desc.dest_shape[d]);
    const int64_t b = desc.start[d], e = desc.end[d];
    if (b < 0 || b > e || e > n)
      fail(BARACUDA_STATUS_INVALID_PROBLEM, kOp, ": axis ", d, " has start ", b, " and end ", e, " with dest_shape ",
           n, "; need 0 <= start <= end <= dest_shape");
    s.dest_shape[d] = n;
    s.start[d] = b;
    s.source_shape[d] = e - b;
  }
  require_element_count(kWriteSlice, "dest", s.rank, s.dest_shape);
  require_served_dtype(kWriteSlice, s.dtype);
  return s;
}

class WriteSlicePlan final : public Plan {
 public:
  WriteSlicePlan(const SliceSpec &spec, RowsEntry rows_entry) : spec_(spec), rows_entry_(rows_entry) {}

  void check(const baracuda_arg_t *args, int32_t num_args) const override { bind(args, num_args); }

  void run(const baracuda_arg_t *args, int32_t num_args, void *, size_t, baracuda_stream_t stream) const override {
    const Bound b = bind(args, num_args);
    if (element_count(spec_.rank, spec_.source_shape) == 0) return;
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
    kernels::VectorRowsCopy vectors;
    if (kernels::as_vector_rows(p, bytes, vectors))
      return check_launch(kernels::write_slice_vector_rows_run(vectors, stream), kOp);
    return check_launch(rows_entry_(p, stream), kOp);
  }

 private:
  struct Bound {
    const baracuda_tensor_t *dest;
    const baracuda_tensor_t *source;
  };

  Bound bind(const baracuda_arg_t *args, int32_t num_args) const {
    const BoundArgs bound = bind_args(kWriteSlice, args, num_args);
    validate_arg(kWriteSlice, bound, BARACUDA_ARG_DEST, spec_.dtype, spec_.rank, spec_.dest_shape);
    validate_arg(kWriteSlice, bound, BARACUDA_ARG_SOURCE, spec_.dtype, spec_.rank, spec_.source_shape);
    return {bound[BARACUDA_ARG_DEST], bound[BARACUDA_ARG_SOURCE]};
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
  RowsEntry rows_entry_;  // NULL for the nibble kernel
};

inline constexpr Keyed<RowsEntry> kRowsByWidth[] = {
    {1, kernels::write_slice_b1_run}, {2, kernels::write_slice_b2_run},   {4, kernels::write_slice_b4_run},
    {8, kernels::write_slice_b8_run}, {16, kernels::write_slice_b16_run},
};

WhyNot nibble_can_implement(const SliceSpec &s, const SelectContext &) {
  if (!dtype_is_nibble(s.dtype)) return cat(dtype_name(s.dtype), " is not a 4-bit dtype");
  return serves();
}

WhyNot rows_can_implement(const SliceSpec &s, const SelectContext &) {
  if (!table_has(kRowsByWidth, dtype_bytes(s.dtype))) return cat("no kernel for ", width_text(s.dtype));
  return serves();
}

int128 no_workspace(const SliceSpec &) { return 0; }

std::unique_ptr<Plan> make_nibble(const SliceSpec &s, const SelectContext &) {
  auto plan = std::make_unique<WriteSlicePlan>(s, nullptr);
  set_moves_data(plan->info);
  set_kernel_name(plan->info, "write_slice_nibble (memcpy when dense)");
  return plan;
}

std::unique_ptr<Plan> make_rows(const SliceSpec &s, const SelectContext &) {
  auto plan = std::make_unique<WriteSlicePlan>(s, kernel_for_width(kOp, kRowsByWidth, s.dtype));
  set_moves_data(plan->info);
  set_kernel_name(plan->info,
                  cat("write_slice_rows_b", dtype_bytes(s.dtype), " (vectors when aligned, memcpy when dense)"));
  return plan;
}

// Pure copies: no atomics, no arithmetic.
const Candidate<SliceSpec> kCandidates[] = {
    {{"write_slice_nibble", BARACUDA_BACKEND_BESPOKE, true, true}, nibble_can_implement, no_workspace, make_nibble},
    {{"write_slice_rows", BARACUDA_BACKEND_BESPOKE, true, true}, rows_can_implement, no_workspace, make_rows},
};

}  // namespace

std::unique_ptr<Plan> select_write_slice(const baracuda_op_header_t *desc, const SelectContext &ctx) {
  const SliceSpec spec = read_desc(desc);
  return select_candidate(kWriteSlice, spec.dtype, spec, ctx, kCandidates);
}

}  // namespace baracuda::write_slice
