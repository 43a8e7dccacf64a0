package families_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/eventio"
	"github.com/grind-nlp/grind/stages/families"
	"github.com/grind-nlp/grind/stages/family"
	"github.com/grind-nlp/grind/stages/hmm"
)

// decodeBatched decodes corpus with model, DecodeBatch sentences at a time.
func decodeBatched(t *testing.T, model, corpus string, batch int) []byte {
	t.Helper()
	defer func(b int) { family.DecodeBatch = b }(family.DecodeBatch)
	family.DecodeBatch = batch
	var out bytes.Buffer
	if _, err := families.Decode(pipeline.Source{Names: []string{corpus}}, &out, family.DecodeOptions{Model: model, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// Decoding streams in batches, and a sentence's prediction does not depend
// on the batch it falls in: held-out sentences with yields, contexts and
// words the model never saw decode the same one at a time, three at a
// time, and all at once.
func TestDecodeBatchesAreIndependent(t *testing.T) {
	dir := t.TempDir()
	_, sents := corpus(t, dir, "train.jsonl", 40, 3)
	heldPath, _ := corpus(t, dir, "held.jsonl", 25, 11)
	cor, err := ccm.NewCorpus(tagsOf(sents), nil)
	if err != nil {
		t.Fatal(err)
	}
	start, err := ccm.StartCounts(cor, ccm.SplitUniform)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := ccm.WriteCounts(&b, start, cor.Sym, ccm.Model2, eventio.ModelNone, eventio.CorpusHash(sents, false)); err != nil {
		t.Fatal(err)
	}
	ccmModel := write(t, filepath.Join(dir, "ccm.jsonl"), mstepOf(t, b.Bytes()))

	wordsPath, _ := wordCorpus(t, dir, "words.jsonl", 40, 2)
	heldWords, _ := wordCorpus(t, dir, "held-words.jsonl", 25, 9)
	res, c := trainHMM(t, wordsPath, hmm.Options{Order: 2, States: 3, Estimator: hmm.MAP, Lambda: 0.5, Iterations: 2, Noise: 1, Seed: 1})
	hmmModel := write(t, filepath.Join(dir, "hmm.jsonl"), savedHMM(t, res, c))

	for _, m := range []struct{ model, corpus string }{{ccmModel, heldPath}, {hmmModel, heldWords}} {
		whole := decodeBatched(t, m.model, m.corpus, 4096)
		for _, batch := range []int{1, 3} {
			if got := decodeBatched(t, m.model, m.corpus, batch); !bytes.Equal(got, whole) {
				t.Errorf("%s: decoding %d at a time differs from decoding all at once", filepath.Base(m.model), batch)
			}
		}
	}
}
