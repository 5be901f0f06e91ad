package baracuda

/*
#cgo LDFLAGS: -lcudart
#include <cuda_runtime_api.h>
*/
import "C"

import "unsafe"

// Device memory for the tests, through the CUDA runtime.
func deviceCount() int {
	var n C.int
	if C.cudaGetDeviceCount(&n) != C.cudaSuccess {
		return 0
	}
	return int(n)
}

func deviceAlloc(bytes int) uintptr {
	var p unsafe.Pointer
	if C.cudaMalloc(&p, C.size_t(bytes)) != C.cudaSuccess {
		panic("cudaMalloc failed")
	}
	return uintptr(p)
}

func upload(dst uintptr, src unsafe.Pointer, bytes int) {
	C.cudaMemcpy(unsafe.Pointer(dst), src, C.size_t(bytes), C.cudaMemcpyHostToDevice)
}

func download(dst unsafe.Pointer, src uintptr, bytes int) {
	C.cudaMemcpy(dst, unsafe.Pointer(src), C.size_t(bytes), C.cudaMemcpyDeviceToHost)
}

func deviceFree(p uintptr) { C.cudaFree(unsafe.Pointer(p)) }
