// Independent passes of one op, overlapped: Hopper's programmatic dependent
// launch lets a kernel start while the kernel before it on the stream runs
// its last blocks, instead of after its last block ends. Only for passes that
// neither read what the others write nor write what they read or write (the
// same values written twice are fine); the caller's later work on the stream
// still waits for every pass. A pass that does read the one before it calls
// wait_for_previous_pass() first. Before sm_90 the trigger is a no-op and the
// launches are ordinary ones.
#pragma once

#include <cuda_runtime.h>

#include <utility>

namespace baracuda::kernels {

// Called at the start of a pass kernel: once every block of it has called
// this, the next pass (launched with launch_overlapping) may start.
__device__ __forceinline__ void let_next_pass_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Called in a pass that reads what the pass before it wrote, before the
// first such read: waits until that pass has finished and its writes are
// visible. Lets a dependent pass be launched overlapping too (its launch
// latency hides behind the pass before it); a no-op before sm_90.
__device__ __forceinline__ void wait_for_previous_pass() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// kernel (a __global__ function's address) on grid blocks of block threads,
// its arguments given by address as for cudaLaunchKernel, with one launch
// attribute. Not a template: the one launcher behind the templates below,
// and what kernels chosen at run time among instantiations call directly (a
// variadic launcher instantiated for each kernel adds host compile time to
// every TU). 0 or the negated CUDA error.
inline int launch_with_attribute_args(const cudaLaunchAttribute &attribute, const void *kernel, dim3 grid, dim3 block,
                                      cudaStream_t stream, void **args) {
  cudaLaunchAttribute attributes[1] = {attribute};
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.stream = stream;
  config.attrs = attributes;
  config.numAttrs = 1;
  return -static_cast<int>(cudaLaunchKernelExC(&config, kernel, args));
}

// The attribute that lets a kernel start before the kernel launched before it
// on the stream has finished.
inline cudaLaunchAttribute overlap_attribute() {
  cudaLaunchAttribute overlap{};
  overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  overlap.val.programmaticStreamSerializationAllowed = 1;
  return overlap;
}

// launch_with_attribute_args, overlapping the kernel before it on the stream.
inline int launch_overlapping_args(const void *kernel, dim3 grid, dim3 block, cudaStream_t stream, void **args) {
  return launch_with_attribute_args(overlap_attribute(), kernel, grid, block, stream, args);
}

// kernel<<<grid, block, 0, stream>>>(args...) with one launch attribute: the
// arguments converted to the kernel's parameter types, then launched by
// address. 0 or the negated CUDA error.
template <class... Params, class... Args>
int launch_with_attribute(const cudaLaunchAttribute &attribute, void (*kernel)(Params...), unsigned grid,
                          unsigned block, cudaStream_t stream, Args &&...args) {
  return [&](Params... converted) {
    void *addresses[] = {const_cast<void *>(static_cast<const void *>(&converted))..., nullptr};
    return launch_with_attribute_args(attribute, reinterpret_cast<const void *>(kernel), dim3(grid), dim3(block),
                                      stream, addresses);
  }(std::forward<Args>(args)...);
}

// kernel<<<grid, block, 0, stream>>>(args...), allowed to start before the
// kernel launched before it on the stream has finished. 0 or the negated
// CUDA error.
template <class... Params, class... Args>
int launch_overlapping(void (*kernel)(Params...), unsigned grid, unsigned block, cudaStream_t stream, Args &&...args) {
  return launch_with_attribute(overlap_attribute(), kernel, grid, block, stream, std::forward<Args>(args)...);
}

// The passes of one op, launched in order: the first as an ordinary launch
// (it follows the caller's work, which may write what it reads), every later
// one overlapping the pass before it.
class PassSequence {
 public:
  explicit PassSequence(cudaStream_t stream) : stream_(stream) {}
  template <class... Params, class... Args>
  int launch(void (*kernel)(Params...), unsigned grid, unsigned block, Args &&...args) {
    if (started_) return launch_overlapping(kernel, grid, block, stream_, std::forward<Args>(args)...);
    started_ = true;
    kernel<<<grid, block, 0, stream_>>>(std::forward<Args>(args)...);
    return -static_cast<int>(cudaGetLastError());
  }

 private:
  cudaStream_t stream_;
  bool started_ = false;
};

}  // namespace baracuda::kernels
