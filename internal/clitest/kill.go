package clitest

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// childEnv carries a child's command line (JSON) from KillAt to the test
// the child runs.
const childEnv = "GRIND_CLITEST_CHILD"

// RunChild is the body of the test KillAt starts as a child process: it
// runs the command line KillAt handed over and exits with its code. Run
// any other way, it skips.
func RunChild(t *testing.T, run Runner) {
	spec := os.Getenv(childEnv)
	if spec == "" {
		t.Skip("only run as the child of clitest.KillAt")
	}
	var args []string
	if err := json.Unmarshal([]byte(spec), &args); err != nil {
		t.Fatal(err)
	}
	os.Exit(run(args[0], args, nil, os.Stdout, os.Stderr))
}

// KillAt runs the program args in a child process — the test binary
// running only the test named child, which calls RunChild — and kills it
// with SIGKILL as soon as ready says so, failing t if that has not
// happened within timeout. It reports whether the child was killed before
// it ended by itself.
func KillAt(t *testing.T, child string, args []string, ready func() bool, timeout time.Duration) bool {
	t.Helper()
	spec, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+child+"$")
	cmd.Env = append(os.Environ(), childEnv+"="+string(spec))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(timeout); !ready(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%v: never ready to be killed", args)
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	var exit *exec.ExitError
	return errors.As(cmd.Wait(), &exit) && !exit.Exited()
}
