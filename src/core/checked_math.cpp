#include "core/checked_math.hpp"

#include <algorithm>

namespace baracuda {

std::string to_decimal(int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  std::string digits;
  // Work on the negative side: -INT128_MIN does not exist.
  for (int128 n = negative ? v : -v; n != 0; n /= 10) digits += static_cast<char>('0' - static_cast<int>(n % 10));
  if (negative) digits += '-';
  std::reverse(digits.begin(), digits.end());
  return digits;
}

}  // namespace baracuda
