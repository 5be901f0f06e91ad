// The 128-bit extent arithmetic every descriptor check rests on.
#include <cstdint>

#include "core/checked_math.hpp"
#include "cpu_helpers.hpp"

using baracuda::element_count;
using baracuda::int128;
using baracuda::kMaxExtent;
using baracuda::to_decimal;

TEST_CASE("element_count: any 0 extent means 0 elements, wherever it stands", "[core]") {
  const int64_t big = int64_t{1} << 40;
  const int64_t zero_last[] = {big, big, 0}, zero_first[] = {0, big, big};
  CHECK(element_count(3, zero_last) == 0);
  CHECK(element_count(3, zero_first) == 0);
}

TEST_CASE("element_count saturates past 2^62 instead of wrapping", "[core]") {
  const int64_t at_limit[] = {int64_t{1} << 31, int64_t{1} << 31};
  CHECK(element_count(2, at_limit) == kMaxExtent);
  const int64_t over[] = {kMaxExtent, kMaxExtent, kMaxExtent, kMaxExtent};  // 2^248: beyond even 128 bits
  CHECK(element_count(4, over) == kMaxExtent + 1);
  const int64_t rank0[] = {7};
  CHECK(element_count(0, rank0) == 1);
}

TEST_CASE("to_decimal prints all 128 bits", "[core]") {
  CHECK(to_decimal(0) == "0");
  CHECK(to_decimal(-42) == "-42");
  CHECK(to_decimal(int128{1} << 64) == "18446744073709551616");
  const int128 min = -(int128{1} << 126) * 2;
  CHECK(to_decimal(min) == "-170141183460469231731687303715884105728");
}
