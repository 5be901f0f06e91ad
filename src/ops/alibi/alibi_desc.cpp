#include "ops/alibi/alibi_desc.hpp"

#include "core/descriptor.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "ops/alibi/alibi_ops.hpp"

namespace baracuda::alibi {

bool Spec::backward() const { return op == &kBackward; }

namespace {

constexpr int32_t kInvalid = BARACUDA_STATUS_INVALID_PROBLEM;

// 0 takes the default: f32, f64 for f64 scores. Slopes are f32 or the
// scores' own dtype; f64 scores keep f64 slopes (f32 would lose their precision).
baracuda_dtype_t resolve_slopes_dtype(const OpDef &op, baracuda_dtype_t dtype, baracuda_dtype_t slopes) {
  if (slopes == BARACUDA_DTYPE_INVALID) return dtype == BARACUDA_DTYPE_F64 ? BARACUDA_DTYPE_F64 : BARACUDA_DTYPE_F32;
  if (!dtype_valid(slopes)) fail(kInvalid, op.name, ": slopes_dtype ", slopes, " is not a dtype");
  const bool served = slopes == dtype || (slopes == BARACUDA_DTYPE_F32 && dtype != BARACUDA_DTYPE_F64);
  if (!served)
    fail(BARACUDA_STATUS_UNSUPPORTED, op.name, ": slopes_dtype ", dtype_name(slopes), " is not served with dtype ",
         dtype_name(dtype), " (", dtype == BARACUDA_DTYPE_F64 ? "f64" : cat("f32 or ", dtype_name(dtype)), ")");
  return slopes;
}

}  // namespace

Spec read_alibi_desc(const baracuda_op_header_t *header, const OpDef &op) {
  const baracuda_alibi_desc_t defaults = BARACUDA_ALIBI_DESC_INIT;
  const baracuda_alibi_desc_t d = read_descriptor(op, header, defaults);
  if (d.convention != BARACUDA_ALIBI_SIGNED && d.convention != BARACUDA_ALIBI_SYMMETRIC)
    fail(kInvalid, op.name, ": convention is ", d.convention, ", not a BARACUDA_ALIBI_SIGNED or _SYMMETRIC");
  if (d.alignment != BARACUDA_ALIBI_TOP_LEFT && d.alignment != BARACUDA_ALIBI_BOTTOM_RIGHT)
    fail(kInvalid, op.name, ": alignment is ", d.alignment, ", not a BARACUDA_ALIBI_TOP_LEFT or _BOTTOM_RIGHT");
  if (d.per_batch_slopes != 0 && d.per_batch_slopes != 1)
    fail(kInvalid, op.name, ": per_batch_slopes is ", d.per_batch_slopes, ", must be 0 or 1");
  require_zero(op, "reserved0", d.reserved0);
  Spec s{&op, d.dtype, 0, d.convention == BARACUDA_ALIBI_SYMMETRIC, d.alignment == BARACUDA_ALIBI_BOTTOM_RIGHT,
         d.per_batch_slopes == 1, 0, 0, 0, 0};
  s.batch = require_extent(op, "batch", d.batch);
  s.heads = require_extent(op, "heads", d.heads);
  s.queries = require_extent(op, "queries", d.queries);
  s.keys = require_extent(op, "keys", d.keys);
  const int64_t scores[4] = {s.batch, s.heads, s.queries, s.keys};
  require_element_count(op, "SCORES [batch, heads, queries, keys]", 4, scores);
  require_element_count(op, "SLOPES [batch, heads]", 2, scores);
  require_served_dtype(op, d.dtype);
  s.slopes_dtype = resolve_slopes_dtype(op, d.dtype, d.slopes_dtype);
  return s;
}

}  // namespace baracuda::alibi
