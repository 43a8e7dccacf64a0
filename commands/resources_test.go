package commands_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/commands/program"

	_ "github.com/grind-nlp/grind/commands/cecmd"
	_ "github.com/grind-nlp/grind/commands/plotcmd"
	_ "github.com/grind-nlp/grind/commands/reportcmd"
	_ "github.com/grind-nlp/grind/commands/stepcmd"
)

// inputOnly are the programs whose memory grows with their input alone
// (records read and written one at a time, or the corpus held): they
// take no --max-memory (Conventions, Memory).
var inputOnly = map[string]bool{
	"baseline": true, "conll2deps": true, "deps2conll": true, "filterlen": true, "plotcurve": true,
	"ptb2deps": true, "ptbstrip": true, "score": true, "score-tags": true, "split-corpus": true,
	"tag-classes": true, "tagged2sents": true, "tagmap": true,
}

// Every registered program that allocates in proportion to states, tags,
// classes or sentence length takes --max-memory, and reads it as every
// other does (a value that is no size is a usage error); every program
// with --workers caps it at 1024 (exit 2). A program added without them
// fails here.
func TestResourceFlagsEveryProgram(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.jsonl")
	if err := os.WriteFile(file, []byte(`{"tags":["A"]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// What each program needs before it reads its flags' values.
	required := map[string][]string{
		"decode": {"-m", file}, "select-model": {"--dev", file, file}, "induce": {"--train", file, "--dev", file},
		"dmv-sample": {"-m", file, "-n", "1"}, "tag": {"-m", file}, "train-classes": {"--method", "brown"},
		"report": {"-o", filepath.Join(dir, "page.html"), "--test", file, dir}, "estep": {"-m", file}, "train-sa": {"--delta0", "-0.1"},
		"ce-step": {"--state", filepath.Join(dir, "ce.state")},
	}
	run := func(name string, args ...string) (int, string) {
		var stderr bytes.Buffer
		argv := append(append([]string{name}, required[name]...), args...)
		code := program.Run(name, append(argv, "-o", filepath.Join(dir, "out")), strings.NewReader(""), &bytes.Buffer{}, &stderr)
		return code, stderr.String()
	}
	for _, name := range program.Names() {
		if name == "internal-panic" { // cli_test.go's
			continue
		}
		flags := map[string]bool{}
		for _, f := range program.App(name).Flags {
			flags[f.Names()[0]] = true
		}
		switch {
		case flags["max-memory"] && inputOnly[name]:
			t.Errorf("%s takes --max-memory: take it out of inputOnly", name)
		case !flags["max-memory"] && !inputOnly[name]:
			t.Errorf("%s has no --max-memory", name)
		case flags["max-memory"]:
			if code, msg := run(name, "--max-memory", "12X"); code != 2 || !strings.Contains(msg, `--max-memory must be a size such as 512M, 1G or a number of MiB (0: this machine's memory), not "12X"`) {
				t.Errorf("%s --max-memory 12X: exit %d, %q", name, code, msg)
			}
		}
		if flags["workers"] {
			if code, msg := run(name, "--workers", "1025"); code != 2 || !strings.Contains(msg, "--workers must be between 0 (every core) and 1024, not 1025") {
				t.Errorf("%s --workers 1025: exit %d, %q", name, code, msg)
			}
		}
	}
}
