//go:build unix

package train

import "syscall"

// cpuSeconds is the CPU time (user and system) the process has used, all
// its threads together, or −1 where it cannot be read.
func cpuSeconds() float64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return -1
	}
	return float64(u.Utime.Nano()+u.Stime.Nano()) / 1e9
}
