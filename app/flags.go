package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
)

// deviceFlags are the flags every pipeline command shares: which backend,
// whether to pin staging memory, memory caps and the block/batch/chunk size.
type deviceFlags struct {
	backend   string
	pin       bool
	deviceMem string
	hostMem   string
	batch     string
}

// addDeviceFlags declares the shared flags; batchFlag is the pipeline's
// name for its block size ("batch-size", "chunk-size") and unit its unit.
func addDeviceFlags(fs *flag.FlagSet, batchFlag, unit string) *deviceFlags {
	d := &deviceFlags{}
	fs.StringVar(&d.backend, "backend", "auto", "compute backend: auto, cpu or cuda")
	fs.BoolVar(&d.pin, "pin-memory", false, "page-lock host staging buffers (CUDA only): faster uploads, but that RAM cannot be swapped out")
	fs.StringVar(&d.deviceMem, "device-memory", "", "device memory to plan for, e.g. 2GiB (default: the GPU's free memory; on the CPU backend the host budget covers the compute buffers)")
	fs.StringVar(&d.hostMem, "host-memory", "", plan.HostBudgetHelp)
	fs.StringVar(&d.batch, batchFlag, "auto", unit+" per block: a number, or auto to let the planner choose")
	return d
}

// batchSize returns the manual block size, or 0 for auto.
func (d *deviceFlags) batchSize(b pipeline.Batch) (int, error) {
	if d.batch == "" || strings.EqualFold(d.batch, "auto") {
		return 0, nil
	}
	n, err := strconv.Atoi(d.batch)
	if err != nil || n <= 0 {
		return 0, usagef("--%s %q: the batch size is a positive number of %s, or auto", b.Flag, d.batch, b.Unit)
	}
	return n, nil
}

// budget returns the memory budget from the flags, falling back to what
// the backend reports. On the CPU backend the device buffers are host RAM:
// the budget is shared, so they count once, against the host budget, and
// --device-memory (when given) only caps them on their own.
func (d *deviceFlags) budget(info gpu.DeviceInfo) (plan.Budget, error) {
	b := plan.Budget{Shared: info.Backend == "cpu"}
	var err error
	switch {
	case d.deviceMem != "":
		if b.Device, err = plan.ParseBytes(d.deviceMem); err != nil {
			return b, usagef("--device-memory: %v", err)
		}
		b.DeviceSource = "--device-memory " + d.deviceMem
	case b.Shared:
		b.DeviceSource = "host RAM (the CPU backend computes in host memory)"
	default:
		b.Device = info.FreeBytes
		b.DeviceSource = fmt.Sprintf("free memory of %s", info.Name)
	}
	if d.hostMem != "" {
		if b.Host, err = plan.ParseBytes(d.hostMem); err != nil {
			return b, usagef("--host-memory: %v", err)
		}
		b.HostSource = "--host-memory " + d.hostMem
	} else {
		b.Host, b.HostSource = plan.DefaultHostBudget(gpu.HostMemory())
	}
	// Pinned staging may use at most a quarter of physical RAM: page-locked
	// memory cannot be swapped out, so the rest of the machine needs room.
	b.PinnedCap = gpu.DefaultPinnedCap()
	return b, nil
}

// openBackend opens a --backend choice: gpu.Open, which tests replace
// with a device of their own (the self-check's fallback).
var openBackend = gpu.Open

// open opens the chosen backend and returns it with the note saying which
// backend was picked.
func (d *deviceFlags) open() (gpu.Backend, string, error) {
	c, err := gpu.ParseChoice(d.backend)
	if err != nil {
		return nil, "", usagef("%v", err)
	}
	return openBackend(c)
}
