//go:build unix

package dmv_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, user and system, every
// thread: what a benchmark costs whatever else the machine runs.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
