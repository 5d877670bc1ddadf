//go:build cuda

package gpu

// The few driver calls gorgonia.org/cu v0.9.6 does not wrap: page-locked
// host allocation (cuMemHostAlloc) and the driver's own error names and
// descriptions (cuGetErrorName/cuGetErrorString), so that errors carry the
// CUDA text users can search for.

/*
#cgo LDFLAGS: -lcuda
#include <cuda.h>
#include <stddef.h>

static CUresult voxlab_host_alloc(void **p, size_t n) {
	// PORTABLE: pinned for every context, not only the current one.
	return cuMemHostAlloc(p, n, CU_MEMHOSTALLOC_PORTABLE);
}

static const char *voxlab_error_name(int r) {
	const char *s = NULL;
	if (cuGetErrorName((CUresult)r, &s) != CUDA_SUCCESS || s == NULL) {
		return "CUDA_ERROR_UNKNOWN_CODE";
	}
	return s;
}

static const char *voxlab_error_string(int r) {
	const char *s = NULL;
	if (cuGetErrorString((CUresult)r, &s) != CUDA_SUCCESS || s == NULL) {
		return "unknown error code";
	}
	return s;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"reflect"
	"unsafe"
)

// hostAllocPinned page-locks n bytes with cuMemHostAlloc; the context must
// be current. Free with cu.MemFreeHost.
func hostAllocPinned(n int64) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	if r := C.voxlab_host_alloc(&p, C.size_t(n)); r != C.CUDA_SUCCESS {
		return nil, &CUDAError{Op: "cuMemHostAlloc", Code: int(r)}
	}
	return p, nil
}

// CUDAError is a failed CUDA driver call, with the driver's name and
// description of the result code.
type CUDAError struct {
	// Op is the driver call or the backend operation that failed.
	Op   string
	Code int
}

func (e *CUDAError) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Op, e.Name(), C.GoString(C.voxlab_error_string(C.int(e.Code))))
}

// Name returns the result code's name, such as CUDA_ERROR_OUT_OF_MEMORY.
func (e *CUDAError) Name() string { return C.GoString(C.voxlab_error_name(C.int(e.Code))) }

// OutOfMemory reports whether the driver ran out of memory.
func (e *CUDAError) OutOfMemory() bool { return e.Code == int(C.CUDA_ERROR_OUT_OF_MEMORY) }

// cudaErr turns an error of gorgonia.org/cu (its result type is an
// unexported int) into a *CUDAError for op; other errors are wrapped.
func cudaErr(op string, err error) error {
	if err == nil {
		return nil
	}
	var ce *CUDAError
	if errors.As(err, &ce) {
		return err
	}
	if v := reflect.ValueOf(err); v.Kind() == reflect.Int {
		return &CUDAError{Op: op, Code: int(v.Int())}
	}
	return fmt.Errorf("%s: %w", op, err)
}
