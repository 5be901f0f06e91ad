// Float64 reference of causal conv1d, written from the definition: the
// forward sums its W taps, the backward scatters every tap's contribution.
// Dense [B][C][L] arrays (taps [C][W], states [B][C][W-1]).
#pragma once

#include <cstdint>
#include <vector>

namespace baracuda::reference {

struct Conv1dInputs {
  int64_t batch = 0, channels = 0, length = 0;
  int32_t width = 0;
  bool silu = false;
  std::vector<double> x, weight, bias, initial;  // bias, initial empty when absent
  // [B][L] sequence ids of packed sequences (empty: one sequence a row). An
  // input reaches an output only where their ids are equal; the padded
  // inputs before t = 0 take timestep 0's id; outputs of negative ids
  // (padding) are 0.
  std::vector<int32_t> seq_idx;
};

struct Conv1dGrads {
  std::vector<double> dx, dweight, dbias, dinitial;
};

// y, and the last W-1 inputs of the padded sequence (with seq_idx, those of
// the last timestep's sequence, zeros elsewhere and where it is padding).
void conv1d_forward(const Conv1dInputs &in, std::vector<double> &y, std::vector<double> &final_states);
// dfinal (empty when absent): the gradient arriving on the final states.
Conv1dGrads conv1d_backward(const Conv1dInputs &in, const std::vector<double> &dy,
                            const std::vector<double> &dfinal = {});

}  // namespace baracuda::reference
