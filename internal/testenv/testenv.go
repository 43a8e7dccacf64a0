// Package testenv finds what tests need outside the repository: the shared
// treebank data beside it (../shared/data), skipping cleanly when absent.
package testenv

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// RepoRoot is the module's root directory.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// SharedData returns the path of rel inside ../shared/data, or skips the
// test when it is not there. GRIND_SHARED_DATA overrides the location.
func SharedData(t testing.TB, rel ...string) string {
	t.Helper()
	dir := os.Getenv("GRIND_SHARED_DATA")
	if dir == "" {
		dir = filepath.Join(RepoRoot(), "..", "shared", "data")
	}
	p := filepath.Join(append([]string{dir}, rel...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared data not available: %v", err)
	}
	return p
}

// Examples returns the path of rel inside the repository's examples/.
func Examples(rel ...string) string {
	return filepath.Join(append([]string{RepoRoot(), "examples"}, rel...)...)
}
