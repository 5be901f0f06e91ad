// The small problems `baracuda check` runs: one row per op x dtype, each row
// covering every mode or layout that op has on a small odd-sized shape.
#include <string>

#include "reference/alibi_harness.hpp"
#include "reference/conv1d_harness.hpp"
#include "reference/harness.hpp"

namespace baracuda::check {

namespace {

// A fill value every dtype represents exactly (the reference encodes it itself).
double fill_value(baracuda_dtype_t dtype) {
  switch (dtype) {
    case BARACUDA_DTYPE_BOOL: return 1;
    case BARACUDA_DTYPE_U8: return 3;
    case BARACUDA_DTYPE_I32: case BARACUDA_DTYPE_I64: case BARACUDA_DTYPE_S8: return -3;
    default: return 1.5;
  }
}

Result all_modes(int32_t op, baracuda_dtype_t dtype) {
  for (int32_t mode = BARACUDA_PAD_CONSTANT; mode <= BARACUDA_PAD_CIRCULAR; ++mode) {
    PadCase c{pad_desc(op, dtype, mode, {3, 5, 37}, {1, 0, 3}, {2, 4, 5}, fill_value(dtype))};
    c.in_layout = Layout::Gapped;
    c.out_layout = Layout::Offset;
    Result r = run_pad(c);
    if (!r.ok) return {false, describe(c) + ": " + r.detail};
  }
  return {};
}

Result slices(baracuda_dtype_t dtype) {
  const SliceCase cases[] = {
      {slice_desc(dtype, {4, 9, 41}, {1, 2, 3}, {3, 9, 40}), Layout::Contiguous, Layout::Contiguous, 7},
      {slice_desc(dtype, {4, 9, 41}, {1, 0, 0}, {3, 9, 41}), Layout::Contiguous, Layout::Contiguous, 8},
      {slice_desc(dtype, {6, 33}, {1, 5}, {5, 30}), Layout::Gapped, Layout::ColumnMajor, 9},
  };
  for (const SliceCase &c : cases) {
    Result r = run_write_slice(c);
    if (!r.ok) return {false, describe(c) + ": " + r.detail};
  }
  return {};
}

// Forward and backward with every option, in both fast layouts and a strided one.
Result conv1d(int32_t op, baracuda_dtype_t dtype) {
  uint64_t seed = 40;
  for (SeqLayout layout : {SeqLayout::Contiguous, SeqLayout::ChannelsLast, SeqLayout::Strided}) {
    Conv1dCase c;
    c.op = op;
    c.dtype = dtype;
    c.batch = 2, c.channels = 24, c.length = 300, c.width = 4;
    c.silu = c.bias = c.initial = c.state_out = true;
    c.layout = layout;
    c.seed = seed++;
    Result r = run_conv1d(c);
    if (!r.ok) return {false, describe(c) + ": " + r.detail};
  }
  return {};
}

Result conv1d_update(baracuda_dtype_t dtype) {
  for (bool circular : {false, true}) {
    Conv1dUpdateCase c;
    c.dtype = dtype;
    c.batch = 2, c.channels = 24, c.width = 4, c.state_len = 5;
    c.silu = c.bias = true;
    c.prefix = {0, 7};
    c.steps = {1, 2, 1};
    c.circular = circular;
    Result r = run_conv1d_update(c);
    if (!r.ok) return {false, describe(c) + ": " + r.detail};
  }
  return {};
}

// Every convention and alignment on Q != K, padded scores, [H] and [B, H] slopes.
Result alibi(int32_t op, baracuda_dtype_t dtype) {
  uint64_t seed = 60;
  for (int32_t convention : {BARACUDA_ALIBI_SIGNED, BARACUDA_ALIBI_SYMMETRIC})
    for (int32_t alignment : {BARACUDA_ALIBI_TOP_LEFT, BARACUDA_ALIBI_BOTTOM_RIGHT}) {
      AlibiCase c;
      c.op = op;
      c.dtype = dtype;
      c.convention = convention;
      c.alignment = alignment;
      c.per_batch_slopes = alignment == BARACUDA_ALIBI_BOTTOM_RIGHT;
      c.batch = 2, c.heads = 3, c.queries = 37, c.keys = 301;
      c.layout = ScoresLayout::Padded;
      c.seed = seed++;
      Result r = run_alibi(c);
      if (!r.ok) return {false, describe(c) + ": " + r.detail};
    }
  return {};
}

}  // namespace

std::vector<NamedCase> smoke_cases() {
  std::vector<NamedCase> out;
  const uint64_t pad_mask = baracuda_op_dtype_mask(BARACUDA_OP_PAD);
  const uint64_t back_mask = baracuda_op_dtype_mask(BARACUDA_OP_PAD_BACKWARD);
  const uint64_t slice_mask = baracuda_op_dtype_mask(BARACUDA_OP_WRITE_SLICE);
  const uint64_t conv_mask = baracuda_op_dtype_mask(BARACUDA_OP_CAUSAL_CONV1D);
  const uint64_t alibi_mask = baracuda_op_dtype_mask(BARACUDA_OP_ALIBI);
  for (baracuda_dtype_t d = 1; d < BARACUDA_DTYPE_COUNT; ++d) {
    const std::string name = baracuda_dtype_name(d);
    if (pad_mask >> d & 1) out.push_back({"pad", name, [d] { return all_modes(BARACUDA_OP_PAD, d); }});
    if (back_mask >> d & 1)
      out.push_back({"pad_backward", name, [d] { return all_modes(BARACUDA_OP_PAD_BACKWARD, d); }});
    if (slice_mask >> d & 1) out.push_back({"write_slice", name, [d] { return slices(d); }});
    if (conv_mask >> d & 1) {
      out.push_back({"causal_conv1d", name, [d] { return conv1d(BARACUDA_OP_CAUSAL_CONV1D, d); }});
      out.push_back({"causal_conv1d_backward", name, [d] { return conv1d(BARACUDA_OP_CAUSAL_CONV1D_BACKWARD, d); }});
      out.push_back({"causal_conv1d_update", name, [d] { return conv1d_update(d); }});
    }
    if (alibi_mask >> d & 1) {
      out.push_back({"alibi", name, [d] { return alibi(BARACUDA_OP_ALIBI, d); }});
      out.push_back({"alibi_backward", name, [d] { return alibi(BARACUDA_OP_ALIBI_BACKWARD, d); }});
    }
  }
  return out;
}

}  // namespace baracuda::check
