#include "ops/sdpa/views_overlap.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/checked_math.hpp"
#include "core/dtype.hpp"

namespace baracuda::sdpa {

namespace {

// A byte of view a is a's base + sum of x_d * stride_d, x_d in [0, extent_d);
// the two views meet when a's offsets minus b's reach base_b - base_a. Each
// term is one stride with the range of its coefficient in that difference:
// a's axes add [0, extent - 1], b's [-(extent - 1), 0], and axes of equal
// stride merge (the sum of two integer ranges is a range), which keeps two
// views of one layout a chain of nested strides: one or two choices per term.
struct Term {
  int128 stride, lo, hi;
};

void add_axis(std::vector<Term> &terms, int128 stride, int64_t extent, bool negate) {
  if (stride == 0 || extent <= 1) return;
  const int128 lo = negate ? -(extent - 1) : 0, hi = negate ? 0 : extent - 1;
  for (Term &t : terms)
    if (t.stride == stride) {
      t.lo += lo, t.hi += hi;
      return;
    }
  terms.push_back({stride, lo, hi});
}

void add_view(std::vector<Term> &terms, const baracuda_tensor_t &t, bool negate) {
  const int32_t bytes = dtype_bytes(t.dtype);
  for (int32_t d = 0; d < t.rank; ++d) add_axis(terms, static_cast<int128>(t.strides[d]) * bytes, t.shape[d], negate);
  add_axis(terms, 1, bytes, negate);  // the bytes of one element
}

int128 floor_div(int128 a, int128 b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }
int128 ceil_div(int128 a, int128 b) { return -floor_div(-a, b); }

class Search {
 public:
  explicit Search(std::vector<Term> terms) : terms_(std::move(terms)), min_rest_(terms_.size() + 1, 0),
                                             max_rest_(terms_.size() + 1, 0) {
    std::sort(terms_.begin(), terms_.end(), [](const Term &x, const Term &y) { return x.stride > y.stride; });
    for (size_t i = terms_.size(); i-- > 0;) {
      min_rest_[i] = min_rest_[i + 1] + terms_[i].lo * terms_[i].stride;
      max_rest_[i] = max_rest_[i + 1] + terms_[i].hi * terms_[i].stride;
    }
  }

  // Some coefficients of terms i.. within their ranges sum to target (or the
  // budget of choices tried ran out).
  bool reaches(size_t i, int128 target) {
    if (target < min_rest_[i] || target > max_rest_[i]) return false;
    if (i == terms_.size()) return true;
    const Term &t = terms_[i];
    const int128 first = std::max(t.lo, ceil_div(target - max_rest_[i + 1], t.stride));
    const int128 last = std::min(t.hi, floor_div(target - min_rest_[i + 1], t.stride));
    for (int128 c = first; c <= last; ++c) {
      if (++visited_ > kBudget) return true;
      if (reaches(i + 1, target - c * t.stride)) return true;
    }
    return false;
  }

 private:
  static constexpr int64_t kBudget = 1 << 16;
  std::vector<Term> terms_;
  std::vector<int128> min_rest_, max_rest_;  // of terms i.. on
  int64_t visited_ = 0;
};

}  // namespace

bool views_may_overlap(const baracuda_tensor_t &a, const baracuda_tensor_t &b) {
  if (element_count(a.rank, a.shape) == 0 || element_count(b.rank, b.shape) == 0) return false;
  std::vector<Term> terms;
  add_view(terms, a, false);
  add_view(terms, b, true);
  const int128 delta = static_cast<int128>(reinterpret_cast<uintptr_t>(b.data)) -
                       static_cast<int128>(reinterpret_cast<uintptr_t>(a.data));
  return Search(std::move(terms)).reaches(0, delta);
}

}  // namespace baracuda::sdpa
