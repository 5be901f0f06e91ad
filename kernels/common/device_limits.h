// The few device limits a launch decides by (SM count, shared memory per
// block and per SM), read once a device. Attribute queries at every launch
// were part of the host's cost a call, which a small op's time includes.
#pragma once

#include <cuda_runtime.h>

#include <atomic>

namespace baracuda::kernels {

struct DeviceLimits {
  int sms = 0;                  // multiprocessors
  int smem_per_block = 0;       // opt-in dynamic shared memory a block may have, bytes
  int smem_per_sm = 0;          // shared memory an SM has, bytes
  int reserved_smem_per_block = 0;  // what the system reserves of it a block, bytes
};

// device's limits (cudaSuccess), or the error of the first query that failed.
// Threads that race read and store the same values.
inline cudaError_t device_limits(int device, DeviceLimits &limits) {
  constexpr int kDevices = 64;
  struct Slot {
    std::atomic<bool> ready{false};
    std::atomic<int> sms{0}, smem_per_block{0}, smem_per_sm{0}, reserved{0};
  };
  static Slot cache[kDevices];
  Slot *slot = device >= 0 && device < kDevices ? &cache[device] : nullptr;
  if (slot != nullptr && slot->ready.load(std::memory_order_acquire)) {
    limits.sms = slot->sms.load(std::memory_order_relaxed);
    limits.smem_per_block = slot->smem_per_block.load(std::memory_order_relaxed);
    limits.smem_per_sm = slot->smem_per_sm.load(std::memory_order_relaxed);
    limits.reserved_smem_per_block = slot->reserved.load(std::memory_order_relaxed);
    return cudaSuccess;
  }
  cudaError_t err;
  if ((err = cudaDeviceGetAttribute(&limits.sms, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess ||
      (err = cudaDeviceGetAttribute(&limits.smem_per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device)) !=
          cudaSuccess ||
      (err = cudaDeviceGetAttribute(&limits.smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device)) !=
          cudaSuccess ||
      (err = cudaDeviceGetAttribute(&limits.reserved_smem_per_block, cudaDevAttrReservedSharedMemoryPerBlock,
                                    device)) != cudaSuccess)
    return err;
  if (slot != nullptr) {
    slot->sms.store(limits.sms, std::memory_order_relaxed);
    slot->smem_per_block.store(limits.smem_per_block, std::memory_order_relaxed);
    slot->smem_per_sm.store(limits.smem_per_sm, std::memory_order_relaxed);
    slot->reserved.store(limits.reserved_smem_per_block, std::memory_order_relaxed);
    slot->ready.store(true, std::memory_order_release);
  }
  return cudaSuccess;
}

// The current device's limits; see device_limits.
inline cudaError_t current_device_limits(DeviceLimits &limits) {
  int device = 0;
  const cudaError_t err = cudaGetDevice(&device);
  return err != cudaSuccess ? err : device_limits(device, limits);
}

}  // namespace baracuda::kernels
