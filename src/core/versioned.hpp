// The struct_size rule of every versioned struct: any size from the first
// published one up to ours is read (later fields keep their defaults from
// `defaults`); a larger one is accepted only when all bytes past ours are zero.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "baracuda/core.h"
#include "core/error.hpp"

namespace baracuda {

void check_struct_size(const char *op, const char *what, const void *p, uint32_t caller_size,
                       size_t first_published, size_t ours);

template <class T>
T read_versioned(const char *op, const char *what, const void *p, uint32_t caller_size, size_t first_published,
                 const T &defaults) {
  check_struct_size(op, what, p, caller_size, first_published, sizeof(T));
  T value = defaults;
  std::memcpy(&value, p, caller_size < sizeof(T) ? caller_size : sizeof(T));
  return value;
}

}  // namespace baracuda
