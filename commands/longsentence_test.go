package commands

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/format"
)

// longCorpus writes three short sentences and one of n words (words and
// tags drawn from forty of each, so that its long spans are all
// different, as in text) to dir/name.
func longCorpus(t *testing.T, dir, name string, n int) string {
	t.Helper()
	var b bytes.Buffer
	rng := rand.New(rand.NewPCG(uint64(n), 40))
	for _, s := range [][]int{{0, 1, 2}, {3, 4}, {5, 6, 0, 1}, nil} {
		if s == nil {
			for range n {
				s = append(s, rng.IntN(40))
			}
		}
		rec := format.Sentence{ID: fmt.Sprintf("s%d", len(s))}
		for _, x := range s {
			rec.Words = append(rec.Words, fmt.Sprintf("w%d", x))
			rec.Tags = append(rec.Tags, fmt.Sprintf("T%d", x))
		}
		line, _ := json.Marshal(&rec)
		b.Write(append(line, '\n'))
	}
	return writeTemp(t, dir, name, b.Bytes())
}

// Every family's trainer gives a corpus with a sentence of 120 words, of
// 300 and of 500, finite numbers everywhere — its log, its output, its
// model (up to 300 words) and, at 120, the E-step of that model on the
// corpus (the CCM's long sentences through its log-space chart, the
// product's through its scaled one) — or, for the product DMV+CCM at 300
// words and more, whose chart is (n+1)²·n items a table, a refusal by
// length in one line before training.
func TestLongSentencesEveryFamily(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{120, 300, 500} {
		corpus := longCorpus(t, dir, fmt.Sprintf("len%d.jsonl", n), n)
		for _, args := range [][]string{
			{"train-em"},
			{"train-ccm", "--model", "ccm"},
			{"train-ccm", "--model", "ccm2"},
			{"train-ccm", "--model", "dmvccm"},
			{"train-ccm", "--model", "dmvccm", "--right-first"},
			{"train-hmm", "--states", "8"},
			{"train-hmm", "--states", "8", "--trigram"},
		} {
			name := fmt.Sprintf("%s/%d", strings.Join(args, " "), n)
			log, out, model := filepath.Join(dir, "log.jsonl"), filepath.Join(dir, "out.jsonl"), filepath.Join(dir, "model.jsonl")
			for _, f := range []string{log, out, model} {
				os.Remove(f)
			}
			argv := append(args, "--max-iter", "1", "--quiet", "--log", log, corpus, "-o", out)
			if args[0] == "train-em" {
				model = out
			} else if n < 500 {
				argv = append(argv, "--save-model", model)
			}
			var stderr bytes.Buffer
			code := program.Run(args[0], argv, nil, &bytes.Buffer{}, &stderr)
			if n >= 300 && len(args) > 2 && args[2] == "dmvccm" {
				if code != 1 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "words, needs about") || !strings.Contains(stderr.String(), "over the limit of 1024 MiB (--max-memory)") {
					t.Errorf("%s: exit %d, %q; want the product's chart refused by length in one line", name, code, stderr.String())
				}
				continue
			}
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", name, code, stderr.String())
			}
			outputs := []string{log, out, model}
			if n == 500 { // the CCM's model would spell 21 million tags: trained only
				outputs = []string{log, out}
			}
			if n == 120 { // a CCM model of 300 words spells 4.5 million tags: seconds to read back
				counts := filepath.Join(dir, "counts.jsonl")
				if code := program.Run("estep", []string{"estep", "-m", model, corpus, "-o", counts}, nil, &bytes.Buffer{}, &stderr); code != 0 {
					t.Fatalf("%s: estep: exit %d: %s", name, code, stderr.String())
				}
				outputs = append(outputs, counts)
			}
			for _, f := range outputs {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				for _, bad := range []string{`"nan"`, `"inf"`, `"-inf"`, `"+inf"`, "NaN", "Inf"} { // as format.Real and Go write them
					if bytes.Contains(b, []byte(bad)) {
						t.Errorf("%s: %s holds %s", name, filepath.Base(f), bad)
					}
				}
			}
		}
	}
}

// A sentence of 60,000 words, given to any family's trainer, E-step or
// decoder (the HMM's trigram at 45 states, whose forward–backward holds
// 46·45 entries a token; the bitag one's 45 fit), is refused before its
// charts are made: exit 1, one line naming --max-memory, nothing written
// — never Go's fatal "out of memory".
func TestHugeSentenceRefusedEveryFamily(t *testing.T) {
	dir := t.TempDir()
	small := longCorpus(t, dir, "small.jsonl", 5)
	huge := longCorpus(t, dir, "huge.jsonl", 60000)
	models := map[string]string{}
	for fam, args := range map[string][]string{
		"dmv":    {"dmv-init", small},
		"ccm":    {"train-ccm", "--max-iter", "1", "-q", "--save-model", filepath.Join(dir, "ccm.jsonl"), small},
		"dmvccm": {"train-ccm", "--model", "dmvccm", "--max-iter", "1", "-q", "--save-model", filepath.Join(dir, "dmvccm.jsonl"), small},
		"hmm":    {"train-hmm", "--trigram", "--max-iter", "1", "-q", "--save-model", filepath.Join(dir, "hmm.jsonl"), small},
	} {
		out := run(t, nil, args...)
		models[fam] = filepath.Join(dir, fam+".jsonl")
		if fam == "dmv" {
			writeTemp(t, dir, "dmv.jsonl", out)
		}
	}
	cmds := [][]string{
		{"train-em", huge},
		{"train-ccm", huge},
		{"train-ccm", "--model", "ccm2", huge},
		{"train-ccm", "--model", "dmvccm", huge},
		{"train-ccm", "--model", "dmvccm", "--right-first", huge},
		{"train-hmm", "--trigram", huge},
		{"dmv-init", "--init", "local", huge},
	}
	for _, fam := range []string{"dmv", "ccm", "dmvccm", "hmm"} {
		cmds = append(cmds, []string{"estep", "-m", models[fam], huge}, []string{"decode", "-m", models[fam], huge})
	}
	cmds = append(cmds, []string{"tag", "-m", models["hmm"], huge})
	for _, args := range cmds {
		out := filepath.Join(dir, "out.jsonl")
		var stderr bytes.Buffer
		code := program.Run(args[0], append(args, "-o", out), nil, &bytes.Buffer{}, &stderr)
		msg := stderr.String()
		if code != 1 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "(--max-memory)") {
			t.Errorf("%s: exit %d, %q; want one line naming --max-memory", strings.Join(args[:len(args)-1], " "), code, msg)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: wrote %s", args[0], out)
		}
	}
}
