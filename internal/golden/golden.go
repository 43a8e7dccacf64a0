// Package golden compares test output with expected-output files in
// testdata/; `go test ./... -update` rewrites them from the output.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from the output")

// Check fails t unless got equals the contents of the file at path; with
// -update it writes got there instead.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s:\n%s", path, diff(string(got), string(want)))
	}
}

// diff shows the first lines that differ.
func diff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var b strings.Builder
	for i := 0; i < max(len(g), len(w)) && b.Len() < 2000; i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			fmt.Fprintf(&b, "line %d:\n  got:  %s\n  want: %s\n", i+1, gl, wl)
		}
	}
	return b.String()
}

// Rewritten fails t unless every file matching pattern (at least atLeast
// of them) comes out of rewrite the same bytes: rewrite reads the file at
// path and writes what it read to out, as the program whose format it is
// would write it. The files are ones an older program wrote, kept as they
// are: -update leaves them alone.
func Rewritten(t *testing.T, pattern string, atLeast int, rewrite func(path, out string) error) {
	t.Helper()
	paths, err := filepath.Glob(pattern)
	if err != nil || len(paths) < atLeast {
		t.Fatalf("%d files match %s (%v), not at least %d", len(paths), pattern, err, atLeast)
	}
	out := filepath.Join(t.TempDir(), "rewritten")
	for _, path := range paths {
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := rewrite(path, out); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			i := 0
			for i < min(len(got), len(want)) && got[i] == want[i] {
				i++
			}
			t.Errorf("%s written again differs from byte %d:\n  got:  …%.80s\n  want: …%.80s", path, i+1, got[i:], want[i:])
		}
	}
}
