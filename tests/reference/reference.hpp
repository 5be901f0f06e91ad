// Float64 / byte-exact CPU references for every op, written from the op's
// definition (forward maps, backward scatters), independent of the kernels'
// gather formulation.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "baracuda/baracuda.h"

namespace baracuda::reference {

// A strided view into a host byte buffer; element i lives at element index
// offset + sum(idx * strides) (nibble index for S4/U4).
struct HostView {
  unsigned char *base;
  int32_t bits;  // per element
  int32_t rank;
  int64_t shape[BARACUDA_MAX_RANK];
  int64_t strides[BARACUDA_MAX_RANK];
  int64_t offset;

  int64_t at(const int64_t *idx) const {
    int64_t o = offset;
    for (int32_t d = 0; d < rank; ++d) o += idx[d] * strides[d];
    return o;
  }
  // Byte-aligned element access.
  unsigned char *elem(const int64_t *idx) const { return base + at(idx) * (bits / 8); }
  uint8_t nibble(const int64_t *idx) const {
    const int64_t o = at(idx);
    return (base[o >> 1] >> ((o & 1) * 4)) & 0xF;
  }
  void set_nibble(const int64_t *idx, uint8_t v) const {
    const int64_t o = at(idx);
    unsigned char &b = base[o >> 1];
    b = (o & 1) ? static_cast<unsigned char>((b & 0x0F) | (v << 4)) : static_cast<unsigned char>((b & 0xF0) | v);
  }
};

// Calls fn(idx) for every index of shape, last axis fastest.
inline void for_each_index(int32_t rank, const int64_t *shape, const std::function<void(const int64_t *)> &fn) {
  for (int32_t d = 0; d < rank; ++d)
    if (shape[d] == 0) return;
  int64_t idx[BARACUDA_MAX_RANK] = {};
  while (true) {
    fn(idx);
    int32_t d = rank - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

double decode_float(baracuda_dtype_t dtype, const unsigned char *p);
void encode_float(baracuda_dtype_t dtype, double v, unsigned char *p);  // round to nearest

// Input index of output index j along an axis of input extent n; -1 for a
// constant-mode fill. Written as F.pad defines it.
int64_t pad_source_index(int32_t mode, int64_t j, int64_t pad_low, int64_t n);

void pad_forward(const baracuda_pad_desc_t &desc, const HostView &x, const HostView &y);
// Scatter-add of dy into a float64 dx (dense, row-major over input_shape).
std::vector<double> pad_backward(const baracuda_pad_desc_t &desc, const HostView &dy);
void write_slice(const baracuda_write_slice_desc_t &desc, const HostView &dest, const HostView &source);

}  // namespace baracuda::reference
