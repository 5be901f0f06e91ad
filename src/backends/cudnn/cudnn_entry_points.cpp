// The cuDNN functions the frontend headers call, defined here over the
// dlopen'ed libcudnn (cudnn_library.cpp): the frontend compiles as if linked
// to cuDNN, and the library's link line names no libcudnn. Hidden like every
// symbol of ours (the version script exports only baracuda_*), so a process
// that also loads cuDNN (PyTorch) keeps its own.
#include <cudnn.h>

#include "backends/cudnn/cudnn_library.hpp"

namespace {

// The loaded function named like the declaration F, looked up once.
template <auto &F>
auto *loaded(const char *name) {
  static auto *f = reinterpret_cast<decltype(&F)>(baracuda::cudnn::entry_point(name));
  return f;
}

}  // namespace

#define BARACUDA_CUDNN_LOADED(name) loaded<name>(#name)

extern "C" {

cudnnStatus_t cudnnCreate(cudnnHandle_t *handle) { return BARACUDA_CUDNN_LOADED(cudnnCreate)(handle); }
cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t stream) {
  return BARACUDA_CUDNN_LOADED(cudnnSetStream)(handle, stream);
}
cudnnStatus_t cudnnGetStream(cudnnHandle_t handle, cudaStream_t *stream) {
  return BARACUDA_CUDNN_LOADED(cudnnGetStream)(handle, stream);
}
size_t cudnnGetVersion(void) { return BARACUDA_CUDNN_LOADED(cudnnGetVersion)(); }
const char *cudnnGetErrorString(cudnnStatus_t status) { return BARACUDA_CUDNN_LOADED(cudnnGetErrorString)(status); }
void cudnnGetLastErrorString(char *message, size_t max_size) {
  BARACUDA_CUDNN_LOADED(cudnnGetLastErrorString)(message, max_size);
}
cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t type, cudnnBackendDescriptor_t *descriptor) {
  return BARACUDA_CUDNN_LOADED(cudnnBackendCreateDescriptor)(type, descriptor);
}
cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor) {
  return BARACUDA_CUDNN_LOADED(cudnnBackendDestroyDescriptor)(descriptor);
}
cudnnStatus_t cudnnBackendFinalize(cudnnBackendDescriptor_t descriptor) {
  return BARACUDA_CUDNN_LOADED(cudnnBackendFinalize)(descriptor);
}
cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                                       cudnnBackendAttributeType_t type, int64_t count, const void *values) {
  return BARACUDA_CUDNN_LOADED(cudnnBackendSetAttribute)(descriptor, name, type, count, values);
}
cudnnStatus_t cudnnBackendGetAttribute(cudnnBackendDescriptor_t const descriptor, cudnnBackendAttributeName_t name,
                                       cudnnBackendAttributeType_t type, int64_t requested, int64_t *count,
                                       void *values) {
  return BARACUDA_CUDNN_LOADED(cudnnBackendGetAttribute)(descriptor, name, type, requested, count, values);
}
cudnnStatus_t cudnnBackendExecute(cudnnHandle_t handle, cudnnBackendDescriptor_t plan,
                                  cudnnBackendDescriptor_t variant_pack) {
  return BARACUDA_CUDNN_LOADED(cudnnBackendExecute)(handle, plan, variant_pack);
}

// The legacy filter calls of the frontend's convolution helpers: linked by
// its graph code, never called by the attention graphs.
cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *filter) {
  return BARACUDA_CUDNN_LOADED(cudnnCreateFilterDescriptor)(filter);
}
cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t filter) {
  return BARACUDA_CUDNN_LOADED(cudnnDestroyFilterDescriptor)(filter);
}
cudnnStatus_t cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t filter, cudnnDataType_t type,
                                         cudnnTensorFormat_t format, int dims, const int extents[]) {
  return BARACUDA_CUDNN_LOADED(cudnnSetFilterNdDescriptor)(filter, type, format, dims, extents);
}
cudnnStatus_t cudnnReorderFilterAndBias(cudnnHandle_t handle, const cudnnFilterDescriptor_t filter,
                                        cudnnReorderType_t reorder, const void *filter_data, void *reordered_filter,
                                        int reorder_bias, const void *bias, void *reordered_bias) {
  return BARACUDA_CUDNN_LOADED(cudnnReorderFilterAndBias)(handle, filter, reorder, filter_data, reordered_filter,
                                                          reorder_bias, bias, reordered_bias);
}

}  // extern "C"
