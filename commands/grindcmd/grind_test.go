package grindcmd

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/commands/program"
)

// The listing names every program once, and the programs are the
// binaries of cmd/ (each main calling program.Main with its own name),
// and grind.
func TestSections(t *testing.T) {
	var listed []string
	for _, s := range Sections {
		listed = append(listed, s.Programs...)
	}
	slices.Sort(listed)
	if names := program.Names(); !slices.Equal(listed, names) {
		t.Errorf("the sections list %v, the registered programs are %v", listed, names)
	}
	dirs, err := filepath.Glob("../../cmd/*")
	if err != nil {
		t.Fatal(err)
	}
	var binaries []string
	for _, d := range dirs {
		name := filepath.Base(d)
		if name == "grind" {
			continue
		}
		binaries = append(binaries, name)
		main, err := os.ReadFile(filepath.Join(d, "main.go"))
		if err != nil || !bytes.Contains(main, []byte(`program.Main("`+name+`")`)) {
			t.Errorf("cmd/%s/main.go does not run program.Main(%q): %v", name, name, err)
		}
	}
	if !slices.Equal(binaries, listed) {
		t.Errorf("cmd/ holds %v, the programs are %v", binaries, listed)
	}
}

func grind(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errs bytes.Buffer
	code = Run(append([]string{"grind"}, args...), strings.NewReader(stdin), &out, &errs)
	return code, out.String(), errs.String()
}

// grind lists every program with its one line; "grind PROGRAM …" is
// PROGRAM, its exit code and streams; help PROGRAM is PROGRAM --help; a
// name that is no program's is a usage error with the nearest program.
func TestRun(t *testing.T) {
	for _, args := range [][]string{nil, {"--help"}, {"help"}} {
		code, out, _ := grind(t, "", args...)
		if code != 0 {
			t.Errorf("grind %v: exit %d", args, code)
		}
		for _, name := range program.Names() {
			line := regexp.MustCompile(`(?m)^   ` + regexp.QuoteMeta(name) + ` +` + regexp.QuoteMeta(program.App(name).Usage) + `$`)
			if !line.MatchString(out) {
				t.Errorf("grind %v: no line for %s in\n%s", args, name, out)
			}
		}
	}

	corpus := "{\"tags\":[\"A\",\"B\"]}\n{\"tags\":[\"A\",\"B\",\"C\",\"D\"]}\n"
	for _, args := range [][]string{{"filterlen", "3"}, {"filterlen", "--nope"}, {"train-em", "--tl", "0"}} {
		var wantOut, wantErr bytes.Buffer
		wantCode := program.Run(args[0], args, strings.NewReader(corpus), &wantOut, &wantErr)
		code, out, errs := grind(t, corpus, args...)
		if code != wantCode || out != wantOut.String() || errs != wantErr.String() {
			t.Errorf("grind %v: exit %d, %q, %q; %s alone: exit %d, %q, %q", args, code, out, errs, args[0], wantCode, wantOut.String(), wantErr.String())
		}
	}
	var help bytes.Buffer
	program.Run("train-hmm", []string{"train-hmm", "--help"}, nil, &help, &bytes.Buffer{})
	if _, out, _ := grind(t, "", "help", "train-hmm"); out != help.String() || !strings.Contains(out, "Contrastive estimation (--estimator ce):") {
		t.Errorf("grind help train-hmm is not train-hmm --help:\n%s", out)
	}
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"trian-em"}, `grind: no program named "trian-em" (did you mean train-em?)`},
		{[]string{"help", "socre"}, `grind: no program named "socre" (did you mean score?)`},
		{[]string{"frobnicate"}, `grind: no program named "frobnicate"` + "\n"},
	} {
		if code, _, errs := grind(t, "", tc.args...); code != program.ExitUsage || !strings.HasPrefix(errs, tc.err) {
			t.Errorf("grind %v: exit %d, %q; want %d and %q", tc.args, code, errs, program.ExitUsage, tc.err)
		}
	}
	if code, out, _ := grind(t, "", "--version"); code != 0 || !regexp.MustCompile(`^grind version \S+ \(commit [^)]+\) go1\.`).MatchString(out) {
		t.Errorf("grind --version: exit %d, %q", code, out)
	}
}
