package commands

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
)

// --stop bits (Spitkovsky et al.'s rule) in every EM trainer: each stage
// of the log ends at the first iteration whose objective changed by less
// than --tol bits per token (|L − L′| / (N·ln 2), N the corpus's tokens),
// every earlier one having changed by more; and --stop relative, given,
// is the default, byte for byte.
func TestStopBitsEveryTrainer(t *testing.T) {
	dir := t.TempDir()
	dmvCorpus := sampledCorpus(t, dir, 300)
	// The same sentences with words (the tags, lower-cased) for the HMM.
	var words bytes.Buffer
	tokens := 0
	for _, line := range strings.Split(strings.TrimSpace(string(readFile(t, dmvCorpus))), "\n") {
		var s format.Sentence
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatal(err)
		}
		tokens += len(s.Tags)
		for _, tag := range s.Tags {
			s.Words = append(s.Words, strings.ToLower(tag))
		}
		b, _ := format.Marshal(s)
		words.Write(append(b, '\n'))
	}
	hmmCorpus := writeTemp(t, dir, "words.jsonl", words.Bytes())
	const tol = 1e-4
	for _, tc := range []struct {
		name   string
		args   []string
		corpus string
	}{
		{"train-em", []string{"train-em", "--init", "km"}, dmvCorpus},
		{"train-em-hard-relative", []string{"train-em", "--init", "km", "--hard", "--lambda", "1"}, dmvCorpus},
		{"train-da", []string{"train-da", "--init", "km", "--skew", "--beta0", "0.25", "--gamma", "2"}, dmvCorpus},
		{"train-sa", []string{"train-sa", "--init", "zero", "--lambda", "1", "--delta0", "-0.4", "--delta-step", "0.2", "--delta-final", "0"}, dmvCorpus},
		{"train-ccm", []string{"train-ccm", "--model", "ccm2", "--estimator", "sda", "--beta0", "0.25", "--gamma", "2"}, dmvCorpus},
		{"train-ccm-dmvccm", []string{"train-ccm", "--model", "dmvccm"}, dmvCorpus},
		{"train-hmm", []string{"train-hmm", "--states", "4", "--estimator", "map"}, hmmCorpus},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := filepath.Join(dir, tc.name+".log")
			args := append(append([]string{}, tc.args...), "-q", "--stop", "bits", "--tol", "1e-4", "--max-iter", "300", "--log", log, tc.corpus)
			if tc.name == "train-em-hard-relative" {
				args = append(append([]string{}, tc.args...), "-q", "--stop", "relative", "--tol", "1e-4", "--max-iter", "300", "--log", log, tc.corpus)
			}
			run(t, nil, args...)
			stages := map[int][]float64{}
			var order []int
			f, err := os.Open(log)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				var it struct {
					Stage     int
					Objective float64
				}
				if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
					t.Fatal(err)
				}
				if _, ok := stages[it.Stage]; !ok {
					order = append(order, it.Stage)
				}
				stages[it.Stage] = append(stages[it.Stage], it.Objective)
			}
			longest := 0
			for _, k := range order {
				obj := stages[k]
				longest = max(longest, len(obj))
				for i := 1; i < len(obj); i++ {
					change := math.Abs(obj[i] - obj[i-1])
					if tc.name == "train-em-hard-relative" {
						change /= math.Abs(obj[i-1])
					} else {
						change /= float64(tokens) * math.Ln2
					}
					last := i == len(obj)-1
					if last && change >= tol && len(obj) < 300 || !last && change < tol {
						t.Errorf("stage %d iteration %d of %d: change %v against tol %v", k, i+1, len(obj), change, tol)
					}
				}
			}
			if longest < 3 {
				t.Errorf("no stage ran more than %d iterations: the rule was not exercised", longest)
			}
			if tc.name == "train-em-hard-relative" {
				return
			}
			// Without --stop and with --stop relative: the same output.
			base := append(append([]string{}, tc.args...), "-q", "--max-iter", "30", tc.corpus)
			if !bytes.Equal(run(t, nil, base...), run(t, nil, append(base, "--stop", "relative")...)) {
				t.Error("--stop relative differs from the default")
			}
		})
	}
}
