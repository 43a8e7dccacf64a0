package hmm

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/grind-nlp/grind/format"
)

// GoldCounts are the E-step's counts when the posterior is the gold
// tagging: on a corpus whose every word has one gold tag and a
// dictionary that allows a word only that tag, forward–backward under
// any weights counts exactly what GoldCounts counts — transitions with
// the boundary at both ends, bitag and trigram, to 1e-9.
func TestGoldCountsAreTheGoldPosteriorsCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const k, v = 4, 12
	tagOf := make([]int, v)
	for w := range tagOf {
		tagOf[w] = rng.IntN(k)
	}
	states := []string{"A", "B", "C", "D"}
	var sents []*format.Sentence
	for i := range 40 {
		s := &format.Sentence{ID: strconv.Itoa(i)}
		for range 1 + rng.IntN(7) {
			w := rng.IntN(v)
			s.Words = append(s.Words, "w"+strconv.Itoa(w))
			s.Tags = append(s.Tags, states[tagOf[w]])
		}
		sents = append(sents, s)
	}
	c, err := NewCorpus(sents)
	if err != nil {
		t.Fatal(err)
	}
	allowed := make([]bool, len(c.Words)*k)
	for i, w := range c.Words {
		n, _ := strconv.Atoi(w[1:])
		allowed[i*k+tagOf[n]] = true
	}
	for _, order := range []int{1, 2} {
		gold, err := GoldCounts(c, order, GoldStates(c))
		if err != nil {
			t.Fatal(err)
		}
		// GoldStates sorts: A … D, the numbering of tagOf.
		names := GoldStates(c)
		s, _ := NewSpace(order, k, len(c.Words), allowed)
		p := randomParams(rng, order, k, len(c.Words), false)
		p.Space = s
		for i := range p.Emit {
			if !allowed[i] {
				p.Emit[i] = 0
			}
		}
		r := NewEStepper(c, s, 2).Run(p)
		if len(names) != k {
			t.Fatalf("the corpus shows %d of the %d states", len(names), k)
		}
		for i := range gold.Trans {
			if math.Abs(gold.Trans[i]-r.Counts.Trans[i]) > 1e-9 {
				t.Errorf("order %d: trans %d: gold %v, E-step %v", order, i, gold.Trans[i], r.Counts.Trans[i])
			}
		}
		for i := range gold.Emit {
			if math.Abs(gold.Emit[i]-r.Counts.Emit[i]) > 1e-9 {
				t.Errorf("order %d: emit %d: gold %v, E-step %v", order, i, gold.Emit[i], r.Counts.Emit[i])
			}
		}
	}
}
