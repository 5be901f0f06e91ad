// Whether two strided views can reach a common byte: the attention's outputs
// may share no byte with its inputs or with each other, while Q, K and V (or
// DQ, DK and DV) may be interleaved views of one packed buffer.
#pragma once

#include "baracuda/core.h"

namespace baracuda::sdpa {

// Exact for the layouts tensors have in practice; when the search grows past
// a budget (strides that tile each other in odd ways) it answers true.
// Empty views overlap nothing. Strides are non-negative (validated before).
bool views_may_overlap(const baracuda_tensor_t &a, const baracuda_tensor_t &b);

}  // namespace baracuda::sdpa
