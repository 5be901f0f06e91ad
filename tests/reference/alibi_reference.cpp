#include "reference/alibi_reference.hpp"

#include <cmath>
#include <cstdlib>

#include "baracuda/alibi.h"

namespace baracuda::reference {

namespace {

// Neumaier's compensated sum in long double: its error stays far under the
// f64 kernels' bound of (log2 N + 2) * 2^-53 * sum |term|, which a plain
// double sum of N terms would not.
struct CompensatedSum {
  long double sum = 0, compensation = 0;
  void add(long double v) {
    const long double t = sum + v;
    compensation += std::fabs(sum) >= std::fabs(v) ? (sum - t) + v : (v - t) + sum;
    sum = t;
  }
  double value() const { return static_cast<double>(sum + compensation); }
};

}  // namespace

double alibi_bias(const AlibiShape &s, int64_t i, int64_t j) {
  const int64_t facing = s.alignment == BARACUDA_ALIBI_BOTTOM_RIGHT ? i + s.keys - s.queries : i;
  const int64_t d = j - facing;
  return static_cast<double>(s.convention == BARACUDA_ALIBI_SYMMETRIC ? -std::llabs(d) : d);
}

std::vector<double> alibi_forward(const AlibiShape &s, const std::vector<double> &scores,
                                  const std::vector<double> &slopes) {
  std::vector<double> y(scores.size());
  size_t at = 0;
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t h = 0; h < s.heads; ++h) {
      const double slope = slopes[s.per_batch_slopes ? b * s.heads + h : h];
      for (int64_t i = 0; i < s.queries; ++i)
        for (int64_t j = 0; j < s.keys; ++j, ++at) y[at] = scores[at] + slope * alibi_bias(s, i, j);
    }
  return y;
}

AlibiSlopeGrads alibi_backward_slopes(const AlibiShape &s, const std::vector<double> &dy) {
  const int64_t slopes = s.per_batch_slopes ? s.batch * s.heads : s.heads;
  std::vector<CompensatedSum> sums(slopes);
  std::vector<long double> magnitude(slopes, 0);
  size_t at = 0;
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t h = 0; h < s.heads; ++h) {
      const int64_t slope = s.per_batch_slopes ? b * s.heads + h : h;
      for (int64_t i = 0; i < s.queries; ++i)
        for (int64_t j = 0; j < s.keys; ++j, ++at) {
          const long double term = static_cast<long double>(dy[at]) * alibi_bias(s, i, j);
          sums[slope].add(term);
          magnitude[slope] += std::fabs(term);
        }
    }
  AlibiSlopeGrads g;
  g.terms = s.queries * s.keys * (s.per_batch_slopes ? 1 : s.batch);
  for (int64_t k = 0; k < slopes; ++k) {
    g.dslopes.push_back(sums[k].value());
    g.magnitude.push_back(static_cast<double>(magnitude[k]));
  }
  return g;
}

}  // namespace baracuda::reference
