// Reading a descriptor's common fields, the same way for every op: the
// versioned read, the dtype (valid, then served), the rank, reserved fields,
// and extents in 0..2^62 whose sums and products are formed in 128 bits.
// Every failure names the op and the field. Throws baracuda::Error.
#pragma once

#include <cstdint>
#include <string>

#include "baracuda/core.h"
#include "core/checked_math.hpp"
#include "core/op_def.hpp"
#include "core/versioned.hpp"

namespace baracuda {

template <class Desc>
Desc read_descriptor(const OpDef &op, const baracuda_op_header_t *header, const Desc &defaults) {
  return read_versioned(op.name, "descriptor", header, header->struct_size, sizeof(Desc), defaults);
}

// INVALID_PROBLEM when dtype names no dtype, UNSUPPORTED (listing the served
// ones) when op does not serve it.
void require_served_dtype(const OpDef &op, baracuda_dtype_t dtype);

void require_rank(const OpDef &op, int32_t rank);

void require_zero(const OpDef &op, const char *field, int64_t value);

// value in 0..2^62, else INVALID_PROBLEM "<op>: <field> is <value>, must be 0 to 2^62".
int64_t require_extent(const OpDef &op, const std::string &field, int128 value);

// A tensor of this shape has at most 2^62 elements (none when any extent is 0).
void require_element_count(const OpDef &op, const std::string &what, int32_t rank, const int64_t *shape);

}  // namespace baracuda
