//go:build unix

package rundir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run directory's lock is held by one open file at a time (two opens of
// run.lock in one process are refused as two processes are), names its
// holder's pid, and is free again once the holder closes it.
func TestLock(t *testing.T) {
	dir := t.TempDir()
	held, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lock(dir)
	if want := fmt.Sprintf("(pid %d)", os.Getpid()); !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), want) {
		t.Fatalf("a second Lock: %v, want %v %s", err, ErrInUse, want)
	}
	held.Close()
	again, err := Lock(dir)
	if err != nil {
		t.Fatalf("Lock after the holder let go: %v", err)
	}
	again.Close()
}

// A run has begun once it has a checkpoint, a final model or a line of
// its log.
func TestBegun(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("run.json", "{}\n")
	write(Log, "")
	if Begun(dir) {
		t.Error("run.json and an empty log: begun")
	}
	write(Log, `{"iter":1}`+"\n")
	if !Begun(dir) {
		t.Error("a log line: not begun")
	}
	os.Remove(filepath.Join(dir, Log))
	for _, name := range []string{Checkpoint, Model} {
		write(name, "{}\n")
		if !Begun(dir) {
			t.Errorf("%s: not begun", name)
		}
		os.Remove(filepath.Join(dir, name))
	}
}
