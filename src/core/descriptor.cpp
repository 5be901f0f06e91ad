#include "core/descriptor.hpp"

#include "core/dtype.hpp"
#include "core/error.hpp"

namespace baracuda {

void require_served_dtype(const OpDef &op, baracuda_dtype_t dtype) {
  if (!dtype_valid(dtype)) fail(BARACUDA_STATUS_INVALID_PROBLEM, op.name, ": dtype ", dtype, " is not a dtype");
  if (!(op.dtypes & dtype_bit(dtype)))
    fail(BARACUDA_STATUS_UNSUPPORTED, op.name, ": dtype ", dtype_name(dtype), " is not served (",
         dtype_list(op.dtypes), ")");
}

void require_rank(const OpDef &op, int32_t rank) {
  if (rank < 1 || rank > BARACUDA_MAX_RANK)
    fail(BARACUDA_STATUS_INVALID_PROBLEM, op.name, ": rank is ", rank, ", must be 1 to ", BARACUDA_MAX_RANK);
}

void require_zero(const OpDef &op, const char *field, int64_t value) {
  if (value != 0) fail(BARACUDA_STATUS_INVALID_PROBLEM, op.name, ": ", field, " is ", value, ", must be 0");
}

int64_t require_extent(const OpDef &op, const std::string &field, int128 value) {
  if (!within_extent_range(value))
    fail(BARACUDA_STATUS_INVALID_PROBLEM, op.name, ": ", field, " is ", to_decimal(value), ", must be 0 to 2^62");
  return static_cast<int64_t>(value);
}

void require_element_count(const OpDef &op, const std::string &what, int32_t rank, const int64_t *shape) {
  if (element_count(rank, shape) > kMaxExtent)
    fail(BARACUDA_STATUS_INVALID_PROBLEM, op.name, ": ", what, " has over 2^62 elements");
}

}  // namespace baracuda
