// The ALiBi paper's slopes (baracuda_alibi_slopes), host code.
#pragma once

#include <cstdint>

namespace baracuda::alibi {

// Writes num_heads slopes to out. Throws baracuda::Error for num_heads < 1 or out NULL.
void write_slopes(int32_t num_heads, float *out);

}  // namespace baracuda::alibi
