#include "ops/alibi/alibi_slopes.hpp"

#include <cmath>

#include "baracuda/core.h"
#include "core/error.hpp"

namespace baracuda::alibi {

// Press et al.: for m heads, m a power of two, slope k is 2^(-8k/m). Other
// counts n take the m = largest power of two below n, then the odd-numbered
// slopes of 2m heads, 2^(-8(2k-1)/(2m)), until n are given. Each is formed in
// double and rounded once to float.
void write_slopes(int32_t num_heads, float *out) {
  if (num_heads < 1)
    fail(BARACUDA_STATUS_INVALID_PROBLEM, "baracuda_alibi_slopes: num_heads is ", num_heads, ", must be >= 1");
  if (out == nullptr) fail(BARACUDA_STATUS_INVALID_PROBLEM, "baracuda_alibi_slopes: out is NULL");
  int32_t m = 1;
  while (m <= num_heads / 2) m *= 2;
  for (int32_t k = 1; k <= m; ++k) out[k - 1] = static_cast<float>(std::exp2(-8.0 * k / m));
  for (int32_t k = 1; k <= num_heads - m; ++k)
    out[m + k - 1] = static_cast<float>(std::exp2(-8.0 * (2 * k - 1) / (2.0 * m)));
}

}  // namespace baracuda::alibi
