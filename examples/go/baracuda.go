// Package baracuda calls baracuda-kernels through cgo: a Plan that is
// destroyed by Close, and errors that carry the status and the library's
// message.
//
// Build with CGO_CFLAGS pointing at the headers and CGO_LDFLAGS at the
// library, e.g. `CGO_CFLAGS="$(pkg-config --cflags baracuda-kernels)"
// CGO_LDFLAGS="$(pkg-config --libs baracuda-kernels)" go test`.
package baracuda

/*
#cgo LDFLAGS: -lbaracuda_kernels
#include <stdlib.h>
#include <baracuda/baracuda.h>

static baracuda_status_t select_plan(void *desc, int32_t target_sm, baracuda_plan_t *plan) {
  baracuda_select_options_t opts = BARACUDA_SELECT_OPTIONS_INIT;
  opts.target_sm = target_sm;
  return baracuda_plan_select((const baracuda_op_header_t *)desc, &opts, plan);
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Error is a non-zero status and the library's sentence about it.
type Error struct {
	Status  int32
	Message string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s (%d): %s", C.GoString(C.baracuda_status_string(C.int32_t(e.Status))), e.Status, e.Message)
}

func check(status C.baracuda_status_t) error {
	if status == 0 {
		return nil
	}
	return &Error{Status: int32(status), Message: C.GoString(C.baracuda_last_error_message())}
}

// Constants from the header.
const (
	DtypeF32       = C.BARACUDA_DTYPE_F32
	DtypeBF16      = C.BARACUDA_DTYPE_BF16
	DtypeU8        = C.BARACUDA_DTYPE_U8
	PadConstant    = C.BARACUDA_PAD_CONSTANT
	PadReflect     = C.BARACUDA_PAD_REFLECT
	ArgX           = C.BARACUDA_ARG_X
	ArgY           = C.BARACUDA_ARG_Y
	ArgDest        = C.BARACUDA_ARG_DEST
	ArgSource      = C.BARACUDA_ARG_SOURCE
	InvalidProblem = C.BARACUDA_STATUS_INVALID_PROBLEM
)

// Plan is a selected plan; Close destroys it.
type Plan struct{ p C.baracuda_plan_t }

func selectPlan(desc unsafe.Pointer, targetSM int) (*Plan, error) {
	var p C.baracuda_plan_t
	if err := check(C.select_plan(desc, C.int32_t(targetSM), &p)); err != nil {
		return nil, err
	}
	return &Plan{p}, nil
}

// SelectPad plans a pad (backward when backward is true); targetSM 0 is the current GPU's.
func SelectPad(backward bool, dtype, mode int, shape, low, high []int64, value float64, targetSM int) (*Plan, error) {
	desc := (*C.baracuda_pad_desc_t)(C.calloc(1, C.sizeof_baracuda_pad_desc_t))
	defer C.free(unsafe.Pointer(desc))
	desc.header.struct_size = C.sizeof_baracuda_pad_desc_t
	desc.header.op = C.BARACUDA_OP_PAD
	if backward {
		desc.header.op = C.BARACUDA_OP_PAD_BACKWARD
	}
	desc.dtype = C.baracuda_dtype_t(dtype)
	desc.mode = C.int32_t(mode)
	desc.rank = C.int32_t(len(shape))
	for i := range shape {
		desc.input_shape[i] = C.int64_t(shape[i])
		desc.pad_low[i] = C.int64_t(low[i])
		desc.pad_high[i] = C.int64_t(high[i])
	}
	desc.value = C.double(value)
	return selectPlan(unsafe.Pointer(desc), targetSM)
}

// SelectWriteSlice plans dest[start:end] = source.
func SelectWriteSlice(dtype int, destShape, start, end []int64, targetSM int) (*Plan, error) {
	desc := (*C.baracuda_write_slice_desc_t)(C.calloc(1, C.sizeof_baracuda_write_slice_desc_t))
	defer C.free(unsafe.Pointer(desc))
	desc.header.struct_size = C.sizeof_baracuda_write_slice_desc_t
	desc.header.op = C.BARACUDA_OP_WRITE_SLICE
	desc.dtype = C.baracuda_dtype_t(dtype)
	desc.rank = C.int32_t(len(destShape))
	for i := range destShape {
		desc.dest_shape[i] = C.int64_t(destShape[i])
		desc.start[i] = C.int64_t(start[i])
		desc.end[i] = C.int64_t(end[i])
	}
	return selectPlan(unsafe.Pointer(desc), targetSM)
}

// Tensor is a dense row-major view of device memory (a uintptr device address).
type Tensor struct {
	Data  uintptr
	Dtype int
	Shape []int64
}

// Run enqueues the plan on stream (0: the legacy default stream), arguments by role.
func (p *Plan) Run(args map[int]Tensor, stream uintptr) error {
	n := len(args)
	cargs := (*[16]C.baracuda_arg_t)(C.calloc(C.size_t(n), C.sizeof_baracuda_arg_t))[:n:n]
	defer C.free(unsafe.Pointer(&cargs[0]))
	i := 0
	for role, t := range args {
		shape := make([]C.int64_t, len(t.Shape))
		for d, s := range t.Shape {
			shape[d] = C.int64_t(s)
		}
		cargs[i].role = C.int32_t(role)
		cargs[i].tensor = C.baracuda_tensor_contiguous(unsafe.Pointer(t.Data), C.baracuda_dtype_t(t.Dtype),
			C.int32_t(len(t.Shape)), &shape[0])
		i++
	}
	return check(C.baracuda_plan_run(p.p, &cargs[0], C.int32_t(n), nil, 0, C.baracuda_stream_t(unsafe.Pointer(stream))))
}

// KernelName is what the plan will launch.
func (p *Plan) KernelName() (string, error) {
	var info C.baracuda_plan_info_t
	info.struct_size = C.sizeof_baracuda_plan_info_t
	if err := check(C.baracuda_plan_get_info(p.p, &info)); err != nil {
		return "", err
	}
	return C.GoString(&info.kernel_name[0]), nil
}

// Close destroys the plan.
func (p *Plan) Close() {
	C.baracuda_plan_destroy(p.p)
	p.p = nil
}
