// What the plan layer needs to know about each dtype, read from one table.
#pragma once

#include <cstdint>

#include "baracuda/core.h"

namespace baracuda {

enum class DtypeKind { Invalid, Float, SignedInt, UnsignedInt, Bool, Complex, Packed };

struct DtypeTraits {
  const char *name;
  int32_t bits;  // per element
  DtypeKind kind;
};

// Traits of dtype; the Invalid entry for values that name no dtype.
const DtypeTraits &dtype_traits(baracuda_dtype_t dtype);

inline bool dtype_valid(baracuda_dtype_t d) { return dtype_traits(d).kind != DtypeKind::Invalid; }
inline const char *dtype_name(baracuda_dtype_t d) { return dtype_traits(d).name; }
// Bytes per element for byte-aligned dtypes; 0 for S4, U4, BIN and invalid values.
inline int32_t dtype_bytes(baracuda_dtype_t d) {
  int32_t bits = dtype_traits(d).bits;
  return bits % 8 == 0 ? bits / 8 : 0;
}
inline bool dtype_is_nibble(baracuda_dtype_t d) { return d == BARACUDA_DTYPE_S4 || d == BARACUDA_DTYPE_U4; }

constexpr uint64_t dtype_bit(baracuda_dtype_t d) { return uint64_t{1} << d; }

// Every dtype with a whole number of bytes per element.
uint64_t byte_aligned_dtype_mask();

// The scalar `re + i*im` encoded as one element of dtype, little-endian, in
// out[0 .. bytes). Rounds to nearest-even; throws INVALID_PROBLEM (naming
// `what`) when the value cannot be represented.
void encode_scalar(baracuda_dtype_t dtype, double re, double im, const char *what,
                   unsigned char out[16]);

}  // namespace baracuda
