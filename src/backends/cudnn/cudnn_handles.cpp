#include "backends/cudnn/cudnn_handles.hpp"

#include <map>

#include "baracuda/core.h"
#include "core/error.hpp"

namespace baracuda::cudnn {

namespace {

struct DeviceHandle {
  cudnnHandle_t handle = nullptr;
  std::mutex in_use;
};

// Never destroyed: plans may outlive static destruction order, and the
// process's exit releases the handles.
std::map<int, DeviceHandle> &handles() {
  static auto *h = new std::map<int, DeviceHandle>;
  return *h;
}

}  // namespace

HandleLease lease_handle(int device) {
  static std::mutex creating;
  DeviceHandle *d;
  {
    std::lock_guard<std::mutex> guard(creating);
    d = &handles()[device];  // std::map never moves its nodes
    if (d->handle == nullptr) {
      const cudnnStatus_t s = cudnnCreate(&d->handle);  // on the current device: select has set it
      if (s != CUDNN_STATUS_SUCCESS)
        fail(BARACUDA_STATUS_UNSUPPORTED, "cudnnCreate on device ", device, " failed: ", cudnnGetErrorString(s));
    }
  }
  return HandleLease(d->handle, d->in_use);
}

}  // namespace baracuda::cudnn
