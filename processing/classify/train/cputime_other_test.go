//go:build !unix

package train

// cpuSeconds is −1: the CPU time is not read on this system.
func cpuSeconds() float64 { return -1 }
