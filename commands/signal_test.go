package commands

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/grind-nlp/grind/commands/program"
)

// TestSignalChild is the program TestSignalLeavesNoTemporaryFile runs in
// a process of its own: filterlen writing to -o while its stdin stays open.
func TestSignalChild(t *testing.T) {
	out := os.Getenv("GRIND_SIGNAL_CHILD")
	if out == "" {
		t.Skip("only run by TestSignalLeavesNoTemporaryFile")
	}
	os.Args = []string{"filterlen", "10", "-o", out}
	os.Exit(program.Main("filterlen"))
}

// SIGINT and SIGTERM in the middle of a run leave no temporary file and
// exit with the shell's codes for them.
func TestSignalLeavesNoTemporaryFile(t *testing.T) {
	for sig, want := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143} {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestSignalChild$")
		cmd.Env = append(os.Environ(), "GRIND_SIGNAL_CHILD="+filepath.Join(dir, "out.jsonl"))
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stdin.Write([]byte(`{"tags":["A"]}` + "\n"))
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatal("the child never opened its output")
			}
		}
		cmd.Process.Signal(sig)
		err = cmd.Wait()
		stdin.Close()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != want {
			t.Errorf("%v: %v, want exit code %d", sig, err, want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%v left %s", sig, entries[0].Name())
		}
	}
}
