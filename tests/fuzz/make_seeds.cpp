// Writes the fuzz target's seed corpus: every valid problem of
// valid_problems.h as it is (sm 90), and again with grown struct sizes (zero
// tails) on another arch. Regenerate with
//   c++ -std=c++17 -Iinclude tests/fuzz/make_seeds.cpp -o /tmp/make_seeds && /tmp/make_seeds tests/fuzz/corpus
#include <cstdio>
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "valid_problems.h"

namespace {

template <class T>
void append(std::vector<uint8_t> &out, const T &value) {
  const auto *p = reinterpret_cast<const uint8_t *>(&value);
  out.insert(out.end(), p, p + sizeof value);
}

std::vector<uint8_t> encode(const valid_problem_t &p, uint8_t sm_index, uint16_t grow) {
  const uint32_t desc_size = p.desc.header.struct_size;
  fuzz::FuzzControl control{};
  control.sm_index = sm_index;
  control.desc_size = static_cast<uint16_t>(desc_size + grow);
  control.options_size = static_cast<uint16_t>(sizeof(baracuda_select_options_t) + grow);
  control.info_size = static_cast<uint16_t>(sizeof(baracuda_plan_info_t) + grow);
  control.num_args = static_cast<int16_t>(p.num_args);
  std::vector<uint8_t> out;
  append(out, control);
  const auto *desc = reinterpret_cast<const uint8_t *>(&p.desc);
  out.insert(out.end(), desc, desc + desc_size);
  out.resize(out.size() + grow, 0);
  const baracuda_select_options_t opts = BARACUDA_SELECT_OPTIONS_INIT;
  append(out, opts);
  out.resize(out.size() + grow + control.info_size, 0);
  for (int32_t i = 0; i < p.num_args; ++i) append(out, p.args[i]);
  return out;
}

bool write_file(const std::string &path, const std::vector<uint8_t> &bytes) {
  FILE *f = std::fopen(path.c_str(), "wb");
  const bool ok = f != nullptr && std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  if (f != nullptr && std::fclose(f) != 0) return false;
  if (!ok) std::perror(path.c_str());
  return ok;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  constexpr uint8_t kSm90 = 8;
  static_assert(fuzz::kTargetSms[kSm90] == 90, "the plain seeds plan for sm 90");
  int written = 0;
  valid_problem_t p;
  for (int i = 0; valid_problem(i, &p); ++i) {
    const std::string base = std::string(argv[1]) + "/" + p.name;
    if (!write_file(base, encode(p, kSm90, 0))) return 1;
    if (!write_file(base + "_grown", encode(p, static_cast<uint8_t>(i % fuzz::kNumTargetSms), 16))) return 1;
    written += 2;
  }
  std::printf("%d seeds in %s\n", written, argv[1]);
  return 0;
}
