// What an arch offers a kernel, for choices select makes without a GPU
// (target_sm): the CUDA Programming Guide's per-arch tables.
#pragma once

#include <cstddef>
#include <cstdint>

namespace baracuda {

// The most shared memory one block may take on sm (the opt-in maximum):
// 163 KiB on sm 80 and 87, 227 KiB on sm 90 and 100-103, 99 KiB on the
// others (sm 86, 89, 120 ...; the least of any arch from sm 80 on).
constexpr size_t max_shared_memory_per_block(int32_t sm) {
  if (sm == 80 || sm == 87) return 163 * 1024;
  if (sm == 90 || (sm >= 100 && sm <= 103)) return 227 * 1024;
  return 99 * 1024;
}

// Whether sm's tensor cores run tf32 MMAs at several times its CUDA cores'
// f32 rate: the data-center SMs (sm 80, 90, 100-103). On the GeForce-class
// ones (sm 86, 89, 120) tf32 runs at about the f32 CUDA-core rate, and sm 87's
// ratio is unmeasured here.
constexpr bool fast_tf32(int32_t sm) { return sm == 80 || sm == 90 || (sm >= 100 && sm <= 103); }

}  // namespace baracuda
