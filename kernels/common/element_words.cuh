// Elements moved as opaque words of their byte width, and 16-byte packs of
// them for vector loads and stores.
#pragma once

#include <cstdint>

namespace baracuda::kernels {

template <int Bytes>
struct Word;
template <>
struct Word<1> { using type = uint8_t; };
template <>
struct Word<2> { using type = uint16_t; };
template <>
struct Word<4> { using type = uint32_t; };
template <>
struct Word<8> { using type = uint64_t; };
template <>
struct Word<16> { using type = uint4; };

// 16 bytes seen as one vector or as 16 / sizeof(T) elements.
template <class T>
union Pack16 {
  static constexpr int kCount = 16 / sizeof(T);
  uint4 vector;
  T elem[kCount];
};

}  // namespace baracuda::kernels
