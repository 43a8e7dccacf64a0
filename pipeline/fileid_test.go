package pipeline

import (
	"os"
	"path/filepath"
	"testing"
)

// Names of one file are one key, whether it exists (a hard link, a link to
// its folder) or not yet (another spelling, a dangling link to it); names
// of two files are two.
func TestFileKey(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.jsonl")
	os.WriteFile(file, nil, 0o644)
	os.Link(file, filepath.Join(dir, "hard.jsonl"))
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Symlink("sub", filepath.Join(dir, "via"))
	os.Mkdir(filepath.Join(dir, "sub", "inner"), 0o755)
	os.Symlink("sub/inner", filepath.Join(dir, "deep"))
	os.Symlink("sub/new.jsonl", filepath.Join(dir, "dangling"))
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"a.jsonl", "hard.jsonl", true},
		{"a.jsonl", "sub/../a.jsonl", true},
		{"via/../a.jsonl", "a.jsonl", true},
		{"deep/../a.jsonl", "a.jsonl", false}, // deep/.. is sub for the kernel, not the folder of a.jsonl
		{"deep/../x.jsonl", "sub/x.jsonl", true},
		{"deep/../x.jsonl", "x.jsonl", false},
		{"sub/new.jsonl", "via/new.jsonl", true},
		{"sub/new.jsonl", "dangling", true},
		{"sub/new.jsonl", "./sub//new.jsonl", true},
		{"sub/new.jsonl", "sub/other.jsonl", false},
		{"a.jsonl", "sub/new.jsonl", false},
	} {
		a, b := KeyOf(dir+"/"+tc.a), KeyOf(dir+"/"+tc.b) // not Join, which cleans deep/.. away
		if a.Same(b) != tc.same {
			t.Errorf("%s and %s: same %v, want %v", tc.a, tc.b, a.Same(b), tc.same)
		}
	}
	// In which folder a name is, as the kernel resolves it.
	sub := KeyOf(filepath.Join(dir, "sub"))
	for name, want := range map[string]bool{"deep/../x.jsonl": true, "via/x.jsonl": true, "sub/x.jsonl": true, "x.jsonl": false, "dangling": true} {
		if got := InDir(dir+"/"+name, sub, nil); got != want {
			t.Errorf("%s in sub: %v, want %v", name, got, want)
		}
	}
}

func TestProcessOwn(t *testing.T) {
	dir := t.TempDir()
	os.Symlink("/dev/stdin", filepath.Join(dir, "in"))
	for name, want := range map[string]bool{
		"/dev/stdin":               true,
		"/dev/fd/63":               true,
		"/proc/self/fd/0":          true,
		"/proc/123/fd/4":           true,
		filepath.Join(dir, "in"):   true, // a link to /dev/stdin
		"/dev/null":                false,
		"/dev/shm/corpus.jsonl":    false,
		"/proc/self/fd":            false,
		filepath.Join(dir, "c.js"): false,
	} {
		if got := ProcessOwn(name); got != want {
			t.Errorf("ProcessOwn(%s) = %v, want %v", name, got, want)
		}
	}
}
