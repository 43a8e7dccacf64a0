package dmv

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/grind-nlp/grind/internal/brute"
)

// bestTrees are the trees of tags whose weight under w is the best, to
// 1e-9 (relative), by enumeration.
func bestTrees(tags []int, w *Params) [][]int {
	trees := brute.ProjectiveTrees(len(tags))
	best := math.Inf(-1)
	for _, heads := range trees {
		best = math.Max(best, TreeLogWeight(tags, heads, w))
	}
	var out [][]int
	for _, heads := range trees {
		if TreeLogWeight(tags, heads, w) >= best-1e-9 {
			out = append(out, heads)
		}
	}
	return out
}

// tiedModels are DMVs with ties: the uniform model (every tree of a
// sentence has the same weight) and models from small whole counts (many
// trees, not all, share the best weight).
func tiedModels(rng *rand.Rand, tags int) []*Params {
	out := []*Params{MStep(NewParams(tags), 1)}
	for range 3 {
		p := NewParams(tags)
		for _, tab := range p.Tables() {
			for i := range tab {
				tab[i] = float64(1 + rng.IntN(2))
			}
		}
		out = append(out, MStep(p, 0))
	}
	return out
}

// TestTiedViterbiAgainstEnumeration: the number of best trees, the split
// counts (each best tree's events with weight 1/number) and the random
// draws (always a best tree; every best tree about equally often; the
// same seed, the same tree) against enumeration of every projective tree
// of every sentence of ≤ 6 tokens, with the uniform model and with models
// of partial ties.
func TestTiedViterbiAgainstEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const nTags = 3
	chart := NewChart(8)
	heads := make([]int, 8)
	for mi, w := range tiedModels(rng, nTags) {
		for trial := 0; trial < 40; trial++ {
			n := 1 + trial%6
			tags := make([]int, n)
			for i := range tags {
				tags[i] = rng.IntN(nTags)
			}
			best := bestTrees(tags, w)
			if mi == 0 && len(best) != len(brute.ProjectiveTrees(n)) {
				t.Fatalf("uniform model, n=%d: %d of %d trees tied", n, len(best), len(brute.ProjectiveTrees(n)))
			}
			want := NewParams(nTags)
			for _, b := range best {
				AddTreeCounts(tags, b, want, 1/float64(len(best)))
			}
			chart.Load(tags, w, nil)
			logZ := chart.TiedViterbi(heads, TiesSplit, nil)
			if relErr(logZ, TreeLogWeight(tags, best[0], w)) > 1e-9 {
				t.Errorf("model %d %v: best log weight %v, enumeration %v", mi, tags, logZ, TreeLogWeight(tags, best[0], w))
			}
			if got := math.Exp(chart.ties.total); math.Abs(got-float64(len(best))) > 1e-6*float64(len(best)) {
				t.Errorf("model %d %v: %v best trees, enumeration %d", mi, tags, got, len(best))
			}
			got := NewParams(nTags)
			chart.AddCounts(tags, got, 1)
			for k, tab := range got.Tables() {
				for i, v := range tab {
					if math.Abs(v-want.Tables()[k][i]) > 1e-9 {
						t.Errorf("model %d %v: split count %d[%d] = %v, enumeration %v", mi, tags, k, i, v, want.Tables()[k][i])
					}
				}
			}
			// Random: every draw a best tree; the same seed the same tree.
			seen := map[string]int{}
			uniform := len(best) <= 30 // else only check that every draw is a best tree
			draws := 200 * len(best)
			if !uniform {
				draws = 100
			}
			for s := range draws {
				chart.Load(tags, w, nil)
				chart.TiedViterbi(heads, TiesRandom, rand.New(rand.NewPCG(uint64(s), 7)))
				tree := slices.Clone(heads[:n])
				if !slices.ContainsFunc(best, func(b []int) bool { return slices.Equal(b, tree) }) {
					t.Fatalf("model %d %v: drew %v, not a best tree", mi, tags, tree)
				}
				seen[key(tree)]++
			}
			if !uniform {
				continue
			}
			if len(seen) != len(best) {
				t.Errorf("model %d %v: %d of the %d best trees drawn in %d draws", mi, tags, len(seen), len(best), draws)
			}
			// Each best tree's count is binomial(draws, 1/len(best)): mean
			// 200, standard deviation under 14.2; 6 deviations is far.
			for tree, c := range seen {
				if math.Abs(float64(c)-200) > 6*math.Sqrt(200) {
					t.Errorf("model %d %v: tree %s drawn %d times in %d, want about 200", mi, tags, tree, c, draws)
				}
			}
		}
	}
	// The same seed draws the same tree; the left rule is Viterbi's.
	tags := []int{0, 1, 2, 0, 1}
	w := MStep(NewParams(nTags), 1)
	var first []int
	for range 3 {
		chart.Load(tags, w, nil)
		chart.TiedViterbi(heads, TiesRandom, rand.New(rand.NewPCG(5, 5)))
		if first == nil {
			first = slices.Clone(heads[:5])
		} else if !slices.Equal(first, heads[:5]) {
			t.Errorf("seed 5 drew %v, then %v", first, heads[:5])
		}
	}
}

func key(heads []int) string {
	b := make([]byte, len(heads))
	for i, h := range heads {
		b[i] = byte('0' + h)
	}
	return string(b)
}

// With a unique best tree, every rule gives Viterbi's tree and counts.
func TestTiesUniqueBestIsViterbi(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	w := randomWeights(rng, 4, true)
	c := CorpusFromNumbers(NewTagSet("a", "b", "c", "d"), [][]int{{0, 1, 2}, {3, 2, 1, 0}, {1, 1, 2, 3, 0, 2}})
	left := NewEStepper(c).Run(w, EStepOptions{Hard: true, Workers: 1})
	for _, ties := range []Ties{TiesRandom, TiesSplit} {
		got := NewEStepper(c).Run(w, EStepOptions{Hard: true, Ties: ties, Seed: 1, Workers: 1})
		if got.Err != nil || got.LogLik != left.LogLik {
			t.Fatalf("%s: %v, loglik %v, want %v", ties, got.Err, got.LogLik, left.LogLik)
		}
		for k, tab := range got.Counts.Tables() {
			for i, v := range tab {
				if math.Abs(v-left.Counts.Tables()[k][i]) > 1e-12 {
					t.Errorf("%s: count %d[%d] = %v, Viterbi's %v", ties, k, i, v, left.Counts.Tables()[k][i])
				}
			}
		}
	}
}

// Tie-broken counts do not depend on the number of workers (each
// sentence's generator is seeded by its index), and two seeds differ.
func TestTiesSameForWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	var sents [][]int
	for range 300 {
		s := make([]int, 1+rng.IntN(8))
		for i := range s {
			s[i] = rng.IntN(3)
		}
		sents = append(sents, s)
	}
	c := CorpusFromNumbers(NewTagSet("a", "b", "c"), sents)
	w := MStep(NewParams(3), 1)
	for _, ties := range []Ties{TiesRandom, TiesSplit} {
		one := NewEStepper(c).Run(w, EStepOptions{Hard: true, Ties: ties, Seed: 3, Workers: 1})
		four := NewEStepper(c).Run(w, EStepOptions{Hard: true, Ties: ties, Seed: 3, Workers: 4})
		other := NewEStepper(c).Run(w, EStepOptions{Hard: true, Ties: ties, Seed: 4, Workers: 4})
		for k, tab := range one.Counts.Tables() {
			if !slices.Equal(tab, four.Counts.Tables()[k]) {
				t.Errorf("%s: 1 and 4 workers count differently", ties)
			}
		}
		if same := slices.Equal(one.Counts.Child, other.Counts.Child); same == (ties == TiesRandom) {
			t.Errorf("%s: seeds 3 and 4 give the same counts: %v", ties, same)
		}
	}
	if res := NewEStepper(c).Run(w, EStepOptions{Ties: TiesSplit}); res.Err == nil {
		t.Error("ties without Hard were accepted")
	}
}
