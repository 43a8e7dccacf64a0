package memory

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for s, want := range map[string]int64{"1G": 1 << 30, "512M": 512 << 20, "1024": 1024 << 20, "64k": 64 << 10, "2": 2 << 20} {
		if got, err := Parse(s); err != nil || got != want {
			t.Errorf("%s: %d %v, want %d", s, got, err, want)
		}
	}
	if m := Machine(); m > 0 {
		if got, err := Parse("0"); err != nil || got != m {
			t.Errorf("0: %d %v, want the machine's %d", got, err, m)
		}
		if _, err := Parse("100000T"); err == nil || !strings.Contains(err.Error(), "more than this machine has") {
			t.Errorf("100000T: %v", err)
		}
	}
	for _, s := range []string{"", "-5", "1.5G", "G", "x", "12X", "1GB", "99999999999999T"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

// Estimates of absurd sizes saturate instead of wrapping to small ones.
func TestSaturating(t *testing.T) {
	if got := Mul(10_000_001, 10_000_001, 10_000_001, 8); got != math.MaxInt64 {
		t.Errorf("Mul: %d", got)
	}
	if got := Add(math.MaxInt64-1, 5); got != math.MaxInt64 {
		t.Errorf("Add: %d", got)
	}
	if got := Mul(3, 4); got != 12 {
		t.Errorf("Mul(3, 4) = %d", got)
	}
}

func TestCheck(t *testing.T) {
	err := Check(2<<30, 1<<30, func() string { return "a chart" }, "leave long sentences out (filterlen)")
	var e *Error
	if !errors.As(err, &e) || err.Error() != "a chart needs about 2048 MiB, over the limit of 1024 MiB (--max-memory); raise --max-memory or leave long sentences out (filterlen)" {
		t.Errorf("%v", err)
	}
	if err := Check(1<<30, 1<<30, func() string { panic("not made when admitted") }, ""); err != nil {
		t.Error(err)
	}
	if err := Check(math.MaxInt64, 0, nil, ""); err != nil {
		t.Errorf("no limit: %v", err)
	}
}
