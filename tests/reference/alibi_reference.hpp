// Float64 reference of ALiBi, written from the header's definition: the bias
// of every (i, j) from its convention and alignment, the forward as a sum, the
// slopes' gradient as a compensated sum over every position a slope touches.
// Dense row-major arrays: scores and dy [B][H][Q][K]; slopes [H] or [B][H].
#pragma once

#include <cstdint>
#include <vector>

namespace baracuda::reference {

struct AlibiShape {
  int64_t batch = 1, heads = 1, queries = 1, keys = 1;
  int32_t convention = 1;  // BARACUDA_ALIBI_SIGNED or _SYMMETRIC
  int32_t alignment = 1;   // BARACUDA_ALIBI_TOP_LEFT or _BOTTOM_RIGHT
  bool per_batch_slopes = false;
};

// bias(i, j) for query i and key j.
double alibi_bias(const AlibiShape &s, int64_t i, int64_t j);

std::vector<double> alibi_forward(const AlibiShape &s, const std::vector<double> &scores,
                                  const std::vector<double> &slopes);

struct AlibiSlopeGrads {
  std::vector<double> dslopes;    // sum of dy * bias per slope
  std::vector<double> magnitude;  // sum of |dy * bias| per slope: the scale of the header's error bound
  int64_t terms = 0;              // products per slope (N in the header's bound)
};
AlibiSlopeGrads alibi_backward_slopes(const AlibiShape &s, const std::vector<double> &dy);

}  // namespace baracuda::reference
