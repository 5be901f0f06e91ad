// Fixed-seed draws for the GPU suites' random-shape cases: each suite draws
// a fixed count of problems from a std::mt19937_64 of a fixed seed, so a
// failing case is the same on every run and its description (the harness's
// `describe`) is enough to replay it. Sizes land mostly on the boundaries
// where a family's heuristics switch (a multiple of a vector or a tile, one
// less, one more), the rest anywhere in a range.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace baracuda::check {

class Draws {
 public:
  explicit Draws(uint64_t seed) : rng_(seed) {}

  // Uniform in [lo, hi].
  int64_t between(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }

  // True with probability p / 100.
  bool percent(int p) { return between(0, 99) < p; }

  template <class T, size_t N>
  T pick(const T (&options)[N]) {
    return options[between(0, static_cast<int64_t>(N) - 1)];
  }
  template <class T>
  T pick(const std::vector<T> &options) {
    return options[static_cast<size_t>(between(0, static_cast<int64_t>(options.size()) - 1))];
  }

  // Two times in three one of boundaries, one less or one more; else
  // anywhere in [lo, hi]. Clamped to [lo, hi] either way.
  int64_t size(const std::vector<int64_t> &boundaries, int64_t lo, int64_t hi) {
    int64_t v = between(lo, hi);
    if (!boundaries.empty() && between(0, 2) != 0) v = pick(boundaries) + between(-1, 1);
    return v < lo ? lo : v > hi ? hi : v;
  }

  // A seed for a harness case's data.
  uint64_t seed() { return rng_(); }

 private:
  std::mt19937_64 rng_;
};

}  // namespace baracuda::check
