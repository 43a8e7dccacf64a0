package commands

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMemoryLimit is the acceptance test of --max-memory (heavy: set
// GRIND_MEMORY_TEST=1). For each family it finds the largest sentence
// length (the HMM: number of states) that --max-memory 1G admits — by
// bisection, a size being admitted when the program has not refused it
// within a few seconds — runs the program at that size to the end under
// /usr/bin/time -v and checks its peak RSS is under 1.2 GB, and checks
// that the next size up is refused (exit 1, one line) with an RSS far
// below the limit: refused before allocating. One worker, whose chart
// the long sentence fills (with more, each worker's chart is counted).
// Sizes and RSS are logged (go test -v) for the record.
func TestMemoryLimit(t *testing.T) {
	if os.Getenv("GRIND_MEMORY_TEST") == "" {
		t.Skip("heavy (up to 1.2 GB a run, minutes): set GRIND_MEMORY_TEST=1")
	}
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		t.Skip("needs /usr/bin/time (apt-get install time)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	build := exec.Command("go", "build", "-o", bin+"/", "../cmd/train-em", "../cmd/train-ccm", "../cmd/train-hmm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	words := filepath.Join(dir, "words.jsonl")
	var b bytes.Buffer
	for i := range 20 {
		fmt.Fprint(&b, `{"words":[`)
		for j := range 10 {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"w%d"`, (i*7+j*3)%50)
		}
		b.WriteString(`],"tags":["A","B","C","D","E","F","G","H","I","J"]}` + "\n")
	}
	if err := os.WriteFile(words, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	families := []struct {
		name   string
		lo, hi int // sizes known to be admitted and refused
		args   func(size int) []string
	}{
		{"dmv", 10, 6000, func(n int) []string { return []string{"train-em", "--max-iter", "1", longCorpus(t, dir, "c.jsonl", n)} }},
		{"ccm", 10, 3000, func(n int) []string {
			return []string{"train-ccm", "--max-iter", "1", longCorpus(t, dir, "c.jsonl", n)}
		}},
		{"ccm2", 10, 3000, func(n int) []string {
			return []string{"train-ccm", "--model", "ccm2", "--max-iter", "1", longCorpus(t, dir, "c.jsonl", n)}
		}},
		{"dmvccm", 10, 500, func(n int) []string {
			return []string{"train-ccm", "--model", "dmvccm", "--max-iter", "1", longCorpus(t, dir, "c.jsonl", n)}
		}},
		{"dmvccm-right-first", 10, 500, func(n int) []string {
			return []string{"train-ccm", "--model", "dmvccm", "--right-first", "--max-iter", "1", longCorpus(t, dir, "c.jsonl", n)}
		}},
		{"hmm bitag (states)", 2, 8000, func(k int) []string {
			return []string{"train-hmm", "--states", strconv.Itoa(k), "--max-iter", "1", words}
		}},
		{"hmm trigram (states)", 2, 600, func(k int) []string {
			return []string{"train-hmm", "--trigram", "--states", strconv.Itoa(k), "--max-iter", "1", words}
		}},
	}
	rss := regexp.MustCompile(`Maximum resident set size \(kbytes\): (\d+)`)
	runTimed := func(args []string, limit time.Duration) (code int, stderr string, kb int, done bool) {
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		defer cancel()
		full := append([]string{"-v", filepath.Join(bin, args[0])}, args[1:]...)
		full = append(full, "--max-memory", "1G", "--workers", "1", "--quiet", "-o", os.DevNull)
		cmd := exec.CommandContext(ctx, "/usr/bin/time", full...)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		err := cmd.Run()
		if ctx.Err() != nil {
			return 0, "", 0, false
		}
		code = cmd.ProcessState.ExitCode()
		if err != nil && code == 0 {
			t.Fatal(err)
		}
		s := errb.String()
		if m := rss.FindStringSubmatch(s); m != nil {
			kb, _ = strconv.Atoi(m[1])
		}
		own, _, _ := strings.Cut(s, "\tCommand being timed")
		own, _, _ = strings.Cut(own, "Command exited with non-zero status")
		return code, own, kb, true
	}
	for _, f := range families {
		lo, hi := f.lo, f.hi
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			if code, msg, _, done := runTimed(f.args(mid), 5*time.Second); done && code == 1 && strings.Contains(msg, "(--max-memory)") {
				hi = mid
			} else {
				lo = mid
			}
		}
		code, msg, kb, _ := runTimed(f.args(lo), time.Hour)
		t.Logf("%s: size %d admitted: exit %d, peak RSS %d MiB", f.name, lo, code, kb>>10)
		if code != 0 || kb*1024 > 1_200_000_000 {
			t.Errorf("%s: size %d: exit %d, peak RSS %d MiB, want 0 and under 1.2 GB: %s", f.name, lo, code, kb>>10, msg)
		}
		code, msg, kb, _ = runTimed(f.args(hi), time.Hour)
		t.Logf("%s: size %d refused: exit %d, peak RSS %d MiB: %s", f.name, hi, code, kb>>10, strings.TrimSpace(msg))
		if code != 1 || strings.Count(msg, "\n") != 1 || kb > 64<<10 {
			t.Errorf("%s: size %d: exit %d, peak RSS %d MiB; want refused in one line before allocating", f.name, hi, code, kb>>10)
		}
	}
}
