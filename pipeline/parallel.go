package pipeline

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Workers is the number of goroutines to use for n > 0, or every core for
// n ≤ 0.
func Workers(n int) int {
	if n <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}

// ForEachChunk calls fn(worker, chunk) for every chunk in 0..chunks-1,
// spread over workers goroutines that take chunks as they free up. Each
// worker number is used by one goroutine at a time, so fn may keep
// per-worker state. The split into chunks is the caller's and should not
// depend on the number of workers, so results combined in chunk order are
// the same whatever it is.
func ForEachChunk(chunks, workers int, fn func(worker, chunk int)) {
	workers = min(Workers(workers), chunks)
	if workers <= 1 {
		for c := 0; c < chunks; c++ {
			fn(0, c)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Bool
	var panicked any
	var once sync.Once
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			// A panic in a worker would end the process with a stack dump
			// no caller can stop: it is carried to the caller's goroutine.
			defer func() {
				if r := recover(); r != nil {
					once.Do(func() { panicked = r })
					failed.Store(true)
				}
			}()
			for !failed.Load() {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				fn(w, c)
			}
		}(w)
	}
	wg.Wait()
	if failed.Load() {
		panic(panicked)
	}
}
