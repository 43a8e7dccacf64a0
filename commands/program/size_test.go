package program

import "testing"

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int{"1000": 1000, "64K": 64 << 10, "64m": 64 << 20, "1G": 1 << 30} {
		if got, err := parseSize(s); err != nil || got != want {
			t.Errorf("%s: %d %v, want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "x", "0", "-5", "1.5M", "M", "9999999999G"} {
		if _, err := parseSize(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}
