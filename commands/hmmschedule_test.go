package commands

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// train-hmm --schedule tagging is Smith & Eisner's tagging run: the same
// output and model, byte for byte, as --beta0 0.0001 --gamma 1.2 --tol
// 1e-9, and its log (one E-step a stage) goes through the 52 stages by
// hand: β = 10⁻⁴·1.2^k for k = 0 … 50, then 1.
func TestHMMTaggingSchedule(t *testing.T) {
	dir := t.TempDir()
	corpus := writeTemp(t, dir, "c.jsonl", []byte(strings.Join([]string{
		`{"words":["the","dog","runs"],"tags":["DT","NN","VBZ"]}`,
		`{"words":["a","cat","sleeps"],"tags":["DT","NN","VBZ"]}`,
		`{"words":["the","cat","runs","fast"],"tags":["DT","NN","VBZ","RB"]}`,
	}, "\n")+"\n"))
	common := []string{"train-hmm", "-q", "--states", "3", "--estimator", "da", "--max-iter", "1", corpus}
	preset := filepath.Join(dir, "preset")
	out := run(t, nil, append(append([]string{}, common...), "--schedule", "tagging", "--log", preset+".log", "--save-model", preset+".model")...)
	hand := filepath.Join(dir, "hand")
	want := run(t, nil, append(append([]string{}, common...), "--beta0", "0.0001", "--gamma", "1.2", "--tol", "1e-9", "--save-model", hand+".model")...)
	if !bytes.Equal(out, want) || !bytes.Equal(readFile(t, preset+".model"), readFile(t, hand+".model")) {
		t.Error("--schedule tagging differs from --beta0 0.0001 --gamma 1.2 --tol 1e-9")
	}
	lines := strings.Split(strings.TrimSpace(string(readFile(t, preset+".log"))), "\n")
	if len(lines) != 52 {
		t.Fatalf("%d stages, want 52", len(lines))
	}
	for k, line := range lines {
		var it struct{ Beta float64 }
		if err := json.Unmarshal([]byte(line), &it); err != nil {
			t.Fatal(err)
		}
		want := math.Min(1, 1e-4*math.Pow(1.2, float64(k)))
		if k == 51 {
			want = 1
		}
		if math.Abs(it.Beta-want) > 1e-12*want {
			t.Errorf("stage %d: β %v, want %v", k+1, it.Beta, want)
		}
	}
}
