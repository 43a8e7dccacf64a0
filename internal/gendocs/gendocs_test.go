package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// completionCases are command lines and the words each shell must offer
// at their end (sorted, a folder without its slash), in a folder holding
// a.jsonl and sub/.
var completionCases = []struct {
	line string
	want []string
}{
	{"train-em --to", []string{"--tol"}},
	{"grind train-h", []string{"train-hmm"}},
	{"grind train-hmm --estim", []string{"--estimator"}},
	{"grind help sc", []string{"score", "score-tags"}},
	{"report --ru", []string{"--run"}},
	{"train-em --run-dir ", []string{"sub"}},     // a folder
	{"train-em -m ", []string{"a.jsonl", "sub"}}, // a file
	{"train-em --max-iter ", nil},                // a number: nothing
	{"grind filterlen --qu", []string{"--quiet"}},
}

// generated writes the docs into a temporary folder, and makes the folder
// the completions run in.
func generated(t *testing.T) (share, work string) {
	t.Helper()
	share, work = t.TempDir(), t.TempDir()
	if err := write(share, programs()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "a.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(work, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	return share, work
}

// words is a shell's output, one completion a line, as completionCases
// write them: descriptions (after a tab) and folders' slashes dropped,
// repeats dropped, sorted.
func words(out string) []string {
	var ws []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		w, _, _ := strings.Cut(l, "\t")
		if w = strings.TrimSuffix(strings.TrimSpace(w), "/"); w != "" && !slices.Contains(ws, w) {
			ws = append(ws, w)
		}
	}
	slices.Sort(ws)
	return ws
}

func shell(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("no %s here (apt-get install %s)", name, name)
	}
	return path
}

// The bash completion, sourced, completes every program (grind PROGRAM
// too): every flag after a dash, files and folders after the flags that
// take them, nothing after those that take a number.
func TestBashCompletion(t *testing.T) {
	bash := shell(t, "bash")
	share, work := generated(t)
	script := `source "$1"/bash-completion/completions/grind
complete -p grind train-em estep report >/dev/null || exit 1
complete() {
    local line=$1
    COMP_WORDS=($line)
    [[ $line == *' ' ]] && COMP_WORDS+=('')
    COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
    _grind
    printf '%s\n' "${COMPREPLY[@]}"
}
shift
for line; do complete "$line"; printf '%s\n' '<<end>>'; done
`
	var lines []string
	for _, c := range completionCases {
		lines = append(lines, c.line)
	}
	docs := programs()
	for _, d := range docs {
		lines = append(lines, d.Name+" -")
	}
	cmd := exec.Command(bash, append([]string{"-c", script, "bash", share}, lines...)...)
	cmd.Dir = work
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	results := strings.Split(string(out), "<<end>>\n")
	for i, c := range completionCases {
		if got := words(results[i]); !slices.Equal(got, c.want) {
			t.Errorf("bash: %q offers %q, want %q", c.line, got, c.want)
		}
	}
	for i, d := range docs {
		var want []string
		for _, g := range d.Groups {
			for _, f := range g.Flags {
				want = append(want, f.forms()...)
			}
		}
		slices.Sort(want)
		if got := words(results[len(completionCases)+i]); !slices.Equal(got, want) {
			t.Errorf("bash: %s - offers %q, its flags are %q", d.Name, got, want)
		}
	}
}

// The zsh completion, loaded by compinit from its folder, offers the same
// as bash's, Tab pressed in an interactive zsh (testdata/complete.zsh).
func TestZshCompletion(t *testing.T) {
	zsh := shell(t, "zsh")
	share, work := generated(t)
	script, err := os.ReadFile("testdata/complete.zsh") // read here, so that go test's cache knows it
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range completionCases {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a marker never seen would block it
		defer cancel()
		cmd := exec.CommandContext(ctx, zsh, "-c", string(script), "complete.zsh", filepath.Join(share, "zsh/site-functions"), c.line)
		cmd.Dir = work
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("zsh: %q: %v", c.line, err)
		}
		if got := words(string(out)); !slices.Equal(got, c.want) {
			t.Errorf("zsh: %q offers %q, want %q", c.line, got, c.want)
		}
	}
}

// The fish completions, found on fish_complete_path, offer the same as
// bash's (fish loads a command's completions when the command exists:
// stubs stand for the programs).
func TestFishCompletion(t *testing.T) {
	fish := shell(t, "fish")
	share, work := generated(t)
	stubs := t.TempDir()
	for _, name := range append(names(programs()), "grind") {
		if err := os.WriteFile(filepath.Join(stubs, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range completionCases {
		cmd := exec.Command(fish, "--no-config", "-c", `set -p fish_complete_path $argv[1]; complete -C $argv[2]`,
			filepath.Join(share, "fish/vendor_completions.d"), c.line)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "PATH="+stubs+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("fish: %q: %v", c.line, err)
		}
		if got := words(string(out)); !slices.Equal(got, c.want) {
			t.Errorf("fish: %q offers %q, want %q", c.line, got, c.want)
		}
	}
}

// Every man page is roff that groff reads without a warning, and says
// every flag of its program, with dashes that copy as typed.
func TestManPages(t *testing.T) {
	groff := shell(t, "groff")
	share, _ := generated(t)
	for _, d := range append(programs(), doc{Name: "grind"}) {
		page := filepath.Join(share, "man/man1", d.Name+".1")
		var out, errs bytes.Buffer
		cmd := exec.Command(groff, "-k", "-man", "-Tutf8", "-ww", page)
		cmd.Stdout, cmd.Stderr = &out, &errs
		cmd.Env = append(os.Environ(), "GROFF_NO_SGR=1")
		if err := cmd.Run(); err != nil || errs.Len() > 0 {
			t.Errorf("%s: groff: %v %s", page, err, errs.String())
			continue
		}
		text := regexpBackspaces.ReplaceAllString(out.String(), "")
		for _, g := range d.Groups {
			for _, f := range g.Flags {
				if !strings.Contains(text, dashed(f.Long)) {
					t.Errorf("%s: no %s", page, dashed(f.Long))
				}
			}
		}
		if d.Name == "grind" {
			for _, n := range names(programs()) {
				if !strings.Contains(text, n+"(1)") {
					t.Errorf("%s: no %s(1)", page, n)
				}
			}
		}
	}
}

// regexpBackspaces are groff's overstrikes (bold, underline) in text
// for a terminal.
var regexpBackspaces = regexp.MustCompile(".\x08")
