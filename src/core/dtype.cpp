#include "core/dtype.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/error.hpp"

namespace baracuda {

namespace {

template <class T>
void store(unsigned char out[16], T value) {
  std::memcpy(out, &value, sizeof(T));
}

template <class Int>
void encode_integer(double re, const char *what, unsigned char out[16]) {
  // Compare in double against the range; the upper bound of 64-bit types is
  // 2^63 exactly, which double represents.
  const double lo = static_cast<double>(std::numeric_limits<Int>::min());
  const double hi_exclusive = static_cast<double>(std::numeric_limits<Int>::max()) + 1.0;
  if (!(re == std::floor(re)) || re < lo || re >= hi_exclusive)
    fail(BARACUDA_STATUS_INVALID_PROBLEM, what, " is ", re, ", not an integer in the dtype's range");
  store(out, static_cast<Int>(re));
}

// A finite value that rounds to infinity (or NaN, for e4m3 which has no
// infinity) does not fit the dtype.
void require_fits(double re, double decoded, const char *what, baracuda_dtype_t dtype) {
  if (std::isfinite(re) && !std::isfinite(decoded))
    fail(BARACUDA_STATUS_INVALID_PROBLEM, what, " is ", re, ", beyond the range of ", dtype_name(dtype));
  if (std::isinf(re) && !std::isinf(decoded))
    fail(BARACUDA_STATUS_INVALID_PROBLEM, what, " is infinite and ", dtype_name(dtype), " has no infinity");
}

double fp8_to_double(__nv_fp8_storage_t bits, __nv_fp8_interpretation_t kind) {
  __half_raw raw = __nv_cvt_fp8_to_halfraw(bits, kind);
  return static_cast<double>(__half2float(__half(raw)));
}

}  // namespace

std::string dtype_list(uint64_t mask) {
  std::string s;
  for (baracuda_dtype_t d = 1; d < BARACUDA_DTYPE_COUNT; ++d)
    if (mask & dtype_bit(d)) s += (s.empty() ? "" : ", ") + std::string(dtype_name(d));
  return s;
}

void encode_scalar(baracuda_dtype_t dtype, double re, double im, const char *what, unsigned char out[16]) {
  std::memset(out, 0, 16);
  const DtypeKind kind = dtype_traits(dtype).kind;
  if (kind != DtypeKind::Complex && im != 0.0)
    fail(BARACUDA_STATUS_INVALID_PROBLEM, what, " has imaginary part ", im, " but dtype ", dtype_name(dtype),
         " is real");
  switch (dtype) {
    case BARACUDA_DTYPE_F32:
    case BARACUDA_DTYPE_F32_STRICT: {
      float f = static_cast<float>(re);
      require_fits(re, f, what, dtype);
      store(out, f);
      return;
    }
    case BARACUDA_DTYPE_F64: store(out, re); return;
    case BARACUDA_DTYPE_F16: {
      __half h = __double2half(re);
      require_fits(re, __half2float(h), what, dtype);
      store(out, h);
      return;
    }
    case BARACUDA_DTYPE_BF16: {
      __nv_bfloat16 b = __double2bfloat16(re);
      require_fits(re, __bfloat162float(b), what, dtype);
      store(out, b);
      return;
    }
    case BARACUDA_DTYPE_FP8_E4M3:
    case BARACUDA_DTYPE_FP8_E5M2: {
      auto interp = dtype == BARACUDA_DTYPE_FP8_E4M3 ? __NV_E4M3 : __NV_E5M2;
      __nv_fp8_storage_t bits = __nv_cvt_double_to_fp8(re, __NV_NOSAT, interp);
      require_fits(re, fp8_to_double(bits, interp), what, dtype);
      store(out, bits);
      return;
    }
    case BARACUDA_DTYPE_COMPLEX32: {
      float parts[2] = {static_cast<float>(re), static_cast<float>(im)};
      require_fits(re, parts[0], what, dtype);
      require_fits(im, parts[1], what, dtype);
      std::memcpy(out, parts, sizeof parts);
      return;
    }
    case BARACUDA_DTYPE_COMPLEX64: {
      const double parts[2] = {re, im};
      std::memcpy(out, parts, sizeof parts);
      return;
    }
    case BARACUDA_DTYPE_I32: encode_integer<int32_t>(re, what, out); return;
    case BARACUDA_DTYPE_I64: encode_integer<int64_t>(re, what, out); return;
    case BARACUDA_DTYPE_S8: encode_integer<int8_t>(re, what, out); return;
    case BARACUDA_DTYPE_U8: encode_integer<uint8_t>(re, what, out); return;
    case BARACUDA_DTYPE_BOOL:
      if (re != 0.0 && re != 1.0) fail(BARACUDA_STATUS_INVALID_PROBLEM, what, " is ", re, ", bool takes 0 or 1");
      out[0] = static_cast<unsigned char>(re);
      return;
    default:
      fail(BARACUDA_STATUS_UNSUPPORTED, what, ": dtype ", dtype_name(dtype), " has no scalar encoding");
  }
}

}  // namespace baracuda
