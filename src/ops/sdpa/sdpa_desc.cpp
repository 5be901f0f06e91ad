#include "ops/sdpa/sdpa_desc.hpp"

#include <cmath>

#include "core/checked_math.hpp"
#include "core/descriptor.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "ops/sdpa/sdpa_ops.hpp"

namespace baracuda::sdpa {

bool Spec::backward() const { return op == &kBackward; }

baracuda_dtype_t Spec::stats_dtype() const { return accumulator_dtype(dtype); }

namespace {

constexpr int32_t kInvalid = BARACUDA_STATUS_INVALID_PROBLEM;

void require_flag(const OpDef &op, const char *field, int32_t value) {
  if (value != 0 && value != 1) fail(kInvalid, op.name, ": ", field, " is ", value, ", must be 0 or 1");
}

// A multiple of 8 above 0; the limit of 256 is each candidate's to judge.
void require_head_size(const OpDef &op, const char *field, int32_t value) {
  if (value <= 0 || value % 8 != 0)
    fail(kInvalid, op.name, ": ", field, " is ", value, ", must be a positive multiple of 8");
}

void require_finite(const OpDef &op, const char *field, float value) {
  if (!std::isfinite(value)) fail(kInvalid, op.name, ": ", field, " is ", value, ", must be finite");
}

// -1 or a bound >= 0. A window wider than Q + K admits every key, so it is
// kept as unbounded: the kernels then never form i' - window from a huge one.
int64_t resolve_window(const OpDef &op, const char *field, int64_t value, int64_t queries, int64_t keys) {
  if (value < -1) fail(kInvalid, op.name, ": ", field, " is ", value, ", must be -1 (unbounded) or >= 0");
  return value >= static_cast<int128>(queries) + keys ? -1 : value;
}

}  // namespace

Spec read_sdpa_desc(const baracuda_op_header_t *header, const OpDef &op) {
  const baracuda_sdpa_desc_t defaults = BARACUDA_SDPA_DESC_INIT;
  const baracuda_sdpa_desc_t d = read_descriptor(op, header, defaults);
  require_flag(op, "causal", d.causal);
  if (d.alignment != BARACUDA_SDPA_TOP_LEFT && d.alignment != BARACUDA_SDPA_BOTTOM_RIGHT)
    fail(kInvalid, op.name, ": alignment is ", d.alignment, ", not a BARACUDA_SDPA_TOP_LEFT or _BOTTOM_RIGHT");
  if (d.alibi != 0 && d.alibi != BARACUDA_ALIBI_SIGNED && d.alibi != BARACUDA_ALIBI_SYMMETRIC)
    fail(kInvalid, op.name, ": alibi is ", d.alibi, ", not 0, BARACUDA_ALIBI_SIGNED or _SYMMETRIC");
  require_flag(op, "per_batch_slopes", d.per_batch_slopes);
  require_zero(op, "reserved0", d.reserved0);
  require_finite(op, "scale", d.scale);
  require_finite(op, "softcap", d.softcap);
  if (d.softcap < 0) fail(kInvalid, op.name, ": softcap is ", d.softcap, ", must be >= 0 (0: none)");
  require_head_size(op, "head_dim", d.head_dim);
  if (d.head_dim_v != 0) require_head_size(op, "head_dim_v", d.head_dim_v);

  Spec s{};
  s.op = &op;
  s.dtype = d.dtype;
  s.head_dim = d.head_dim;
  s.head_dim_v = d.head_dim_v != 0 ? d.head_dim_v : d.head_dim;
  s.scale = d.scale != 0.0f ? static_cast<double>(d.scale) : 1.0 / std::sqrt(static_cast<double>(d.head_dim));
  s.softcap = d.softcap;
  s.causal = d.causal == 1;
  s.bottom_right = d.alignment == BARACUDA_SDPA_BOTTOM_RIGHT;
  s.alibi = d.alibi;
  s.per_batch_slopes = d.per_batch_slopes == 1;
  s.batch = require_extent(op, "batch", d.batch);
  s.heads_q = require_extent(op, "heads_q", d.heads_q);
  s.heads_kv = d.heads_kv != 0 ? require_extent(op, "heads_kv", d.heads_kv) : s.heads_q;
  s.queries = require_extent(op, "queries", d.queries);
  s.keys = require_extent(op, "keys", d.keys);
  if (s.heads_kv > s.heads_q || (s.heads_kv > 0 && s.heads_q % s.heads_kv != 0))
    fail(kInvalid, op.name, ": heads_kv is ", s.heads_kv, ", must divide heads_q (", s.heads_q, ")");
  s.window_left = resolve_window(op, "window_left", d.window_left, s.queries, s.keys);
  s.window_right = resolve_window(op, "window_right", d.window_right, s.queries, s.keys);

  const int64_t q[4] = {s.batch, s.heads_q, s.queries, s.head_dim}, k[4] = {s.batch, s.heads_kv, s.keys, s.head_dim},
                v[4] = {s.batch, s.heads_kv, s.keys, s.head_dim_v}, out[4] = {s.batch, s.heads_q, s.queries, s.head_dim_v};
  require_element_count(op, "Q [batch, heads_q, queries, head_dim]", 4, q);
  require_element_count(op, "K [batch, heads_kv, keys, head_dim]", 4, k);
  require_element_count(op, "V [batch, heads_kv, keys, head_dim_v]", 4, v);
  require_element_count(op, "OUT [batch, heads_q, queries, head_dim_v]", 4, out);
  require_element_count(op, "SLOPES [batch, heads_q]", 2, q);
  require_served_dtype(op, d.dtype);
  return s;
}

}  // namespace baracuda::sdpa
