package commands

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/grind-nlp/grind/internal/clitest"
)

// One run at a time in a run directory: two runs started at once on a
// new directory, then two resumes started at once on it (the run killed
// with SIGKILL, so its lock must not outlive it), twenty times, the
// trainers of every family in turn: every time exactly one of the two is
// refused, at once, with exit 1 and one line, while the other runs; and a
// run started while a resume holds the directory is refused the same way.
// The children are processes of their own, as two users' runs are.
func TestRunDirLock(t *testing.T) {
	dir := t.TempDir()
	tags := sampledCorpus(t, dir, 200)
	treebank, _ := filepath.Glob("../examples/treebank/*.mrg")
	words := writeTemp(t, dir, "words.jsonl", run(t, nil, append([]string{"ptb2deps", "--keep-punct"}, treebank...)...))
	// Runs that go on for minutes, whatever the machine (thousands of
	// annealing stages or sweeps, each an iteration at least): each is
	// killed once it has shown that it runs.
	long := []string{"--beta0", "1e-4", "--gamma", "1.001"}
	trainers := []struct {
		args   []string
		corpus string
	}{
		{append([]string{"train-da", "--tol", "0"}, long...), tags},
		{[]string{"train-sa", "--delta0", "-1", "--delta-step", "0.000125", "--delta-final", "0"}, tags},
		{append([]string{"train-ccm", "--model", "ccm2", "--estimator", "da"}, long...), tags},
		{append([]string{"train-hmm", "--trigram", "--states", "4", "--estimator", "da"}, long...), words},
		{[]string{"train-hmm", "--states", "4", "--estimator", "gibbs", "--max-iter", "1000000"}, words},
	}
	inUse := regexp.MustCompile(`^train-[a-z]+: --(run-dir|resume) \S+: in use by another run( \(pid \d+\))?\n$`)
	for trial := range 20 {
		tr := trainers[trial%len(trainers)]
		rd := filepath.Join(dir, fmt.Sprintf("run%02d", trial))
		args := func(flag string) []string {
			return append(append([]string{}, tr.args...), "-q", "--workers", "1", flag, rd, tr.corpus)
		}
		// The first log line: the winner has begun, and a kill leaves a
		// directory to resume.
		winner := oneRefused(t, args("--run-dir"), inUse)
		waitFor(t, func() bool { return logLines(rd) >= 1 })
		winner.kill()
		lines := logLines(rd)
		winner = oneRefused(t, args("--resume"), inUse)
		waitFor(t, func() bool { return logLines(rd) > lines }) // it resumed
		var stderr bytes.Buffer
		late := clitest.Start(t, "TestResumeChild", args("--run-dir"), nil, &stderr)
		if code := exitCode(late.Wait()); code != 1 || !inUse.Match(stderr.Bytes()) {
			t.Errorf("trial %d: a run while a resume holds %s: exit %d, %q; want exit 1, in use", trial, rd, code, stderr.String())
		}
		winner.kill()
	}
}

// child is a trainer running in a process of its own.
type child struct {
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	done   chan int // its exit code, once it has ended
}

func (c *child) kill() {
	c.cmd.Process.Kill()
	<-c.done
}

func startChild(t *testing.T, args []string) *child {
	c := &child{stderr: new(bytes.Buffer), done: make(chan int, 1)}
	c.cmd = clitest.Start(t, "TestResumeChild", args, nil, c.stderr)
	go func() { c.done <- exitCode(c.cmd.Wait()) }()
	return c
}

// oneRefused starts args twice at once and checks that one of the two is
// refused with a message matching refusal while the other goes on; it
// returns the one that goes on.
func oneRefused(t *testing.T, args []string, refusal *regexp.Regexp) *child {
	t.Helper()
	a, b := startChild(t, args), startChild(t, args)
	var refused, other *child
	var code int
	select {
	case code = <-a.done:
		refused, other = a, b
	case code = <-b.done:
		refused, other = b, a
	case <-time.After(60 * time.Second):
		a.kill()
		b.kill()
		t.Fatalf("%v twice: neither was refused", args)
	}
	select {
	case c := <-other.done:
		other.done <- c
		t.Errorf("%v twice: both ended (exit %d, %q; exit %d, %q)", args, code, refused.stderr, c, other.stderr)
	default:
	}
	if code != 1 || !refusal.Match(refused.stderr.Bytes()) {
		t.Errorf("%v: the second of two: exit %d, %q; want exit 1 and one line matching %s", args, code, refused.stderr, refusal)
	}
	return other
}

func waitFor(t *testing.T, ready func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); !ready(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}

func exitCode(err error) int {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
