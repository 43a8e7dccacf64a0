package program

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func init() {
	Register("files-test", func() *cli.App {
		return &cli.App{
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "model", TakesFile: true},
				&cli.StringFlag{Name: "log"},
				OutputFlag(),
			},
			Action: func(c *cli.Context) error {
				return WriteOutput(c, Source(c), func(w io.Writer) error { return nil })
			},
		}
	})
}

// What the check of a run's files catches that the CLI cases cannot set
// up: a hard link, standard input redirected from a file, a folder named
// through a link; and what it lets be: the devices every output may name.
func TestCheckFiles(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "c.jsonl")
	os.WriteFile(in, []byte("{}\n"), 0o644)
	hard := filepath.Join(dir, "hard.jsonl")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	os.Symlink(dir, filepath.Join(dir, "here"))
	for _, tc := range []struct {
		args  []string
		stdin bool   // stdin is the file in
		err   string // "" when the run may go ahead
	}{
		{[]string{in, "-o", hard}, false, "-o " + hard + " is an input of this run (the file " + in + ")"},
		{[]string{"--model", hard, "-", "-o", in}, false, "-o " + in + " is an input of this run (the file " + hard + ")"},
		{[]string{"-o", in}, true, "-o " + in + " is this run's standard input"},
		{[]string{"-", "-o", filepath.Join(dir, "here", "c.jsonl")}, true, "is this run's standard input"},
		{[]string{in, "--log", filepath.Join(dir, "here", "new.log"), "-o", filepath.Join(dir, "new.log")}, false, "--log and -o both name"},
		{[]string{in, "--log", "/dev/null", "-o", "/dev/null"}, false, ""},
		{[]string{"/dev/null", "-o", "/dev/null"}, false, ""},
		{[]string{in, "--log", filepath.Join(dir, "l.log"), "-o", filepath.Join(dir, "o.jsonl")}, false, ""},
	} {
		var stdin io.Reader = strings.NewReader("")
		if tc.stdin {
			f, err := os.Open(in)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			stdin = f
		}
		var stderr bytes.Buffer
		code := Run("files-test", append([]string{"files-test"}, tc.args...), stdin, io.Discard, &stderr)
		switch {
		case tc.err == "" && code != ExitOK:
			t.Errorf("%v: exit %d, %s", tc.args, code, stderr.String())
		case tc.err != "" && (code != ExitUsage || !strings.Contains(stderr.String(), tc.err)):
			t.Errorf("%v: exit %d, %q; want exit %d and %q", tc.args, code, stderr.String(), ExitUsage, tc.err)
		}
	}
	if b, _ := os.ReadFile(in); string(b) != "{}\n" {
		t.Errorf("the input was overwritten: %q", b)
	}
}
