// Package buildinfo is what a grind binary knows of the source it was
// built from: grind's version, the commit and the Go release, for
// --version and a run directory's run.json.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Build is what a binary knows of the source it was built from, for
// --version and a run directory's run.json.
type Build struct {
	// Version is the module's version: a release (go install …@v1.2.3)
	// or the pseudo-version Go gives a build in a git clone
	// (v0.0.0-20260101120000-0123456789ab, +dirty when modified); "devel"
	// when Go stamped none.
	Version    string `json:"version"`
	Commit     string `json:"commit,omitempty"`      // the git commit, "" when unknown
	CommitTime string `json:"commit_time,omitempty"` // its time, RFC 3339 in UTC
	Modified   bool   `json:"modified,omitempty"`    // built from a checkout with uncommitted changes
}

// The Makefile stamps these by -ldflags -X, for the builds Go stamps no
// commit into: a git worktree (whose .git is a file, which Go does not
// take for a repository) or GOFLAGS=-buildvcs=false. Go's own stamp,
// when there is one, comes first.
var (
	version    string // Go's pseudo-version of the commit
	commit     string
	commitTime string
	modified   string // "true" or "false"
)

// Read reads the binary's build information (runtime/debug), which go
// build, go install and make all give it.
func Read() Build {
	b := Build{Version: "devel", Commit: commit, CommitTime: commitTime, Modified: modified == "true"}
	if version != "" {
		b.Version = version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		b.Version = v
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		b.Commit, b.CommitTime, b.Modified = rev, settings["vcs.time"], settings["vcs.modified"] == "true"
	}
	return b
}

// GoVersion is the Go release and platform the binary was built for.
func GoVersion() string { return runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH }

// String is the build in one line: "v1.2.3 (commit 0123456789ab,
// 2026-01-01T12:00:00Z)", "devel (commit 0123456789ab, …, modified)", or
// "devel (commit unknown)".
func (b Build) String() string {
	if b.Commit == "" {
		return b.Version + " (commit unknown)"
	}
	details := []string{"commit " + b.Commit[:min(12, len(b.Commit))]}
	if b.CommitTime != "" {
		details = append(details, b.CommitTime)
	}
	if b.Modified {
		details = append(details, "modified")
	}
	return fmt.Sprintf("%s (%s)", b.Version, strings.Join(details, ", "))
}
