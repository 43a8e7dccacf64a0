//go:build !linux

package memory

// ramAndSwap is unknown off Linux (Machine: 0, no --max-memory 0).
func ramAndSwap() int64 { return 0 }
