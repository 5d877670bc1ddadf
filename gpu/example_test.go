package gpu_test

import (
	"context"
	"fmt"

	"github.com/voxlab/voxlab/gpu"
)

// A pipeline reads batches in a loader goroutine into a bounded pool of
// staging buffers and uploads each to the device while the next is read.
func ExampleLoad() {
	be := gpu.NewCPU()
	const batches, batchBytes = 4, 8
	dev, err := be.Alloc("block", batchBytes)
	if err != nil {
		panic(err)
	}
	defer be.Free(dev)
	// Two buffers: batch i+1 is read while batch i is uploaded. pin_memory
	// off here; with it on, a CUDA backend page-locks the pool, or falls
	// back with a warning.
	pool, err := gpu.NewStaging(be, 2, batchBytes, false, 0)
	if err != nil {
		panic(err)
	}
	defer pool.Close()
	read := func(i int, dst []byte) (int, error) {
		for j := range dst {
			dst[j] = byte(10*i + j)
		}
		return len(dst), nil
	}
	ctx := context.Background()
	loaded, loadErr := gpu.Load(ctx, pool, batches, read)
	out := make([]byte, batchBytes)
	for b := range loaded {
		wait, err := be.UploadAsync(dev, 0, b.Buf)
		if err == nil {
			err = wait()
		}
		pool.Put(b.Buf) // the upload is done: the loader may refill it
		if err != nil {
			panic(err)
		}
		// ... compute on dev ...
		be.Download(out, dev, 0)
		fmt.Println(b.Index, out[:3])
	}
	if err := loadErr(); err != nil {
		panic(err)
	}
	// Output:
	// 0 [0 1 2]
	// 1 [10 11 12]
	// 2 [20 21 22]
	// 3 [30 31 32]
}

// Bandwidth tells users whether pin_memory pays on their machine; on the
// CPU backend it measures memcpy.
func ExampleBandwidth() {
	r, err := gpu.Bandwidth(gpu.NewCPU(), 4<<20)
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Backend, r.Pageable > 0, r.Pinned, r.PinnedNote)
	// Output: cpu true 0 pinning does not apply to the cpu backend (no host-to-device copy)
}
