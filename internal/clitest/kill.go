package clitest

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
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
		t.Skip("only run as a child process (clitest.Start)")
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
	cmd := Start(t, child, args, nil, nil)
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

// Command is the child process Start starts, not started yet (for a
// test that sets its working folder).
func Command(t *testing.T, child string, args []string) *exec.Cmd {
	t.Helper()
	spec, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+child+"$")
	cmd.Env = append(os.Environ(), childEnv+"="+string(spec))
	return cmd
}

// Start starts the program args in a child process, as KillAt does,
// reading stdin and writing its stderr to stderr (nil: none, discarded).
func Start(t *testing.T, child string, args []string, stdin io.Reader, stderr io.Writer) *exec.Cmd {
	t.Helper()
	cmd := Command(t, child, args)
	cmd.Stdin, cmd.Stderr = stdin, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// interrupt runs args in a child process (the test named child, which
// runs the program as its main function does, with the handler of SIGINT
// and SIGTERM), writes input to its stdin and leaves the stdin open; once
// the folder out holds made files (the outputs the program makes before
// it reads), it sends sig. It returns the child's exit code and what is
// left in out.
func interrupt(t *testing.T, child string, args []string, input []byte, out string, made int, sig syscall.Signal) (code int, left []string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cmd := Start(t, child, args, r, nil)
	r.Close()
	w.Write(input)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if entries, _ := os.ReadDir(out); len(entries) >= made {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%v: never made its %d outputs", args, made)
		}
	}
	cmd.Process.Signal(sig)
	var exit *exec.ExitError
	if err := cmd.Wait(); errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	return code, left
}

// MainRunner runs a program as its main function does (program.Main's
// handler of SIGINT and SIGTERM asked for, installed with its first
// output file): what a child of Signals
// passes RunChild.
func MainRunner(main func(name string) int) Runner {
	return func(name string, args []string, _ io.Reader, _, _ io.Writer) int {
		os.Args = args
		return main(name)
	}
}

// Signals interrupts the program args with SIGINT, and again with
// SIGTERM, once it has made made outputs in the folder "OUT" stands for in
// args (interrupt, input on its stdin), and fails t unless it exits with
// the shell's codes for them (130, 143) and leaves none of its outputs,
// not even a temporary file.
func Signals(t *testing.T, child string, input []byte, made int, args ...string) {
	t.Helper()
	for sig, want := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143} {
		out := t.TempDir()
		args := slices.Clone(args)
		for i, a := range args {
			args[i] = strings.Replace(a, "OUT", out, 1)
		}
		code, left := interrupt(t, child, args, input, out, made, sig)
		if code != want {
			t.Errorf("%v: %v: exit code %d, want %d", args, sig, code, want)
		}
		if len(left) > 0 {
			t.Errorf("%v: %v left %v", args, sig, left)
		}
	}
}
