#include "reference/conv1d_reference.hpp"

#include <algorithm>
#include <cmath>

namespace baracuda::reference {

namespace {

struct Padded {
  const Conv1dInputs &in;
  // x padded with W-1 leading values, at padded index q (q = t + W-1).
  double at(int64_t b, int64_t c, int64_t q) const {
    const int64_t pad = in.width - 1;
    if (q >= pad) return in.x[(b * in.channels + c) * in.length + q - pad];
    return in.initial.empty() ? 0.0 : in.initial[(b * in.channels + c) * pad + q];
  }
  // Whether padded input q and timestep t are of one sequence.
  bool same(int64_t b, int64_t q, int64_t t) const {
    if (in.seq_idx.empty()) return true;
    const int64_t tq = std::max<int64_t>(q - (in.width - 1), 0);
    return in.seq_idx[b * in.length + tq] == in.seq_idx[b * in.length + t];
  }
  // Whether timestep t is an output of a sequence: not padding (a negative id), whose outputs are 0.
  bool live(int64_t b, int64_t t) const { return in.seq_idx.empty() || in.seq_idx[b * in.length + t] >= 0; }
};

double pre_activation(const Conv1dInputs &in, const Padded &xp, int64_t b, int64_t c, int64_t t) {
  double z = in.bias.empty() ? 0.0 : in.bias[c];
  for (int k = 0; k < in.width; ++k)
    if (xp.same(b, t + k, t)) z += in.weight[c * in.width + k] * xp.at(b, c, t + k);
  return z;
}

double sigmoid(double z) { return 1.0 / (1.0 + std::exp(-z)); }

}  // namespace

void conv1d_forward(const Conv1dInputs &in, std::vector<double> &y, std::vector<double> &final_states) {
  const Padded xp{in};
  const int64_t pad = in.width - 1;
  y.assign(in.batch * in.channels * in.length, 0.0);
  final_states.assign(in.batch * in.channels * pad, 0.0);
  for (int64_t b = 0; b < in.batch; ++b)
    for (int64_t c = 0; c < in.channels; ++c) {
      for (int64_t t = 0; t < in.length; ++t) {
        const double z = pre_activation(in, xp, b, c, t);
        if (xp.live(b, t)) y[(b * in.channels + c) * in.length + t] = in.silu ? z * sigmoid(z) : z;
      }
      for (int64_t j = 0; j < pad; ++j)
        if (in.length == 0 || (xp.live(b, in.length - 1) && xp.same(b, in.length + j, in.length - 1)))
          final_states[(b * in.channels + c) * pad + j] = xp.at(b, c, in.length + j);
    }
}

Conv1dGrads conv1d_backward(const Conv1dInputs &in, const std::vector<double> &dy, const std::vector<double> &dfinal) {
  const Padded xp{in};
  const int64_t pad = in.width - 1, B = in.batch, C = in.channels, L = in.length;
  Conv1dGrads g;
  g.dx.assign(B * C * L, 0.0);
  g.dweight.assign(C * in.width, 0.0);
  g.dbias.assign(C, 0.0);
  g.dinitial.assign(B * C * pad, 0.0);
  std::vector<double> dpadded(L + pad);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t c = 0; c < C; ++c) {
      std::fill(dpadded.begin(), dpadded.end(), 0.0);
      for (int64_t t = 0; t < L; ++t) {
        const double z = pre_activation(in, xp, b, c, t);
        const double s = sigmoid(z);
        const double gt =
            xp.live(b, t) ? dy[(b * C + c) * L + t] * (in.silu ? s * (1.0 + z * (1.0 - s)) : 1.0) : 0.0;
        g.dbias[c] += gt;
        for (int k = 0; k < in.width; ++k) {  // the tap w[k] * x_pad[t + k]
          if (!xp.same(b, t + k, t)) continue;
          g.dweight[c * in.width + k] += gt * xp.at(b, c, t + k);
          dpadded[t + k] += gt * in.weight[c * in.width + k];
        }
      }
      if (!dfinal.empty())  // the final states are padded inputs L .. L + pad - 1 (of the last sequence)
        for (int64_t j = 0; j < pad; ++j)
          if (L == 0 || (xp.live(b, L - 1) && xp.same(b, L + j, L - 1)))
            dpadded[L + j] += dfinal[(b * C + c) * pad + j];
      for (int64_t t = 0; t < L; ++t) g.dx[(b * C + c) * L + t] = dpadded[t + pad];
      for (int64_t j = 0; j < pad; ++j) g.dinitial[(b * C + c) * pad + j] = dpadded[j];
    }
  return g;
}

}  // namespace baracuda::reference
