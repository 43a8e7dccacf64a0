package memory

import "syscall"

// ramAndSwap is the machine's RAM and swap in bytes, /proc/meminfo's
// MemTotal and SwapTotal, as sysinfo(2) gives them: one system call,
// where reading /proc/meminfo has the kernel write out fifty figures
// and the program parse them, at the start of every run (--max-memory's
// check).
func ramAndSwap() int64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0
	}
	unit := int64(max(si.Unit, 1))
	return Add(Mul(int64(si.Totalram), unit), Mul(int64(si.Totalswap), unit))
}
