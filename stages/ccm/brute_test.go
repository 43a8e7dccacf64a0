package ccm

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/bintree"
)

// binaryBracketings lists every binary bracketing of [i, j) as its spans
// of two or more tokens.
func binaryBracketings(i, j int) [][][2]int {
	if j-i == 1 {
		return [][][2]int{nil}
	}
	var out [][][2]int
	for k := i + 1; k < j; k++ {
		for _, l := range binaryBracketings(i, k) {
			for _, r := range binaryBracketings(k, j) {
				out = append(out, append(append([][2]int{{i, j}}, l...), r...))
			}
		}
	}
	return out
}

// jointLogProb is log P(s, B) straight from the definition: P_bin(B) times
// every span's yield and context probability given its bracket value.
func jointLogProb(m *Model, c *Corpus, s Sentence, brackets [][2]int, trees int) float64 {
	isT := map[[2]int]bool{}
	for _, b := range brackets {
		isT[b] = true
	}
	logP := -math.Log(float64(trees))
	for i := 0; i <= s.N; i++ {
		for j := i; j <= s.N; j++ {
			b := Distituent
			if j-i == 1 || isT[[2]int{i, j}] {
				b = Constituent
			}
			k := s.Span(i, j)
			logP += math.Log(m.Span[b][c.Yield[k]]) + math.Log(m.Context[b][c.Context[k]])
		}
	}
	return logP
}

func randomCorpus(rng *rand.Rand, sentences, maxLen, tags int) *Corpus {
	names := []string{"A", "B", "C", "D", "E"}[:tags]
	var sents [][]string
	for range sentences {
		n := 1 + rng.IntN(maxLen)
		s := make([]string, n)
		for i := range s {
			s[i] = names[rng.IntN(tags)]
		}
		sents = append(sents, s)
	}
	c, err := NewCorpus(sents, nil)
	if err != nil {
		panic(err)
	}
	return c
}

// randomModel draws a model by an M-step on random counts, so that it is
// normalised like a trained one and far from uniform.
func randomModel(rng *rand.Rand, c *Corpus, v Variant) *Model {
	cnt := &Counts{}
	for range c.Sym.NumYields() {
		n := 1 + 5*rng.Float64()
		cnt.SpanN = append(cnt.SpanN, n)
		cnt.SpanT = append(cnt.SpanT, n*rng.Float64())
	}
	for range c.Sym.NumContexts() {
		n := 1 + 5*rng.Float64()
		cnt.ContextN = append(cnt.ContextN, n)
		cnt.ContextT = append(cnt.ContextT, n*rng.Float64())
	}
	m, err := MStep(cnt, c.Sym, v, Smoothing{0.1, 0.1})
	if err != nil {
		panic(err)
	}
	return m
}

func relErr(got, want float64) float64 {
	if got == want {
		return 0
	}
	return math.Abs(got-want) / math.Max(math.Abs(want), 1e-300)
}

// TestChartAgainstEnumeration checks the likelihood, every bracket
// posterior and the Viterbi bracketing against the sum and the maximum
// over every binary bracketing, for both variants and n ≤ 8.
func TestChartAgainstEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, v := range []Variant{Model1, Model2} {
		c := randomCorpus(rng, 40, 8, 3)
		m := randomModel(rng, c, v)
		for k, s := range c.Sentences {
			trees := binaryBracketings(0, s.N)
			post := map[[2]int]float64{}
			total := math.Inf(-1)
			bestScore, best := math.Inf(-1), [][2]int(nil)
			for _, b := range trees {
				lp := jointLogProb(m, c, s, b, len(trees))
				total = logAddTest(total, lp)
				if lp > bestScore {
					bestScore, best = lp, b
				}
			}
			for _, b := range trees {
				lp := jointLogProb(m, c, s, b, len(trees))
				for _, sp := range b {
					post[sp] += math.Exp(lp - total)
				}
			}
			got, logP := m.Posteriors(c, k)
			if e := relErr(logP, total); e > 1e-9 {
				t.Errorf("model %d sentence %d: log P %v, enumeration %v", v, k, logP, total)
			}
			for i := 0; i < s.N; i++ {
				for j := i + 2; j <= s.N; j++ {
					if e := relErr(got[i][j], post[[2]int{i, j}]); e > 1e-9 && math.Abs(got[i][j]-post[[2]int{i, j}]) > 1e-15 {
						t.Errorf("model %d sentence %d span (%d,%d): posterior %v, enumeration %v", v, k, i, j, got[i][j], post[[2]int{i, j}])
					}
				}
				if got[i][i+1] != 1 {
					t.Errorf("single token posterior %v", got[i][i+1])
				}
			}
			if got[0][s.N] != 1 {
				t.Errorf("P(0,n) = %v", got[0][s.N])
			}
			spans, score, _ := m.Parse(c, k, Viterbi)
			slices.SortFunc(best, cmpSpan)
			slices.SortFunc(spans, cmpSpan)
			if !slices.Equal(spans, best) {
				t.Errorf("model %d sentence %d: Viterbi %v, enumeration %v", v, k, spans, best)
			}
			// Viterbi's score is log P(s, B) − log K(s) + log Cat(n−1).
			var ch chart
			logK, _ := m.potentials(c, s, &ch)
			if e := relErr(score+logK-math.Log(float64(len(trees))), bestScore); e > 1e-9 {
				t.Errorf("model %d sentence %d: Viterbi score %v, enumeration %v", v, k, score+logK-math.Log(float64(len(trees))), bestScore)
			}
			// MBR: the tree whose brackets' posteriors sum highest.
			mbr, mbrScore, _ := m.Parse(c, k, MBR)
			bestSum := math.Inf(-1)
			for _, b := range trees {
				sum := 0.0
				for _, sp := range b {
					sum += post[sp]
				}
				bestSum = math.Max(bestSum, sum)
			}
			sum := 0.0
			for _, sp := range mbr {
				sum += post[sp]
			}
			if math.Abs(sum-bestSum) > 1e-9 || math.Abs(mbrScore-bestSum) > 1e-9 {
				t.Errorf("model %d sentence %d: MBR tree sums %v (reported %v), best %v", v, k, sum, mbrScore, bestSum)
			}
		}
	}
}

func cmpSpan(a, b [2]int) int {
	if a[0] != b[0] {
		return a[0] - b[0]
	}
	return a[1] - b[1]
}

// TestStartPosteriors checks the split-uniform start against Klein's
// closed form (appendix B.2) and the tree-uniform one against enumeration.
func TestStartPosteriors(t *testing.T) {
	for n := 1; n <= 9; n++ {
		w := n + 1
		split, _ := StartPosteriors(SplitUniform, n)
		tree, _ := StartPosteriors(TreeUniform, n)
		trees := binaryBracketings(0, n)
		for i := 0; i < n; i++ {
			for j := i + 2; j <= n; j++ {
				l := float64(j - i)
				var want float64
				switch {
				case i == 0 && j == n:
					want = 1
				case i == 0 || j == n:
					want = 1 / l
				default:
					want = 2 / (l * (l + 1))
				}
				if relErr(split[i*w+j], want) > 1e-12 {
					t.Errorf("split n=%d (%d,%d): %v, want %v", n, i, j, split[i*w+j], want)
				}
				hits := 0
				for _, b := range trees {
					if slices.Contains(b, [2]int{i, j}) {
						hits++
					}
				}
				if want := float64(hits) / float64(len(trees)); relErr(tree[i*w+j], want) > 1e-12 {
					t.Errorf("tree n=%d (%d,%d): %v, want %v", n, i, j, tree[i*w+j], want)
				}
			}
		}
	}
}

// TestEMNeverLowersObjective runs EM without smoothing (the likelihood
// must not fall) and with Klein's (the MAP objective must not fall), for
// both variants and every start.
func TestEMNeverLowersObjective(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	c := randomCorpus(rng, 60, 9, 4)
	for _, v := range []Variant{Model1, Model2} {
		for _, st := range []Start{SplitUniform, TreeUniform, BracketUniform} {
			for _, sm := range []Smoothing{{1e-9, 1e-9}, KleinSmoothing} {
				prev := math.Inf(-1)
				_, _, err := Train(c, Options{Variant: v, Start: st, Smoothing: sm, MaxIter: 25, Tol: 1e-12,
					Observe: func(it format.Iteration, _ *Model) error {
						if obj := float64(it.Objective); obj < prev-1e-9*math.Abs(prev) {
							t.Errorf("model %d start %s smoothing %v: objective fell from %v to %v at iteration %d", v, st, sm, prev, obj, it.Iter)
						}
						prev = float64(it.Objective)
						return nil
					}})
				if err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// TestAnnealingNeverLowersStageObjective: within each DA and SDA (either
// skew) stage the
// tempered objective must not fall, β must follow the schedule, and the
// tempered log-partition must equal brute force at one β.
func TestAnnealingNeverLowersStageObjective(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	c := randomCorpus(rng, 60, 8, 4)
	for _, run := range []struct {
		est  Estimator
		skew Skew
	}{{DA, ""}, {SDA, SkewSplit}, {SDA, SkewStart}} {
		est := run.est
		for _, v := range []Variant{Model1, Model2} {
			prev, stage, lastBeta := math.Inf(-1), 0, 0.0
			_, _, err := Train(c, Options{Variant: v, Estimator: est, Skew: run.skew, Beta0: 0.1, Gamma: 2, MaxIter: 15, Tol: 1e-12,
				Observe: func(it format.Iteration, _ *Model) error {
					obj, beta := float64(it.Objective), *it.Beta
					if it.Stage != stage {
						if beta <= lastBeta {
							t.Errorf("%s: β %v after %v", est, beta, lastBeta)
						}
						stage, prev, lastBeta = it.Stage, math.Inf(-1), beta
					}
					if obj < prev-1e-9*math.Abs(prev) {
						t.Errorf("%s model %d stage %d β %v: objective fell from %v to %v", est, v, it.Stage, beta, prev, obj)
					}
					prev = obj
					return nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			if lastBeta != 1 {
				t.Errorf("%s: last β %v, want 1", est, lastBeta)
			}
		}
	}
	// Tempered tables give Σ_B Π θ^β: check against enumeration.
	m := randomModel(rng, c, Model1)
	skew := randomModel(rng, c, Model1)
	const beta = 0.3
	tm := m.Tempered(beta, skew)
	for k := range 5 {
		s := c.Sentences[k]
		got := tm.LogProb(c, k) + bintree.LogCatalan(s.N-1)
		sum := 0.0
		for _, tree := range binaryBracketings(0, s.N) {
			in := map[[2]int]bool{}
			for _, sp := range tree {
				in[sp] = true
			}
			lp := 0.0
			for i := 0; i <= s.N; i++ {
				for j := i; j <= s.N; j++ {
					b := Distituent
					if j-i == 1 || in[[2]int{i, j}] {
						b = Constituent
					}
					y, x := c.Yield[s.Span(i, j)], c.Context[s.Span(i, j)]
					lp += beta*math.Log(m.Span[b][y]*m.Context[b][x]) + (1-beta)*math.Log(skew.Span[b][y]*skew.Context[b][x])
				}
			}
			sum += math.Exp(lp)
		}
		if want := math.Log(sum); relErr(got, want) > 1e-9 {
			t.Errorf("sentence %d: tempered log Σ %v, enumeration %v", k, got, want)
		}
	}
}

// TestEStepSameForWorkers checks that counts do not depend on the number
// of workers, to the bit.
func TestEStepSameForWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	c := randomCorpus(rng, 700, 10, 5)
	m := randomModel(rng, c, Model1)
	one := m.EStep(c, 1)
	for _, w := range []int{2, 3, 8} {
		got := m.EStep(c, w)
		if got.LogLik != one.LogLik || !slices.Equal(got.SpanT, one.SpanT) || !slices.Equal(got.ContextT, one.ContextT) ||
			!slices.Equal(got.SpanN, one.SpanN) || !slices.Equal(got.ContextN, one.ContextN) {
			t.Errorf("%d workers give different counts from one", w)
		}
	}
}

// TestHeldOutCorpus decodes sentences with yields and contexts the model
// never saw: the shared Symbols grow and the model gives the new ids a
// smoothed zero count.
func TestHeldOutCorpus(t *testing.T) {
	train, err := NewCorpus([][]string{{"A", "B"}, {"A", "B", "A"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := Train(train, Options{MaxIter: 3})
	if err != nil {
		t.Fatal(err)
	}
	test, err := NewCorpus([][]string{{"C", "A", "B", "D"}}, train.Sym)
	if err != nil {
		t.Fatal(err)
	}
	post, logP := m.Posteriors(test, 0)
	if math.IsNaN(logP) || math.IsInf(logP, 0) || post[0][4] != 1 {
		t.Fatalf("log P %v, P(0,n) %v", logP, post[0][4])
	}
	if spans, _, _ := m.Parse(test, 0, Viterbi); len(spans) != 3 {
		t.Errorf("Viterbi gave %v, want 3 brackets", spans)
	}
	if len(m.Span[0]) != test.Sym.NumYields() || m.Span[0][test.Sym.NumYields()-1] <= 0 {
		t.Errorf("tables not grown to the new yields")
	}
}

// randomSplitProb is the probability that the random-split process (each
// span of l ≥ 2 tokens split at one of its l − 1 points, uniformly)
// builds the bracketing of [i, j) whose spans of two or more tokens are
// in: Smith & Eisner's §6 skew, from its generative story.
func randomSplitProb(i, j int, in map[[2]int]bool) float64 {
	if j-i == 1 {
		return 1
	}
	for k := i + 1; k < j; k++ {
		if (k-i == 1 || in[[2]int{i, k}]) && (j-k == 1 || in[[2]int{k, j}]) {
			return randomSplitProb(i, k, in) * randomSplitProb(k, j, in) / float64(j-i-1)
		}
	}
	panic("not a binary bracketing")
}

// TestSplitSkewAgainstEnumeration: the random-split skew is a
// distribution over binary trees whose bracket posteriors are the split
// start's, and SplitSkewed's chart gives SDA's posterior q(B) ∝
// P(s,B)^β·p̀(B)^(1−β) and its objective (1/β)·log Σ_B P(s,B)^β·p̀(B)^(1−β)
// (through the E-step's log-likelihood, as Train reads it), against
// enumeration of every binary bracketing for n ≤ 7, in the scaled chart
// and in log space alike; at β = 1 it is EM's.
func TestSplitSkewAgainstEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for n := 1; n <= 8; n++ {
		total := 0.0
		marg := map[[2]int]float64{}
		for _, b := range binaryBracketings(0, n) {
			in := map[[2]int]bool{}
			for _, sp := range b {
				in[sp] = true
			}
			p := randomSplitProb(0, n, in)
			total += p
			for _, sp := range b {
				marg[sp] += p
			}
		}
		split, _ := StartPosteriors(SplitUniform, n)
		if math.Abs(total-1) > 1e-12 {
			t.Errorf("n=%d: the random-split probabilities sum to %v", n, total)
		}
		for sp, p := range marg {
			if relErr(split[sp[0]*(n+1)+sp[1]], p) > 1e-12 {
				t.Errorf("n=%d span %v: split start %v, random-split marginal %v", n, sp, split[sp[0]*(n+1)+sp[1]], p)
			}
		}
	}
	for _, v := range []Variant{Model1, Model2} {
		c := randomCorpus(rng, 30, 7, 3)
		m := randomModel(rng, c, v)
		for _, beta := range []float64{0.05, 0.3, 0.8, 1} {
			sm := m.SplitSkewed(beta)
			for k, s := range c.Sentences {
				trees := binaryBracketings(0, s.N)
				logQ := make([]float64, len(trees))
				z := math.Inf(-1)
				for b, tree := range trees {
					in := map[[2]int]bool{}
					for _, sp := range tree {
						in[sp] = true
					}
					logQ[b] = beta*jointLogProb(m, c, s, tree, len(trees)) + (1-beta)*math.Log(randomSplitProb(0, s.N, in))
					z = logAddTest(z, logQ[b])
				}
				post := map[[2]int]float64{}
				for b, tree := range trees {
					for _, sp := range tree {
						post[sp] += math.Exp(logQ[b] - z)
					}
				}
				logCat := bintree.LogCatalan(s.N - 1)
				var ch chart
				flat := make([]float64, (s.N+1)*(s.N+1))
				logFlat := make([]float64, (s.N+1)*(s.N+1))
				for name, l := range map[string]float64{
					"chart":     sm.sentence(c, s, &ch, flat),
					"log space": sm.logSentence(c, s, &ch, logFlat, false),
				} {
					if obj := (l+logCat)/beta - logCat; relErr(obj, z/beta) > 1e-9 {
						t.Errorf("model %d β %v sentence %d (%s): objective %v, enumeration %v", v, beta, k, name, obj, z/beta)
					}
				}
				for i := 0; i < s.N; i++ {
					for j := i + 2; j <= s.N; j++ {
						want := post[[2]int{i, j}]
						for name, got := range map[string]float64{"chart": flat[i*(s.N+1)+j], "log space": logFlat[i*(s.N+1)+j]} {
							if relErr(got, want) > 1e-9 && math.Abs(got-want) > 1e-15 {
								t.Errorf("model %d β %v sentence %d span (%d,%d) (%s): posterior %v, enumeration %v", v, beta, k, i, j, name, got, want)
							}
						}
					}
				}
			}
			if beta == 1 {
				want, got := m.EStep(c, 1), sm.EStep(c, 1)
				if got.LogLik != want.LogLik || !slices.Equal(got.SpanT, want.SpanT) || !slices.Equal(got.ContextT, want.ContextT) {
					t.Errorf("model %d: the split skew at β = 1 is not EM's E-step", v)
				}
			}
		}
	}
}
