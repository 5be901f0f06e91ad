// The byte layout the fuzz target reads and the seed generator writes:
//
//   FuzzControl | descriptor (desc_size bytes) | select options (options_size)
//   | plan info (info_size) | num_args x baracuda_arg_t
//
// Every struct gets a heap buffer of exactly its struct_size, so ASan reports
// the library reading past the size the caller declared. Input shorter than
// the layout reads as zeros.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "baracuda/baracuda.h"

namespace fuzz {

// Select options always name an arch: target_sm 0 would query a GPU.
constexpr int32_t kTargetSms[] = {-1, 1, 35, 70, 75, 80, 86, 89, 90, 100, 120, INT32_MAX};
constexpr size_t kNumTargetSms = sizeof(kTargetSms) / sizeof(kTargetSms[0]);

// Select options shorter than this would drop target_sm and fall back to the device's.
constexpr uint16_t kMinOptionsSize = offsetof(baracuda_select_options_t, flags);

// Plan handles, data pointers and such are never dereferenced by select or
// check; these point at unmapped memory so a dereference crashes loudly.
constexpr uintptr_t kFakeDeviceBase = uintptr_t{0x200000000000};

// Which calls the input makes and which arguments it passes as NULL.
enum CallBits : uint8_t {
  kNullDesc = 1u << 0,
  kNullOutPlan = 1u << 1,
  kNullWorkspaceBytes = 1u << 2,
  kNullInfo = 1u << 3,
  kNullArgs = 1u << 4,
  kCheckTwice = 1u << 5,
};

struct FuzzControl {
  uint8_t sm_index;  // into kTargetSms, modulo its length
  uint8_t calls;     // CallBits
  uint16_t desc_size;
  uint16_t options_size;  // raised to kMinOptionsSize
  uint16_t info_size;
  int16_t num_args;  // negative counts reach check() as they are
  uint16_t reserved[3];
};
static_assert(sizeof(FuzzControl) == 16, "the seed corpus depends on this layout");

// A data pointer in an argument: 0 stays NULL, anything else becomes an
// unmapped address whose low 16 bits (alignment) come from the input.
inline void *fake_pointer(uintptr_t raw) {
  return raw == 0 ? nullptr : reinterpret_cast<void *>(kFakeDeviceBase | (raw & 0xffff));
}

// Reads the input front to back; past its end everything is zero.
class Reader {
 public:
  Reader(const uint8_t *data, size_t size) : data_(data), size_(size) {}
  void read(void *dst, size_t n) {
    const size_t have = pos_ < size_ ? (size_ - pos_ < n ? size_ - pos_ : n) : 0;
    if (have) std::memcpy(dst, data_ + pos_, have);
    std::memset(static_cast<uint8_t *>(dst) + have, 0, n - have);
    pos_ += n;
  }
  std::vector<uint8_t> bytes(size_t n) {
    std::vector<uint8_t> v(n);
    read(v.data(), n);
    return v;
  }

 private:
  const uint8_t *data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace fuzz
