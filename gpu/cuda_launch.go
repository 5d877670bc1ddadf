//go:build cuda

package gpu

import (
	"fmt"
	"unsafe"
)

// The launch API the pipelines' CUDA code uses: a pipeline embeds its own
// PTX (compiled from its .cu file by scripts/build-ptx.sh), loads it once
// per backend with LoadModule and launches its kernels with Launch, so
// that adding or changing a kernel never changes this package.

// LoadModule JIT-compiles the PTX module src under name, once per
// backend: later calls with the same name do nothing. Kernel names must
// be unique across modules (prefix them with the pipeline's name).
func (c *CUDABackend) LoadModule(name, src string) error {
	c.mu.Lock()
	done := c.loaded[name]
	c.mu.Unlock()
	if done {
		return nil
	}
	c.load.Lock()
	defer c.load.Unlock()
	c.mu.Lock()
	done = c.loaded[name]
	c.mu.Unlock()
	if done {
		return nil
	}
	return c.do(func() error { return c.loadModule(name, src) })
}

// Launch runs kernel name of a loaded module on the compute stream,
// with grid and block dimensions and sharedBytes of dynamic shared
// memory. args are pointers to the argument values, as cuLaunchKernel
// wants them: unsafe.Pointer(&x), with device addresses from DevPtr.
// Their number and sizes come from the kernel's PTX declaration; an
// argument that is the address of (or into) a live buffer makes the
// kernel wait for uploads into that buffer, and later uploads into it
// wait for the kernel. The launch is asynchronous: an error while the
// kernel runs is reported by the next Sync, Download or Upload.
func (c *CUDABackend) Launch(name string, grid, block [3]int, sharedBytes int, args ...unsafe.Pointer) error {
	return c.launch(name, grid, block, sharedBytes, args...)
}

// DevPtr returns the device address of byte off of a CUDA buffer (0 for
// nil), as a kernel argument: pass unsafe.Pointer(&p) to Launch.
func DevPtr(b *Buffer, off int64) uintptr {
	if b == nil {
		return 0
	}
	return b.dev + uintptr(off)
}

// CheckBuffer reports an error naming what when b is nil, is not a live
// buffer of this backend or holds fewer than n bytes.
func (c *CUDABackend) CheckBuffer(what string, b *Buffer, n int64) error {
	if b == nil {
		return fmt.Errorf("cuda: %s: no buffer", what)
	}
	_, err := c.state(what, b, 0, int(n))
	return err
}
