// Package gpu gives the pipelines one interface to compute on, whatever the
// machine has: a CPU backend, always built, pure Go and parallel over all
// cores; and a CUDA backend, built with -tags cuda on gorgonia.org/cu, whose
// kernels are CUDA C sources in kernels/ compiled to PTX with nvcc (go
// generate) and embedded, so users need only the NVIDIA driver.
//
// Every buffer a pipeline computes on is allocated through Backend.Alloc,
// which tracks current and peak bytes per backend. On the CPU backend these
// "device" buffers are ordinary host memory, so the tracking allocator lets
// tests check the planner's predicted peak on machines without a GPU, and
// SetLimit simulates a device of a given size.
//
// Host staging buffers come from a bounded pool (NewStaging) filled by a
// loader goroutine (Load). With pin_memory they are page-locked on CUDA,
// within a cap (DefaultPinnedCap: a quarter of RAM); a pool that cannot be
// pinned is pageable instead, with a warning saying why. Bandwidth
// measures whether pinning pays on the machine at hand.
//
// The CUDA build (cuda*.go) links gorgonia.org/cu, whose package
// initialiser exits the process when the driver finds no device; a C
// constructor (cuda_fallback.go) runs first and hands over to the CPU
// build of voxlab, so voxlab-cuda starts everywhere.
//
// The package knows no pipeline. Each pipeline (processing/dezing,
// processing/detect, processing/distance, processing/classify,
// processing/reconstruct's back-projection; processing/classify/train's
// products on BLAS) declares the operations it
// needs as its own interface and implements them for each backend: on the
// CPU as functions over HostBytes slices, using Begin and the parallel
// helpers here; on CUDA with its own PTX module, loaded with LoadModule
// and launched with Launch. So adding or changing a kernel never changes
// this package.
//
// A result of a backend other than the CPU is not trusted blindly: each
// pipeline registers a self-check (RegisterSelfCheck) that runs its ops
// on a small fixed input there and on the CPU and compares them
// (CompareBits, CompareFloats, CompareRelative, with CheckBuffers and
// Guard for the buffers and panics); Verify runs it on the first use of
// the pipeline on a kind of backend in a process and remembers the
// outcome, and the generic path runs a pipeline whose check failed on the
// CPU (processing/pipeline's Device.Checked).
//
// A job binds its context to the CPU backend (Bind): one kernel call on a
// block of minutes then stops within a row of the cancel, and reports the
// rows done so the job's progress moves inside the block. The backend
// knows nothing of the job beyond a context and a callback.
//
// # The name
//
// The package is named for the device the pipelines plan for, and holds
// the CPU backend too: both implement Backend, a device with its own
// buffers, staging and transfers, and on the CPU backend the "device"
// buffers are host memory, counted against the host budget. The name
// stays (docs/ARCHITECTURE.md).
package gpu
