package buildinfo

import "testing"

func TestString(t *testing.T) {
	for _, tc := range []struct {
		b    Build
		want string
	}{
		{Build{Version: "devel"}, "devel (commit unknown)"},
		{Build{Version: "v1.2.3", Commit: "0123456789abcdef0123", CommitTime: "2026-01-01T12:00:00Z"}, "v1.2.3 (commit 0123456789ab, 2026-01-01T12:00:00Z)"},
		{Build{Version: "devel", Commit: "0123456789abcdef0123", Modified: true}, "devel (commit 0123456789ab, modified)"},
	} {
		if got := tc.b.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.b, got, tc.want)
		}
	}
}

// A test binary carries no stamp of its own: what Read gives is make's
// (the -ldflags -X variables) when they are set, never a half of each.
func TestReadStamp(t *testing.T) {
	defer func(c, ct, m string) { commit, commitTime, modified = c, ct, m }(commit, commitTime, modified)
	commit, commitTime, modified = "fedcba9876543210", "2026-02-03T04:05:06Z", "true"
	if b := Read(); b.Commit != commit || b.CommitTime != commitTime || !b.Modified {
		t.Errorf("Read() = %+v with make's stamp %s %s %s", b, commit, commitTime, modified)
	}
}
