package baracuda

import (
	"errors"
	"strings"
	"testing"
	"unsafe"
)

func TestSelectForSM90NamesTheKernel(t *testing.T) {
	p, err := SelectPad(false, DtypeBF16, PadReflect, []int64{4, 100}, []int64{0, 3}, []int64{0, 5}, 0, 90)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	name, err := p.KernelName()
	if err != nil || name != "pad_gather_rows_b2_reflect" {
		t.Fatalf("kernel name %q, %v", name, err)
	}
}

func TestABadDescriptorIsAnErrorWithTheMessage(t *testing.T) {
	_, err := SelectWriteSlice(DtypeF32, []int64{4, 10}, []int64{1, 2}, []int64{3, 11}, 90)
	var e *Error
	if !errors.As(err, &e) || e.Status != InvalidProblem || !strings.Contains(e.Message, "axis 1 has start 2 and end 11") {
		t.Fatalf("got %v", err)
	}
}

func TestPadAndWriteSliceOnTheGPU(t *testing.T) {
	if deviceCount() == 0 {
		t.Skip("no CUDA device")
	}
	x := make([]float32, 40)
	for i := range x {
		x[i] = float32(i)*0.25 - 2
	}
	dx, dy := deviceAlloc(160), deviceAlloc(4*15*4)
	defer deviceFree(dx)
	defer deviceFree(dy)
	upload(dx, unsafe.Pointer(&x[0]), 160)
	p, err := SelectPad(false, DtypeF32, PadConstant, []int64{4, 10}, []int64{0, 2}, []int64{0, 3}, 1.5, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Run(map[int]Tensor{ArgX: {dx, DtypeF32, []int64{4, 10}}, ArgY: {dy, DtypeF32, []int64{4, 15}}}, 0); err != nil {
		t.Fatal(err)
	}
	y := make([]float32, 60)
	download(unsafe.Pointer(&y[0]), dy, 240)
	for r := 0; r < 4; r++ {
		for j := 0; j < 15; j++ {
			want := float32(1.5)
			if j >= 2 && j < 12 {
				want = x[r*10+j-2]
			}
			if y[r*15+j] != want {
				t.Fatalf("y[%d,%d] = %v, want %v", r, j, y[r*15+j], want)
			}
		}
	}
	cache, step := make([]uint8, 16), []uint8{1, 2, 3, 4}
	for i := range cache {
		cache[i] = 9
	}
	dc, ds := deviceAlloc(16), deviceAlloc(4)
	defer deviceFree(dc)
	defer deviceFree(ds)
	upload(dc, unsafe.Pointer(&cache[0]), 16)
	upload(ds, unsafe.Pointer(&step[0]), 4)
	w, err := SelectWriteSlice(DtypeU8, []int64{2, 8}, []int64{0, 6}, []int64{2, 8}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Run(map[int]Tensor{ArgDest: {dc, DtypeU8, []int64{2, 8}}, ArgSource: {ds, DtypeU8, []int64{2, 2}}}, 0); err != nil {
		t.Fatal(err)
	}
	download(unsafe.Pointer(&cache[0]), dc, 16)
	want := []uint8{9, 9, 9, 9, 9, 9, 1, 2, 9, 9, 9, 9, 9, 9, 3, 4}
	for i := range want {
		if cache[i] != want[i] {
			t.Fatalf("cache = %v, want %v", cache, want)
		}
	}
	t.Log("Go: pad and write_slice ok on the GPU")
}
