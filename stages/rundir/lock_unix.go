//go:build unix

package rundir

import (
	"os"

	"golang.org/x/sys/unix"
)

var errWouldBlock error = unix.EWOULDBLOCK

func tryLock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err != unix.EINTR {
			return err
		}
	}
}
