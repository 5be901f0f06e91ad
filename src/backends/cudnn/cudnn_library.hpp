// libcudnn, opened with dlopen on first use so that the library loads and
// runs everything else where cuDNN is absent. The cuDNN functions the
// frontend headers call are defined in cudnn_entry_points.cpp and forward to
// the loaded library's.
#pragma once

#include <cstddef>
#include <string>

namespace baracuda::cudnn {

struct Library {
  void *handle;         // null: not loaded, see why_not
  size_t version;       // cudnnGetVersion(): 91400 for 9.14.0
  std::string why_not;  // which file was tried and what failed
};

// Opens BARACUDA_CUDNN_LIBRARY if set, else libcudnn.so.9, once per process,
// and resolves every entry point; refuses a cuDNN older than the headers this
// build was compiled with (the frontend assumes their features).
const Library &library();

// The loaded library's function of this name; library() succeeded first.
void *entry_point(const char *name);

}  // namespace baracuda::cudnn
