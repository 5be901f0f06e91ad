// Lets a header of small index helpers serve device code and plain host C++
// (the heuristics and their CPU tests) alike.
#pragma once

#ifdef __CUDACC__
#define BARACUDA_HOST_DEVICE_INLINE __host__ __device__ __forceinline__
#else
#define BARACUDA_HOST_DEVICE_INLINE inline
#endif
