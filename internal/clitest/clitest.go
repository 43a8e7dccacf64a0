// Package clitest runs table-driven command-line cases: one txtar archive
// per case, running a whole program in memory with injected streams.
package clitest

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/internal/vec8"
	"github.com/klauspost/compress/zstd"
	"golang.org/x/tools/txtar"
)

// onLanes says whether this binary's E-steps run on vector lanes, which
// a case's -lanes sections are for.
var onLanes = vec8.Native() != ""

// Runner runs the named program with args on the given streams and
// returns its exit code (program.Run).
type Runner func(name string, args []string, stdin io.Reader, stdout, stderr io.Writer) int

// Cases runs every case matching pattern: a txtar archive whose
// comment says what the case checks and whose files are
//
//	args         the command line, split on spaces; $DIR is the case's folder
//	stdin        standard input (optional)
//	stdout       expected standard output, exactly (optional)
//	stdout-re    a regexp standard output must match (optional)
//	stderr       a regexp standard error must match (optional; empty
//	             stderr is required when absent and the exit code is 0)
//	exit         expected exit code (default 0)
//	in/NAME      an input file written to $DIR/NAME (NAME may hold folders)
//	gz/NAME      an input file written gzip-compressed to $DIR/NAME
//	zst/NAME     the same, zstd-compressed
//	cut-gz/NAME  gzip-compressed, then cut off in the middle
//	link/NAME    a symbolic link $DIR/NAME to the path this section holds
//	             (one line; relative to the link's folder unless absolute)
//	out/NAME     a file that must exist in $DIR after the run, with this content
//	out-re/NAME  a file that must exist in $DIR after the run, matching this
//	             regexp (for output that is not text, such as images)
//	gone/NAME    a file (an input) that must not exist after the run
//	stdout-lanes, stderr-lanes
//	             stdout's and stderr's sections where the E-steps run on
//	             vector lanes (the SIMD build on a machine with AVX-512):
//	             their charts are larger, so are the memory estimates an
//	             error quotes, and their sums end in other last digits
//
// After a failing run $DIR must hold only the input files: nothing
// half-written is left behind.
func Cases(t *testing.T, pattern string, run Runner) {
	cases, err := filepath.Glob(pattern)
	if err != nil || len(cases) == 0 {
		t.Fatalf("no CLI cases: %v", err)
	}
	for _, file := range cases {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			t.Parallel()
			runCase(t, file, run)
		})
	}
}

func runCase(t *testing.T, file string, run Runner) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sections := map[string]string{}
	inputs := map[string]bool{}
	expand := func(s string) string { return strings.ReplaceAll(s, "$DIR", dir) }
	for _, f := range ar.Files {
		kind, name, _ := strings.Cut(f.Name, "/")
		data := f.Data
		switch kind {
		case "link":
			path := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(expand(strings.TrimSpace(string(data))), path); err != nil {
				t.Fatal(err)
			}
			top, _, _ := strings.Cut(name, "/")
			inputs[top] = true
			continue
		case "in":
		case "gz", "cut-gz":
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write(data)
			zw.Close()
			data = b.Bytes()
			if kind == "cut-gz" {
				data = data[:len(data)/2]
			}
		case "zst":
			zw, _ := zstd.NewWriter(nil)
			data = zw.EncodeAll(data, nil)
		default:
			sections[f.Name] = string(f.Data)
			continue
		}
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		top, _, _ := strings.Cut(name, "/")
		inputs[top] = true
	}
	for _, name := range []string{"stdout", "stderr"} {
		if lane, ok := sections[name+"-lanes"]; ok {
			if onLanes {
				sections[name] = lane
			}
			delete(sections, name+"-lanes")
		}
	}
	expandRe := func(s string) string {
		return strings.ReplaceAll(strings.TrimSpace(s), "$DIR", regexp.QuoteMeta(dir))
	}
	args := strings.Fields(expand(sections["args"]))
	if len(args) == 0 {
		t.Fatalf("%s: no args", file)
	}
	wantExit := 0
	if e, ok := sections["exit"]; ok {
		wantExit, err = strconv.Atoi(strings.TrimSpace(e))
		if err != nil {
			t.Fatalf("%s: bad exit section: %v", file, err)
		}
	}
	var stdout, stderr bytes.Buffer
	code := run(args[0], args, strings.NewReader(sections["stdin"]), &stdout, &stderr)

	if code != wantExit {
		t.Errorf("exit code %d, want %d\nstderr: %s", code, wantExit, stderr.String())
	}
	if want, ok := sections["stdout"]; ok && stdout.String() != expand(want) {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout.String(), expand(want))
	}
	if re, ok := sections["stdout-re"]; ok {
		matchRegexp(t, "stdout", expandRe(re), stdout.String())
	}
	if re, ok := sections["stderr"]; ok {
		matchRegexp(t, "stderr", expandRe(re), stderr.String())
	} else if wantExit == 0 && stderr.Len() > 0 {
		t.Errorf("unexpected stderr: %s", stderr.String())
	}
	for name, want := range sections {
		if out, ok := strings.CutPrefix(name, "out/"); ok {
			got, err := os.ReadFile(filepath.Join(dir, out))
			if err != nil {
				t.Errorf("output file: %v", err)
			} else if string(got) != expand(want) {
				t.Errorf("%s:\n%s\nwant:\n%s", out, got, expand(want))
			}
			inputs[out] = true
		}
		if gone, ok := strings.CutPrefix(name, "gone/"); ok {
			if _, err := os.Lstat(filepath.Join(dir, gone)); err == nil {
				t.Errorf("%s is still there", gone)
			}
		}
		if out, ok := strings.CutPrefix(name, "out-re/"); ok {
			got, err := os.ReadFile(filepath.Join(dir, out))
			if err != nil {
				t.Errorf("output file: %v", err)
			} else {
				matchRegexp(t, out, expandRe(want), string(got))
			}
			inputs[out] = true
		}
	}
	entries, _ := os.ReadDir(dir)
	var extra []string
	for _, e := range entries {
		if !inputs[e.Name()] {
			extra = append(extra, e.Name())
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("files left behind: %v", extra)
	}
}

func matchRegexp(t *testing.T, what, re, got string) {
	t.Helper()
	ok, err := regexp.MatchString(re, got)
	if err != nil {
		t.Fatalf("bad %s regexp %q: %v", what, re, err)
	}
	if !ok {
		t.Errorf("%s %q does not match %q", what, got, re)
	}
}
