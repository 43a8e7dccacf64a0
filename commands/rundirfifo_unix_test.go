//go:build unix

package commands

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/grind-nlp/grind/commands/program"
)

// --run-dir and --resume refuse a named pipe as an input before they open
// it (hashing it would wait for a writer, and a resume could not read it
// again), and make nothing.
func TestRunDirRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "corpus.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	for _, flag := range []string{"--run-dir", "--resume"} {
		rd := filepath.Join(dir, "run")
		done := make(chan string)
		go func() {
			var errs bytes.Buffer
			code := program.Run("train-hmm", []string{"train-hmm", flag, rd, fifo}, nil, io.Discard, &errs)
			done <- fmt.Sprintf("exit %d: %s", code, errs.String())
		}()
		select {
		case got := <-done:
			if want := "exit 2: train-hmm: " + flag + " needs input files it can read again on --resume, not " + fifo + " (a pipe or FIFO)"; !strings.HasPrefix(got, want) {
				t.Errorf("%s on a FIFO: %q, want %q", flag, got, want)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s on a FIFO: still waiting after 30 s (it opened the FIFO)", flag)
		}
		if _, err := os.Stat(rd); err == nil {
			t.Errorf("%s on a FIFO made %s", flag, rd)
		}
	}
}
