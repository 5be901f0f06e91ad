// What the plan layer needs to know about each dtype, read from one table.
#pragma once

#include <cstdint>
#include <string>

#include "baracuda/core.h"

namespace baracuda {

enum class DtypeKind { Invalid, Float, SignedInt, UnsignedInt, Bool, Complex, Packed };

struct DtypeTraits {
  const char *name;
  int32_t bits;  // per element
  DtypeKind kind;
};

inline constexpr DtypeTraits kDtypeTraits[] = {
    {"invalid", 0, DtypeKind::Invalid},     {"f32", 32, DtypeKind::Float},
    {"f16", 16, DtypeKind::Float},          {"bf16", 16, DtypeKind::Float},
    {"f64", 64, DtypeKind::Float},          {"f32_strict", 32, DtypeKind::Float},
    {"i32", 32, DtypeKind::SignedInt},      {"i64", 64, DtypeKind::SignedInt},
    {"bool", 8, DtypeKind::Bool},           {"s8", 8, DtypeKind::SignedInt},
    {"u8", 8, DtypeKind::UnsignedInt},      {"s4", 4, DtypeKind::Packed},
    {"u4", 4, DtypeKind::Packed},           {"fp8_e4m3", 8, DtypeKind::Float},
    {"fp8_e5m2", 8, DtypeKind::Float},      {"complex32", 64, DtypeKind::Complex},
    {"complex64", 128, DtypeKind::Complex}, {"bin", 1, DtypeKind::Packed},
};
static_assert(sizeof(kDtypeTraits) / sizeof(kDtypeTraits[0]) == BARACUDA_DTYPE_COUNT,
              "a dtype was added to core.h: describe it in kDtypeTraits");

// Traits of dtype; the Invalid entry for values that name no dtype.
constexpr const DtypeTraits &dtype_traits(baracuda_dtype_t dtype) {
  return kDtypeTraits[dtype > 0 && dtype < BARACUDA_DTYPE_COUNT ? dtype : 0];
}

constexpr bool dtype_valid(baracuda_dtype_t d) { return dtype_traits(d).kind != DtypeKind::Invalid; }
constexpr const char *dtype_name(baracuda_dtype_t d) { return dtype_traits(d).name; }
// Bytes per element for byte-aligned dtypes; 0 for S4, U4, BIN and invalid values.
constexpr int32_t dtype_bytes(baracuda_dtype_t d) {
  const int32_t bits = dtype_traits(d).bits;
  return bits % 8 == 0 ? bits / 8 : 0;
}
constexpr bool dtype_is_nibble(baracuda_dtype_t d) { return d == BARACUDA_DTYPE_S4 || d == BARACUDA_DTYPE_U4; }

constexpr uint64_t dtype_bit(baracuda_dtype_t d) { return uint64_t{1} << d; }

// Every dtype with a whole number of bytes per element.
constexpr uint64_t byte_aligned_dtype_mask() {
  uint64_t mask = 0;
  for (baracuda_dtype_t d = 1; d < BARACUDA_DTYPE_COUNT; ++d)
    if (dtype_bytes(d) != 0) mask |= dtype_bit(d);
  return mask;
}

// The floating-point dtypes the arithmetic kernels take.
inline constexpr uint64_t kFloatKernelDtypes = dtype_bit(BARACUDA_DTYPE_F32) | dtype_bit(BARACUDA_DTYPE_F16) |
                                               dtype_bit(BARACUDA_DTYPE_BF16) | dtype_bit(BARACUDA_DTYPE_F64);

// Where sums of this dtype are kept: f64 for F64, f32 otherwise.
constexpr baracuda_dtype_t accumulator_dtype(baracuda_dtype_t d) {
  return d == BARACUDA_DTYPE_F64 ? BARACUDA_DTYPE_F64 : BARACUDA_DTYPE_F32;
}

// "f32, f16, bf16" for the dtypes whose bits are set in mask.
std::string dtype_list(uint64_t mask);

// The scalar `re + i*im` encoded as one element of dtype, little-endian, in
// out[0 .. bytes). Rounds to nearest-even; throws INVALID_PROBLEM (naming
// `what`) when the value cannot be represented.
void encode_scalar(baracuda_dtype_t dtype, double re, double im, const char *what,
                   unsigned char out[16]);

}  // namespace baracuda
