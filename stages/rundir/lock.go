package rundir

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// LockFile is the file whose lock(flock(2)) a run holds on its run
// directory for as long as it runs. The kernel lets go of it when the
// process ends, however it ends (kill -9 included), so a lock is never
// stale; the file stays, with the pid of its last holder.
const LockFile = "run.lock"

// ErrInUse is the refusal of a run directory another run holds.
var ErrInUse = errors.New("in use by another run")

// Lock takes dir's lock, or refuses with ErrInUse (naming the holder's
// pid, unless the holder has not written it yet) when another run holds
// it. A refused run may hold the lock for a
// moment (Lock, then seeing it has nothing to do there): Lock tries again
// for a tenth of a second before it refuses.
func Lock(dir string) (*os.File, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, err
	}
	for try := 0; ; try++ {
		err = tryLock(f)
		if err == nil || !errors.Is(err, errWouldBlock) || try == 20 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if errors.Is(err, errWouldBlock) {
		holder, _ := os.ReadFile(path)
		f.Close()
		if pid := string(bytes.TrimSpace(holder)); pid != "" {
			return nil, fmt.Errorf("%w (pid %s)", ErrInUse, pid)
		}
		return nil, ErrInUse
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}
