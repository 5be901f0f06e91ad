#include "reference/sdpa_reference.hpp"

#include <cmath>
#include <limits>

#include "reference/reference.hpp"

namespace baracuda::reference {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// How the two paths round: not at all (float64), or f32 sums with each
// stage rounded to a 16-bit dtype (the math path).
struct Arith {
  baracuda_dtype_t dtype;  // 0: float64 throughout

  double stage(double x) const {
    if (dtype == 0 || !std::isfinite(x)) return x;
    unsigned char bytes[8];
    encode_float(dtype, x, bytes);
    return decode_float(dtype, bytes);
  }
  double f32(double x) const { return dtype == 0 ? x : static_cast<float>(x); }
  // sum of a[i] * b[i * b_step], in f32 for the math path.
  double dot(const double *a, const double *b, int64_t n, int64_t b_step = 1) const {
    if (dtype == 0) {
      double acc = 0;
      for (int64_t i = 0; i < n; ++i) acc += a[i] * b[i * b_step];
      return acc;
    }
    float acc = 0;
    for (int64_t i = 0; i < n; ++i) acc += static_cast<float>(a[i]) * static_cast<float>(b[i * b_step]);
    return acc;
  }
};

int64_t offset_of(const SdpaShape &s, int64_t i) { return s.bottom_right ? i + s.keys - s.queries : i; }

double slope_of(const SdpaShape &s, const SdpaInputs &in, int64_t b, int64_t h) {
  return s.alibi == 0 ? 0.0 : in.slopes[(s.per_batch_slopes ? b * s.heads_q : 0) + h];
}

double bias_of(const SdpaShape &s, int64_t i, int64_t j) {
  const double d = static_cast<double>(j - offset_of(s, i));
  return s.alibi == BARACUDA_ALIBI_SYMMETRIC ? -std::fabs(d) : d;
}

// One (b, h) of the problem: its rows of q, k, v and the probabilities.
struct Head {
  const SdpaShape &s;
  const SdpaInputs &in;
  const Arith &a;
  int64_t b, h, kvh;

  const double *q(int64_t i) const { return in.q.data() + ((b * s.heads_q + h) * s.queries + i) * s.head_dim; }
  const double *k(int64_t j) const { return in.k.data() + ((b * s.heads_kv + kvh) * s.keys + j) * s.head_dim; }
  const double *v(int64_t j) const { return in.v.data() + ((b * s.heads_kv + kvh) * s.keys + j) * s.head_dim_v; }

  // The raw product scale * q.k, and the final score (-inf when masked).
  double raw(int64_t i, int64_t j) const { return a.stage(a.f32(s.scale * a.dot(q(i), k(j), s.head_dim))); }
  double final_score(double raw_score, int64_t i, int64_t j) const {
    if (!sdpa_visible(s, i, j)) return kNegInf;
    double x = raw_score;
    if (s.softcap > 0) x = a.stage(a.f32(s.softcap * std::tanh(x / s.softcap)));
    if (s.alibi != 0) x = a.stage(a.f32(x + slope_of(s, in, b, h) * bias_of(s, i, j)));
    return x;
  }
  // Row i's scores and max; probabilities p = exp(score - lse); returns lse.
  double probabilities(int64_t i, std::vector<double> &raw_scores, std::vector<double> &p) const {
    raw_scores.assign(s.keys, 0);
    p.assign(s.keys, 0);
    double max = kNegInf;
    for (int64_t j = 0; j < s.keys; ++j) {
      raw_scores[j] = raw(i, j);
      p[j] = final_score(raw_scores[j], i, j);
      max = std::max(max, p[j]);
    }
    if (max == kNegInf) {
      p.assign(s.keys, 0);
      return kNegInf;
    }
    double sum = 0;
    for (int64_t j = 0; j < s.keys; ++j) sum += p[j] == kNegInf ? 0 : std::exp(p[j] - max);
    const double lse = max + std::log(sum);
    for (int64_t j = 0; j < s.keys; ++j) p[j] = p[j] == kNegInf ? 0 : a.stage(a.f32(std::exp(p[j] - lse)));
    return lse;
  }
};

template <class Body>
void for_each_head(const SdpaShape &s, const SdpaInputs &in, const Arith &a, Body body) {
  const int64_t group = s.heads_q / s.heads_kv;
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t h = 0; h < s.heads_q; ++h) body(Head{s, in, a, b, h, h / group});
}

SdpaForward forward(const SdpaShape &s, const SdpaInputs &in, const Arith &a) {
  SdpaForward f;
  f.out.assign(s.batch * s.heads_q * s.queries * s.head_dim_v, 0);
  f.lse.assign(s.batch * s.heads_q * s.queries, 0);
  std::vector<double> raw, p;
  for_each_head(s, in, a, [&](const Head &hd) {
    for (int64_t i = 0; i < s.queries; ++i) {
      const int64_t row = (hd.b * s.heads_q + hd.h) * s.queries + i;
      f.lse[row] = hd.probabilities(i, raw, p);
      for (int64_t e = 0; e < s.head_dim_v; ++e)
        f.out[row * s.head_dim_v + e] = a.stage(a.dot(p.data(), hd.v(0) + e, s.keys, s.head_dim_v));
    }
  });
  return f;
}

SdpaGrads backward(const SdpaShape &s, const SdpaInputs &in, const std::vector<double> &dout, const Arith &a) {
  SdpaGrads g;
  g.dq.assign(in.q.size(), 0);
  g.dk.assign(in.k.size(), 0);
  g.dv.assign(in.v.size(), 0);
  // The math path sums dk and dv over query rows in f32 and rounds once at the end.
  std::vector<double> raw, p, dp(s.keys), ds(s.keys);
  for_each_head(s, in, a, [&](const Head &hd) {
    const int64_t kv_row0 = (hd.b * s.heads_kv + hd.kvh) * s.keys;
    for (int64_t i = 0; i < s.queries; ++i) {
      const int64_t row = (hd.b * s.heads_q + hd.h) * s.queries + i;
      hd.probabilities(i, raw, p);
      const double *dout_i = &dout[row * s.head_dim_v];
      double delta = 0;
      for (int64_t j = 0; j < s.keys; ++j) {
        dp[j] = a.stage(a.dot(dout_i, hd.v(j), s.head_dim_v));
        delta += p[j] * dp[j];
      }
      for (int64_t j = 0; j < s.keys; ++j) {
        double d = a.f32(p[j] * (dp[j] - delta));
        // Through cap * tanh(x / cap): the derivative 1 - tanh^2.
        if (s.softcap > 0) {
          const double t = std::tanh(raw[j] / s.softcap);
          d = a.f32(d * (1 - t * t));
        }
        ds[j] = a.stage(d);
      }
      for (int64_t e = 0; e < s.head_dim; ++e)
        g.dq[row * s.head_dim + e] = a.f32(s.scale * a.dot(ds.data(), hd.k(0) + e, s.keys, s.head_dim));
      for (int64_t j = 0; j < s.keys; ++j) {
        if (p[j] == 0 && ds[j] == 0) continue;
        for (int64_t e = 0; e < s.head_dim; ++e) {
          double &acc = g.dk[(kv_row0 + j) * s.head_dim + e];
          acc = a.f32(acc + a.f32(s.scale * ds[j] * hd.q(i)[e]));
        }
        for (int64_t e = 0; e < s.head_dim_v; ++e) {
          double &acc = g.dv[(kv_row0 + j) * s.head_dim_v + e];
          acc = a.f32(acc + a.f32(p[j] * dout_i[e]));
        }
      }
    }
  });
  for (auto *grad : {&g.dq, &g.dk, &g.dv})
    for (double &x : *grad) x = a.stage(x);
  return g;
}

}  // namespace

bool sdpa_visible(const SdpaShape &s, int64_t i, int64_t j) {
  const int64_t at = offset_of(s, i);
  if (s.causal && j > at) return false;
  if (s.window_left >= 0 && j < at - s.window_left) return false;
  if (s.window_right >= 0 && j > at + s.window_right) return false;
  return true;
}

SdpaForward sdpa_forward(const SdpaShape &s, const SdpaInputs &in) { return forward(s, in, Arith{0}); }
SdpaGrads sdpa_backward(const SdpaShape &s, const SdpaInputs &in, const std::vector<double> &dout) {
  return backward(s, in, dout, Arith{0});
}
SdpaForward sdpa_forward_math_path(const SdpaShape &s, const SdpaInputs &in, baracuda_dtype_t dtype) {
  return forward(s, in, Arith{dtype});
}
SdpaGrads sdpa_backward_math_path(const SdpaShape &s, const SdpaInputs &in, const std::vector<double> &dout,
                                  baracuda_dtype_t dtype) {
  return backward(s, in, dout, Arith{dtype});
}

}  // namespace baracuda::reference
