package commands

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
)

// chainCorpus is n sentences of nouns before a final verb, as bunsetsu
// Japanese has them: a noun ending in の modifies the next word, one in
// は or を the verb. Every attachment of attach-right's chain (NOUN →
// NOUN, VERB → NOUN, ROOT → VERB) is one of ud's rules.
func chainCorpus(n int, rng *rand.Rand) []format.Sentence {
	stems := []string{"本", "山", "川", "人", "車"}
	sents := make([]format.Sentence, n)
	for i := range sents {
		s := format.Sentence{ID: fmt.Sprint(i + 1)}
		for k := 1 + rng.IntN(3); k > 0; k-- {
			stem := stems[rng.IntN(len(stems))]
			if rng.IntN(2) == 0 {
				s.Words = append(s.Words, stem+"の", stems[rng.IntN(len(stems))]+"は")
				s.Tags = append(s.Tags, "NOUN", "NOUN")
				s.Heads = append(s.Heads, len(s.Words), 0)
			} else {
				s.Words = append(s.Words, stem+"を")
				s.Tags = append(s.Tags, "NOUN")
				s.Heads = append(s.Heads, 0)
			}
		}
		s.Words = append(s.Words, "見る。")
		s.Tags = append(s.Tags, "VERB")
		for k, h := range s.Heads {
			if h == 0 {
				s.Heads[k] = len(s.Words)
			}
		}
		s.Heads = append(s.Heads, 0)
		sents[i] = s
	}
	return sents
}

func jsonLines(t *testing.T, sents []format.Sentence) []byte {
	var b bytes.Buffer
	for _, s := range sents {
		out, err := format.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(out, '\n'))
	}
	return b.Bytes()
}

// Where attach-right's chain meets the rules, induce trains over the tags
// refined by the words' endings: its candidates are train-em's runs in
// the 3/2 family over the refined sentences, byte for byte; its model says
// so in its header, and decode refines the tags it reads as induce did
// (the same parses as the model without the header over tags refined by
// hand), writing the tags it was given. The programs that do not refine
// refuse the model, and --chain-limit above the chain's share keeps the
// rules.
func TestInduceOverEndings(t *testing.T) {
	dir := t.TempDir()
	sents := chainCorpus(400, rand.New(rand.NewPCG(5, 8)))
	corpus := writeTemp(t, dir, "train.jsonl", jsonLines(t, sents))
	runs := filepath.Join(dir, "runs")
	code, model, stderr := runCode(t, nil, "induce", "--preset", "medium", "--train", corpus, "--dev", corpus, "--save-dir", runs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"attach-right's dev parses meet 100.0% of the rules, 65% or more", "ranked by dev log-likelihood", "em init=km λ=0 valences 3/2"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the report lacks %q:\n%s", want, stderr)
		}
	}
	if header := string(bytes.SplitN(model, []byte("\n"), 2)[0]); !strings.Contains(header, `"stop_valence":3,"child_valence":2,"refine":"ending"`) {
		t.Fatalf("the model's header: %s", header)
	}

	// The sentences refined by hand: NOUN_の, NOUN_は, NOUN_を, VERB_る
	// (the final 。 dropped), each seen 100 times or more.
	refined := make([]format.Sentence, len(sents))
	for i, s := range sents {
		r := s
		r.Tags = make([]string, len(s.Tags))
		for k, w := range s.Words {
			stem := []rune(strings.TrimSuffix(w, "。"))
			r.Tags[k] = s.Tags[k] + "_" + string(stem[len(stem)-1])
		}
		r.Heads = nil
		refined[i] = r
	}
	refinedFile := writeTemp(t, dir, "refined.jsonl", jsonLines(t, refined))
	byHand := run(t, nil, "train-em", "--init", "km", "--lambda", "0", "--stop-valence", "3", "--child-valence", "2", "-q", refinedFile)
	saved := readFile(t, filepath.Join(runs, "em-km-l0-r0-v32.jsonl"))
	if plain := bytes.Replace(saved, []byte(`,"refine":"ending"`), nil, 1); !bytes.Equal(plain, byHand) {
		t.Error("induce's candidate over the endings is not train-em's model over the refined sentences")
	}

	modelFile := writeTemp(t, dir, "model.jsonl", model)
	plainFile := writeTemp(t, dir, "plain.jsonl", bytes.Replace(model, []byte(`,"refine":"ending"`), nil, 1))
	parsed := run(t, nil, "decode", "-m", modelFile, corpus)
	byRefined := run(t, nil, "decode", "-m", plainFile, refinedFile)
	pa, pb := bytes.Split(bytes.TrimSpace(parsed), []byte("\n")), bytes.Split(bytes.TrimSpace(byRefined), []byte("\n"))
	if len(pa) != len(sents) || len(pb) != len(sents) {
		t.Fatalf("decode wrote %d and %d sentences of %d", len(pa), len(pb), len(sents))
	}
	for i := range pa {
		var a, b format.Sentence
		if err := errors.Join(json.Unmarshal(pa[i], &a), json.Unmarshal(pb[i], &b)); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(a.Pred) != fmt.Sprint(b.Pred) || fmt.Sprint(a.Tags) != fmt.Sprint(sents[i].Tags) {
			t.Fatalf("sentence %d: pred %v over the model's refinement, %v over the tags refined by hand; tags %v", i+1, a.Pred, b.Pred, a.Tags)
		}
	}
	if got := run(t, nil, "select-model", "--dev", corpus, "--json", "-q", modelFile); !bytes.Contains(got, []byte(`"directed":`)) {
		t.Errorf("select-model does not rank the model over the endings: %s", got)
	}

	for _, args := range [][]string{
		{"estep", "-m", modelFile, corpus},
		{"train-em", "-m", modelFile, corpus},
	} {
		code, _, stderr := runCode(t, nil, args...)
		if code == 0 || !strings.Contains(stderr, `refined by their words (its header's "refine" "ending"): decode and select-model read it`) {
			t.Errorf("%s: exit %d: %s", args[0], code, stderr)
		}
	}

	code, model, stderr = runCode(t, nil, "induce", "--preset", "quick", "--chain-limit", "1.01", "--train", corpus, "--dev", corpus)
	if code != 0 || bytes.Contains(model, []byte(`"refine"`)) || !strings.Contains(stderr, "meet 100.0% of the rules, under 101%") {
		t.Errorf("--chain-limit 1.01: exit %d, the rules' candidates not trained: %s", code, stderr)
	}
}
