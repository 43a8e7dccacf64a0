package hmm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// bruteForce enumerates every tagging of words and returns Z, the
// expected counts (as an Accum with rows = words), the posteriors and the
// best tagging with its weight.
func bruteForce(p *Params, words []int32) (z float64, acc *Accum, gamma []float64, best []int, bestW float64) {
	k, k1, n := p.K, p.K+1, len(words)
	acc = &Accum{Trans: make([]float64, len(p.Trans)), Emit: make([]float64, len(p.Emit))}
	gamma = make([]float64, n*k)
	y := make([]int, n)
	bestW = -1
	var walk func(i int)
	walk = func(i int) {
		if i < n {
			for t := 0; t < k; t++ {
				y[i] = t
				walk(i + 1)
			}
			return
		}
		w := 1.0
		var evs []int
		prev2, prev1 := k, k
		for j := 0; j <= n; j++ {
			next := k
			if j < n {
				next = y[j]
			}
			ix := p.Context(prev2, prev1)*k1 + next
			w *= p.Trans[ix]
			evs = append(evs, ix)
			if j < n {
				w *= p.Emit[int(words[j])*k+y[j]]
			}
			prev2, prev1 = prev1, next
		}
		z += w
		for _, ix := range evs {
			acc.Trans[ix] += w
		}
		for j := 0; j < n; j++ {
			acc.Emit[int(words[j])*k+y[j]] += w
			gamma[j*k+y[j]] += w
		}
		if w > bestW {
			bestW = w
			best = append(best[:0], y...)
		}
	}
	walk(0)
	for i := range acc.Trans {
		acc.Trans[i] /= z
	}
	for i := range acc.Emit {
		acc.Emit[i] /= z
	}
	for i := range gamma {
		gamma[i] /= z
	}
	return
}

func randomParams(rng *rand.Rand, order, k, v int, dict bool) *Params {
	var allowed []bool
	if dict {
		allowed = make([]bool, v*k)
		for w := 0; w < v; w++ {
			allowed[w*k+rng.IntN(k)] = true
			for t := 0; t < k; t++ {
				if rng.Float64() < 0.5 {
					allowed[w*k+t] = true
				}
			}
		}
	}
	s, err := NewSpace(order, k, v, allowed)
	if err != nil {
		panic(err)
	}
	c := NewParams(s)
	for i := range c.Trans {
		c.Trans[i] = rng.Float64() * 3
	}
	for i := range c.Emit {
		c.Emit[i] = rng.Float64() * 3
	}
	p := s.Normalize(c, 0.1)
	if rng.IntN(2) == 0 {
		p = Anneal(p, 0.3+rng.Float64(), nil) // unnormalised weights
	}
	return p
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(a), math.Abs(b)) }

// checkEnumerated fails t, saying where, at the first of log Z, the
// expected counts and the posteriors that is not near the enumeration's
// (bruteForce's z, want and wantGamma).
func checkEnumerated(t *testing.T, where string, logZ float64, acc *Accum, gamma []float64, z float64, want *Accum, wantGamma []float64) {
	t.Helper()
	if !near(logZ, math.Log(z)) {
		t.Fatalf("%s: log Z %v, enumeration %v", where, logZ, math.Log(z))
	}
	for i := range want.Trans {
		if !near(acc.Trans[i], want.Trans[i]) {
			t.Fatalf("%s: transition count %d = %v, enumeration %v", where, i, acc.Trans[i], want.Trans[i])
		}
	}
	for i := range want.Emit {
		if !near(acc.Emit[i], want.Emit[i]) {
			t.Fatalf("%s: emission count %d = %v, enumeration %v", where, i, acc.Emit[i], want.Emit[i])
		}
	}
	for i := range wantGamma {
		if !near(gamma[i], wantGamma[i]) {
			t.Fatalf("%s: posterior %d = %v, enumeration %v", where, i, gamma[i], wantGamma[i])
		}
	}
}

// TestForwardBackwardAgainstEnumeration checks log Z, every expected
// count, the posteriors and both decoders against enumeration of all
// taggings (n ≤ 6, K ≤ 3, bitag and trigram).
func TestForwardBackwardAgainstEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var fb FB
	for trial := 0; trial < 120; trial++ {
		order := 1 + trial%2
		k := 1 + rng.IntN(3)
		v := 2 + rng.IntN(3)
		n := 1 + rng.IntN(6)
		p := randomParams(rng, order, k, v, trial%3 == 0)
		words := make([]int32, n)
		for i := range words {
			words[i] = int32(rng.IntN(v))
		}
		z, want, wantGamma, best, bestW := bruteForce(p, words)
		acc := &Accum{Trans: make([]float64, len(p.Trans)), Emit: make([]float64, len(p.Emit))}
		gamma := make([]float64, n*k)
		logZ := fb.Sentence(p, words, acc, words, gamma)
		acc.FinishTrans(p)
		if z == 0 {
			if !math.IsInf(logZ, -1) {
				t.Fatalf("trial %d: Z = 0 but log Z = %v", trial, logZ)
			}
			continue
		}
		checkEnumerated(t, fmt.Sprintf("trial %d (order %d, K %d, n %d)", trial, order, k, n), logZ, acc, gamma, z, want, wantGamma)
		tags := make([]int, n)
		lw := fb.Viterbi(p, words, tags)
		if !near(lw, math.Log(bestW)) {
			t.Fatalf("trial %d (order %d): Viterbi log weight %v, enumeration %v", trial, order, lw, math.Log(bestW))
		}
		for i := range tags {
			if tags[i] != best[i] {
				t.Fatalf("trial %d (order %d): Viterbi %v, enumeration %v", trial, order, tags, best)
			}
		}
		fb.Posterior(p, words, tags, gamma)
		for i := 0; i < n; i++ {
			for s := 0; s < k; s++ {
				if wantGamma[i*k+s] > wantGamma[i*k+tags[i]]+1e-12 {
					t.Fatalf("trial %d: posterior decoding chose %d at %d, state %d is more probable", trial, tags[i], i, s)
				}
			}
		}
	}
}

// TestLongSentenceFinite: a 2,000-token sentence has a finite log Z.
func TestLongSentenceFinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for order := 1; order <= 2; order++ {
		p := randomParams(rng, order, 5, 50, false)
		words := make([]int32, 2000)
		for i := range words {
			words[i] = int32(rng.IntN(50))
		}
		var fb FB
		acc := &Accum{Trans: make([]float64, len(p.Trans)), Emit: make([]float64, len(p.Emit))}
		logZ := fb.Sentence(p, words, acc, words, nil)
		if math.IsInf(logZ, 0) || math.IsNaN(logZ) || logZ > -1000 {
			t.Fatalf("order %d: log Z = %v", order, logZ)
		}
		tot := 0.0
		for _, v := range acc.Emit {
			tot += v
		}
		if math.Abs(tot-2000) > 1e-6 {
			t.Fatalf("order %d: emission counts sum to %v, want 2000", order, tot)
		}
		tags := make([]int, len(words))
		if lw := fb.Viterbi(p, words, tags); math.IsInf(lw, 0) || lw > logZ {
			t.Fatalf("order %d: Viterbi log weight %v, log Z %v", order, lw, logZ)
		}
	}
}
