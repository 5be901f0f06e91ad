// Kernel dispatch by table lookup: a key (a dtype, an element width) names
// its entry point, and a key with none fails loudly at select rather than
// falling back to some other kernel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/dtype.hpp"
#include "core/error.hpp"

namespace baracuda {

template <class Entry>
struct Keyed {
  int32_t key;
  Entry entry;
};

// Bit (1 << key) per key of the table: for a dtype-keyed table, the dtypes it serves.
template <class Entry, size_t N>
constexpr uint64_t table_keys(const Keyed<Entry> (&table)[N]) {
  uint64_t mask = 0;
  for (const Keyed<Entry> &k : table) mask |= uint64_t{1} << k.key;
  return mask;
}

template <class Entry, size_t N>
constexpr bool table_has(const Keyed<Entry> (&table)[N], int32_t key) {
  for (const Keyed<Entry> &k : table)
    if (k.key == key) return true;
  return false;
}

// key_text says what key is in the failure: "dtype f16", "2-byte elements".
template <class Entry, size_t N>
Entry kernel_for(const char *op, const Keyed<Entry> (&table)[N], int32_t key, const std::string &key_text) {
  for (const Keyed<Entry> &k : table)
    if (k.key == key) return k.entry;
  fail(BARACUDA_STATUS_UNSUPPORTED, op, ": no kernel for ", key_text);
}

// "4-byte elements": how a width-keyed table's missing key reads in a message.
inline std::string width_text(baracuda_dtype_t dtype) { return cat(dtype_bytes(dtype), "-byte elements"); }

// The entry of dtype in a dtype-keyed table.
template <class Entry, size_t N>
Entry kernel_for_dtype(const char *op, const Keyed<Entry> (&table)[N], baracuda_dtype_t dtype) {
  return kernel_for(op, table, dtype, cat("dtype ", dtype_name(dtype)));
}

// The entry of dtype's element width in a width-keyed table (kernels that only move bytes).
template <class Entry, size_t N>
Entry kernel_for_width(const char *op, const Keyed<Entry> (&table)[N], baracuda_dtype_t dtype) {
  return kernel_for(op, table, dtype_bytes(dtype), width_text(dtype));
}

}  // namespace baracuda
