// The attention reference itself: its gradients against finite differences
// of its forward, with every score feature at once, and the rows that see no
// key. The GPU suite trusts it as the oracle.
#include <cmath>
#include <random>
#include <vector>

#include "cpu_helpers.hpp"
#include "reference/sdpa_reference.hpp"

using namespace baracuda::reference;

namespace {

SdpaShape featured_shape() {
  SdpaShape s;
  s.batch = 2, s.heads_q = 4, s.heads_kv = 2, s.queries = 6, s.keys = 9;
  s.head_dim = 8, s.head_dim_v = 16;
  s.scale = 0.7;
  s.softcap = 1.5;
  s.causal = true;
  s.bottom_right = true;
  s.window_left = 4;
  s.alibi = BARACUDA_ALIBI_SYMMETRIC;
  s.per_batch_slopes = true;
  return s;
}

std::vector<double> random_values(size_t n, std::mt19937_64 &rng) {
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<double> v(n);
  for (double &x : v) x = dist(rng);
  return v;
}

SdpaInputs random_inputs(const SdpaShape &s, std::mt19937_64 &rng) {
  return {random_values(s.batch * s.heads_q * s.queries * s.head_dim, rng),
          random_values(s.batch * s.heads_kv * s.keys * s.head_dim, rng),
          random_values(s.batch * s.heads_kv * s.keys * s.head_dim_v, rng),
          random_values(s.batch * s.heads_q, rng)};
}

double loss(const SdpaShape &s, const SdpaInputs &in, const std::vector<double> &dout) {
  const SdpaForward f = sdpa_forward(s, in);
  double sum = 0;
  for (size_t i = 0; i < dout.size(); ++i) sum += f.out[i] * dout[i];
  return sum;
}

}  // namespace

TEST_CASE("sdpa reference: gradients match central differences of the forward", "[sdpa][reference]") {
  const SdpaShape s = featured_shape();
  std::mt19937_64 rng(7);
  SdpaInputs in = random_inputs(s, rng);
  const std::vector<double> dout = random_values(s.batch * s.heads_q * s.queries * s.head_dim_v, rng);
  const SdpaGrads g = sdpa_backward(s, in, dout);
  const double h = 1e-6;
  struct Operand {
    std::vector<double> *values;
    const std::vector<double> *grad;
  } operands[] = {{&in.q, &g.dq}, {&in.k, &g.dk}, {&in.v, &g.dv}};
  for (const Operand &o : operands)
    for (size_t i = 0; i < o.values->size(); i += 5) {
      const double x = (*o.values)[i];
      (*o.values)[i] = x + h;
      const double up = loss(s, in, dout);
      (*o.values)[i] = x - h;
      const double down = loss(s, in, dout);
      (*o.values)[i] = x;
      INFO("element " << i);
      CHECK(std::fabs((up - down) / (2 * h) - (*o.grad)[i]) < 1e-7);
    }
}

TEST_CASE("sdpa reference: a row that sees no key has out 0, lse -inf, no gradient", "[sdpa][reference]") {
  SdpaShape s;
  s.queries = 4, s.keys = 2, s.head_dim = s.head_dim_v = 8, s.scale = 0.35, s.causal = true, s.bottom_right = true;
  std::mt19937_64 rng(3);
  const SdpaInputs in{random_values(32, rng), random_values(16, rng), random_values(16, rng), {}};
  const SdpaForward f = sdpa_forward(s, in);
  // i' = i - 2: rows 0 and 1 see no key, rows 2 and 3 see one and two.
  CHECK(std::isinf(f.lse[0]));
  CHECK(f.lse[0] < 0);
  CHECK(std::isinf(f.lse[1]));
  CHECK(f.lse[2] == Approx(0.35 * [&] {
          double d = 0;
          for (int e = 0; e < 8; ++e) d += in.q[16 + e] * in.k[e];
          return d;
        }()));
  for (int e = 0; e < 16; ++e) CHECK(f.out[e] == 0);
  for (int e = 0; e < 8; ++e) CHECK(f.out[16 + e] == in.v[e]);
  const SdpaGrads g = sdpa_backward(s, in, random_values(32, rng));
  for (int e = 0; e < 16; ++e) CHECK(g.dq[e] == 0);
  CHECK(sdpa_visible(s, 3, 1));
  CHECK_FALSE(sdpa_visible(s, 1, 0));
}

TEST_CASE("sdpa reference: the bf16 math path errs by about the dtype's rounding, not more", "[sdpa][reference]") {
  const SdpaShape s = featured_shape();
  std::mt19937_64 rng(11);
  SdpaInputs in = random_inputs(s, rng);
  const SdpaForward exact = sdpa_forward(s, in), math = sdpa_forward_math_path(s, in, BARACUDA_DTYPE_BF16);
  double err = 0, mag = 0;
  for (size_t i = 0; i < exact.out.size(); ++i) {
    err = std::max(err, std::fabs(exact.out[i] - math.out[i]));
    mag = std::max(mag, std::fabs(exact.out[i]));
  }
  CHECK(err / mag > 1e-4);
  CHECK(err / mag < 4e-2);
}
