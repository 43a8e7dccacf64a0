package commands

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/ccm"
)

// train-ccm --classes 2 is the CCM, byte for byte; --dump-classes lists
// every class's yields, the most frequent first; the multi-class model's
// limits are usage errors.
func TestTrainCCMClasses(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 120)
	plain := run(t, nil, "train-ccm", "--quiet", corpus)
	two := run(t, nil, "train-ccm", "--quiet", "--classes", "2", corpus)
	if !bytes.Equal(plain, two) {
		t.Error("train-ccm --classes 2 differs from train-ccm")
	}
	dump := filepath.Join(dir, "classes.jsonl")
	out := run(t, nil, "train-ccm", "--quiet", "--classes", "4", "--seed", "3", "--dump-classes", dump, corpus)
	if again := run(t, nil, "train-ccm", "--quiet", "--classes", "4", "--seed", "3", corpus); !bytes.Equal(out, again) {
		t.Error("the same seed gave different bracketings")
	}
	f, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]int{}
	last := map[int]float64{}
	sc := bufio.NewScanner(bytes.NewReader(f))
	for sc.Scan() {
		var m ccm.ClassMember
		if err := format.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", sc.Text(), err)
		}
		if m.Class < 0 || m.Class > 3 || len(m.Yield) < 2 || m.Count <= 0 {
			t.Errorf("bad member %s", sc.Text())
		}
		if seen[m.Class] > 0 && m.Count > last[m.Class] {
			t.Errorf("class %d: %v after %v", m.Class, m.Count, last[m.Class])
		}
		seen[m.Class]++
		last[m.Class] = m.Count
	}
	for c := range 4 {
		if seen[c] != 10 {
			t.Errorf("class %d: %d yields listed, want 10", c, seen[c])
		}
	}
	// The CCM's own classes: d and the constituent label.
	run(t, nil, "train-ccm", "--quiet", "--dump-classes", dump, corpus)
	if f, err := os.ReadFile(dump); err != nil || !bytes.Contains(f, []byte(`{"class":1,`)) || bytes.Contains(f, []byte(`{"class":2,`)) {
		t.Errorf("the CCM's dump: %v\n%s", err, f)
	}
	for _, args := range [][]string{
		{"--classes", "1"},
		{"--classes", "3", "--model", "ccm2"},
		{"--classes", "3", "--model", "dmvccm"},
		{"--classes", "3", "--estimator", "da"},
		{"--dump-classes", dump, "--model", "ccm2"},
	} {
		var stdout, stderr bytes.Buffer
		argv := append([]string{"train-ccm", "--quiet"}, append(args, corpus)...)
		if code := program.Run("train-ccm", argv, nil, &stdout, &stderr); code != program.ExitUsage || stdout.Len() > 0 {
			t.Errorf("%s: exit %d, %d bytes out, want a usage error: %s", strings.Join(args, " "), code, stdout.Len(), stderr.String())
		}
	}
}
