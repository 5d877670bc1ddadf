package distance

import "github.com/voxlab/voxlab/gpu"

// PeakRSS returns the process's peak resident memory in bytes (VmHWM of
// /proc/self/status), or 0 where that is not available.
func PeakRSS() int64 {
	_, peak := gpu.ProcessMemory()
	return peak
}
