// The NVRTC functions the cudnn-frontend headers reference: its open-source
// engines (the SM100 RMSNorm + SiLU one) compile kernels at run time. The
// attention graphs never pick them, but the frontend's graph code links
// them, so they are defined here over libnvrtc opened with dlopen on first
// call; where it is absent they return NVRTC_ERROR_INTERNAL_ERROR and the
// frontend reports that engine as not buildable. Hidden, like every symbol
// of ours.
#include <dlfcn.h>
#include <nvrtc.h>

#include <initializer_list>

namespace {

void *nvrtc_library() {
  static void *handle = [] {
    for (const char *name : {"libnvrtc.so.13", "libnvrtc.so"})
      if (void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return h;
    return static_cast<void *>(nullptr);
  }();
  return handle;
}

// The loaded function named like the declaration F, looked up once; NULL
// without libnvrtc.
template <auto &F>
auto *loaded(const char *name) {
  static auto *f = nvrtc_library() == nullptr ? nullptr
                                              : reinterpret_cast<decltype(&F)>(dlsym(nvrtc_library(), name));
  return f;
}

}  // namespace

#define BARACUDA_NVRTC_CALL(name, ...) \
  (loaded<name>(#name) == nullptr ? NVRTC_ERROR_INTERNAL_ERROR : loaded<name>(#name)(__VA_ARGS__))

extern "C" {

nvrtcResult nvrtcCreateProgram(nvrtcProgram *prog, const char *src, const char *name, int num_headers,
                               const char *const *headers, const char *const *include_names) {
  return BARACUDA_NVRTC_CALL(nvrtcCreateProgram, prog, src, name, num_headers, headers, include_names);
}
nvrtcResult nvrtcDestroyProgram(nvrtcProgram *prog) { return BARACUDA_NVRTC_CALL(nvrtcDestroyProgram, prog); }
nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int num_options, const char *const *options) {
  return BARACUDA_NVRTC_CALL(nvrtcCompileProgram, prog, num_options, options);
}
nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram prog, size_t *size) {
  return BARACUDA_NVRTC_CALL(nvrtcGetProgramLogSize, prog, size);
}
nvrtcResult nvrtcGetProgramLog(nvrtcProgram prog, char *log) { return BARACUDA_NVRTC_CALL(nvrtcGetProgramLog, prog, log); }
nvrtcResult nvrtcGetCUBINSize(nvrtcProgram prog, size_t *size) {
  return BARACUDA_NVRTC_CALL(nvrtcGetCUBINSize, prog, size);
}
nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char *cubin) { return BARACUDA_NVRTC_CALL(nvrtcGetCUBIN, prog, cubin); }

}  // extern "C"
