#include "core/versioned.hpp"

namespace baracuda {

void check_struct_size(const char *op, const char *what, const void *p, uint32_t caller_size,
                       size_t first_published, size_t ours) {
  if (p == nullptr) fail(BARACUDA_STATUS_INVALID_PROBLEM, op, ": ", what, " is NULL");
  if (caller_size < first_published)
    fail(BARACUDA_STATUS_INVALID_PROBLEM, op, ": ", what, " struct_size is ", caller_size,
         ", the smallest published size is ", first_published);
  const auto *bytes = static_cast<const unsigned char *>(p);
  for (size_t i = ours; i < caller_size; ++i)
    if (bytes[i] != 0)
      fail(BARACUDA_STATUS_UNSUPPORTED, op, ": ", what, " struct_size is ", caller_size, " and byte ", i,
           " is non-zero; this library knows the first ", ours, " bytes and cannot honour newer fields");
}

}  // namespace baracuda
