// Kernel dispatch by table lookup: a key (a dtype, an element width) names
// its entry point, and a key with none fails loudly at select rather than
// falling back to some other kernel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

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

}  // namespace baracuda
