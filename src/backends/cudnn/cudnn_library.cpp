#include "backends/cudnn/cudnn_library.hpp"

#include <cudnn_version.h>
#include <dlfcn.h>

#include <cstdlib>

#include "core/error.hpp"

namespace baracuda::cudnn {

namespace {

// Every function cudnn_entry_points.cpp forwards: all must resolve before
// the library counts as loaded.
constexpr const char *kEntryPoints[] = {
    "cudnnCreate",          "cudnnSetStream",           "cudnnGetStream",
    "cudnnGetVersion",      "cudnnGetErrorString",      "cudnnGetLastErrorString",
    "cudnnBackendCreateDescriptor", "cudnnBackendDestroyDescriptor", "cudnnBackendFinalize",
    "cudnnBackendSetAttribute",     "cudnnBackendGetAttribute",      "cudnnBackendExecute",
    "cudnnCreateFilterDescriptor",  "cudnnDestroyFilterDescriptor",  "cudnnSetFilterNdDescriptor",
    "cudnnReorderFilterAndBias",
};

Library load() {
  const char *override_path = std::getenv("BARACUDA_CUDNN_LIBRARY");
  const char *path = override_path != nullptr && *override_path != '\0' ? override_path : "libcudnn.so.9";
  // RTLD_LOCAL: cuDNN's symbols stay out of the process's global namespace.
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return {nullptr, 0, cat("cuDNN is not loaded: dlopen(", path, ") failed: ", dlerror())};
  for (const char *name : kEntryPoints)
    if (dlsym(handle, name) == nullptr) {
      dlclose(handle);
      return {nullptr, 0, cat("cuDNN is not loaded: ", path, " has no ", name)};
    }
  using GetVersion = size_t (*)();
  const size_t version = reinterpret_cast<GetVersion>(dlsym(handle, "cudnnGetVersion"))();
  if (version < CUDNN_VERSION || version / 10000 != CUDNN_MAJOR) {
    dlclose(handle);
    return {nullptr, version,
            cat("cuDNN ", version, " from ", path, " is not served: this build's frontend was compiled against cuDNN ",
                CUDNN_VERSION, " headers and needs that version or a newer ", CUDNN_MAJOR, ".x")};
  }
  return {handle, version, {}};
}

}  // namespace

const Library &library() {
  static const Library lib = load();
  return lib;
}

void *entry_point(const char *name) { return dlsym(library().handle, name); }

}  // namespace baracuda::cudnn
