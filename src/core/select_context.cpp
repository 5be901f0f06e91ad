#include "core/select_context.hpp"

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <sstream>
#include <string>

#include "baracuda_build_config.h"
#include "core/error.hpp"
#include "core/versioned.hpp"

namespace baracuda {

namespace {

baracuda_build_info_t make_build_info() {
  baracuda_build_info_t info = BARACUDA_BUILD_INFO_INIT;
  const int32_t sass[] = {BARACUDA_BUILD_SASS_ARCHS};
  for (int32_t sm : sass)
    if (info.num_sass_archs < 16) info.sass_archs[info.num_sass_archs++] = sm;
  info.ptx_arch = BARACUDA_BUILD_PTX_ARCH;
  info.version = BARACUDA_BUILD_VERSION;
  info.cuda_runtime_version = CUDART_VERSION;
  return info;
}

bool arch_served(int32_t sm) {
  const baracuda_build_info_t &b = build_info();
  for (int32_t i = 0; i < b.num_sass_archs; ++i)
    if (b.sass_archs[i] / 10 == sm / 10 && b.sass_archs[i] <= sm) return true;  // same major: binary compatible
  return b.ptx_arch != 0 && b.ptx_arch <= sm;                                   // the driver JITs the PTX
}

std::string arch_list() {
  const baracuda_build_info_t &b = build_info();
  std::ostringstream os;
  for (int32_t i = 0; i < b.num_sass_archs; ++i) os << (i ? ", " : "") << b.sass_archs[i];
  os << " and PTX for " << b.ptx_arch;
  return os.str();
}

}  // namespace

const baracuda_build_info_t &build_info() {
  static const baracuda_build_info_t info = make_build_info();
  return info;
}

SelectContext resolve_select_options(const char *op, const baracuda_select_options_t *opts) {
  baracuda_select_options_t o = BARACUDA_SELECT_OPTIONS_INIT;
  if (opts != nullptr)
    o = read_versioned(op, "select options", opts, opts->struct_size, sizeof(baracuda_select_options_t), o);
  constexpr uint32_t known_flags = BARACUDA_SELECT_DETERMINISTIC | BARACUDA_SELECT_BESPOKE_ONLY;
  if (o.flags & ~known_flags)
    fail(BARACUDA_STATUS_UNSUPPORTED, op, ": select options flags 0x", std::hex, o.flags, " has bits this library does not know");
  if (o.target_sm < 0) fail(BARACUDA_STATUS_INVALID_PROBLEM, op, ": select options target_sm is ", o.target_sm);
  int32_t sm = o.target_sm;
  SelectContext ctx{0, o.flags};
  if (sm == 0) {
    int device = o.device;
    if (device < -1) fail(BARACUDA_STATUS_INVALID_PROBLEM, op, ": select options device is ", device);
    if (device == -1) check_cuda(cudaGetDevice(&device), op, "cudaGetDevice (set target_sm to plan without a GPU)");
    int major = 0, minor = 0;
    check_cuda(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), op,
               "cudaDeviceGetAttribute (set target_sm to plan without a GPU)");
    check_cuda(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), op,
               "cudaDeviceGetAttribute");
    sm = major * 10 + minor;
    ctx.device = device;
  }
  if (!arch_served(sm))
    fail(BARACUDA_STATUS_UNSUPPORTED, op, ": target sm ", sm, " is not served; this build has machine code for sm ",
         arch_list());
  ctx.target_sm = sm;
  if (const char *forced = std::getenv("BARACUDA_FORCE_CANDIDATE")) ctx.forced_candidate = forced;
  return ctx;
}

}  // namespace baracuda
