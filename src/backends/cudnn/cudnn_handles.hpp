// One cuDNN handle per device for the whole process, taken in turn. cuDNN
// lets a handle be used from any host thread, one at a time; a handle per
// thread would have to be created inside run (cudnnCreate allocates), so
// runs on one device share a handle behind a mutex, held only while a run
// sets its stream and enqueues (microseconds).
#pragma once

#include <cudnn.h>

#include <mutex>

namespace baracuda::cudnn {

class HandleLease {
 public:
  HandleLease(cudnnHandle_t handle, std::mutex &m) : handle_(handle), lock_(m) {}
  cudnnHandle_t get() const { return handle_; }

 private:
  cudnnHandle_t handle_;
  std::lock_guard<std::mutex> lock_;
};

// The device's handle, created on first use (at select, with that device
// current). Throws baracuda::Error when cudnnCreate fails.
HandleLease lease_handle(int device);

}  // namespace baracuda::cudnn
