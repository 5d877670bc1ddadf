package main

import (
	"os"
	"runtime"
	"sync"
	"testing"

	"github.com/voxlab/voxlab/internal/mallocinfo"
)

// TestOneMallocArena: C allocations from many OS threads at once share
// one glibc arena (the constructor in malloc.go), so the C heap's freed
// buffers are not kept once per thread.
func TestOneMallocArena(t *testing.T) {
	if os.Getenv("MALLOC_ARENA_MAX") != "" {
		t.Skip("MALLOC_ARENA_MAX is set: the user's value wins")
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 8 {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			<-start
			for range 200 {
				mallocinfo.Churn()
			}
		})
	}
	close(start)
	wg.Wait()
	if n := mallocinfo.Arenas(); n != 1 {
		t.Errorf("%d malloc arenas after C allocations on 8 threads, want 1", n)
	}
}
