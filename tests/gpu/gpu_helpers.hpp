#pragma once

#include <catch2/catch.hpp>

#include "reference/harness.hpp"

// One harness case as one Catch2 check, described when it fails.
#define CHECK_CASE(case_value, runner)                            \
  do {                                                            \
    const auto &c_ = (case_value);                                \
    const baracuda::check::Result r_ = runner(c_);                \
    INFO(baracuda::check::describe(c_) << ": " << r_.detail);     \
    CHECK(r_.ok);                                                 \
  } while (0)

inline double fill_for(baracuda_dtype_t dtype) {
  switch (dtype) {
    case BARACUDA_DTYPE_BOOL: return 1;
    case BARACUDA_DTYPE_U8: return 7;
    case BARACUDA_DTYPE_I32: case BARACUDA_DTYPE_I64: case BARACUDA_DTYPE_S8: return -7;
    default: return 1.5;
  }
}
