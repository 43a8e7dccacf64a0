package testenv

import (
	"math"
	"runtime"
	"syscall"
)

// Measure is what fn allocates in all (runtime.MemStats' TotalAlloc,
// garbage included) and what it holds when it returns (its result kept:
// the heap after a collection), two bounds of what it holds at its peak,
// for tests that hold a memory estimate against them.
func Measure(fn func() any) (allocated, held int64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	keep := fn()
	runtime.ReadMemStats(&after)
	allocated = int64(after.TotalAlloc - before.TotalAlloc)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(keep)
	return allocated, int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// CPUSeconds is the process's user and system time so far, every thread
// counted: on a loaded machine a benchmark's CPU time per operation is a
// steadier figure than its wall time (bench/floor reports both).
func CPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
