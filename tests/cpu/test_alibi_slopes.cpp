// baracuda_alibi_slopes against the ALiBi paper's rule, written out here
// independently: the geometric sequence starting at 2^(-8/n) with that ratio
// for n a power of two; otherwise those of the closest power of two below n,
// then every other slope of twice that many. No GPU.
#include <cmath>

#include "cpu_helpers.hpp"

namespace {

// The paper's get_slopes, in double.
std::vector<double> paper_slopes(int n) {
  auto power_of_2 = [](int m) {
    std::vector<double> s;
    const double start = std::pow(2.0, -std::pow(2.0, -(std::log2(m) - 3)));
    for (int i = 0; i < m; ++i) s.push_back(start * std::pow(start, i));
    return s;
  };
  if (std::log2(n) == std::floor(std::log2(n))) return power_of_2(n);
  const int closest = 1 << static_cast<int>(std::floor(std::log2(n)));
  std::vector<double> s = power_of_2(closest), twice = power_of_2(2 * closest);
  for (int i = 0; s.size() < static_cast<size_t>(n); i += 2) s.push_back(twice[i]);
  return s;
}

}  // namespace

TEST_CASE("alibi slopes: the paper's values for 1 to 64 heads", "[alibi][slopes]") {
  for (int n = 1; n <= 64; ++n) {
    std::vector<float> got(n + 1, -1.0f);
    REQUIRE(baracuda_alibi_slopes(n, got.data()) == BARACUDA_STATUS_SUCCESS);
    const std::vector<double> want = paper_slopes(n);
    for (int k = 0; k < n; ++k) {
      INFO("n " << n << " slope " << k);
      // The paper's pow chain is off from 2^x by a few ulps of double; float rounding absorbs that.
      CHECK(got[k] == static_cast<float>(want[k]));
    }
    CHECK(got[n] == -1.0f);  // nothing written past num_heads
  }
}

TEST_CASE("alibi slopes: 12 heads as the header lists them", "[alibi][slopes]") {
  float got[12];
  REQUIRE(baracuda_alibi_slopes(12, got) == BARACUDA_STATUS_SUCCESS);
  const double exponents[12] = {-1, -2, -3, -4, -5, -6, -7, -8, -0.5, -1.5, -2.5, -3.5};
  for (int k = 0; k < 12; ++k) CHECK(got[k] == static_cast<float>(std::exp2(exponents[k])));
}

TEST_CASE("alibi slopes: bad counts and NULL are INVALID_PROBLEM", "[alibi][slopes]") {
  float out[1];
  CHECK(baracuda_alibi_slopes(0, out) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"baracuda_alibi_slopes: num_heads is 0, must be >= 1"});
  CHECK(baracuda_alibi_slopes(-5, out) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"num_heads is -5"});
  CHECK(baracuda_alibi_slopes(4, nullptr) == BARACUDA_STATUS_INVALID_PROBLEM);
  require_message({"baracuda_alibi_slopes: out is NULL"});
}
