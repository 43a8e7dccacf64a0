package hmm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grind-nlp/grind/internal/vec8"
)

// withKernel runs fn with the E-step's dense kernel set to k ("": fb.go's
// alone); the plain-Go vectors of a build without GOEXPERIMENT=simd are a
// kernel here too, so every build tests the kernel's arithmetic.
func withKernel(t testing.TB, k string, fn func()) {
	t.Helper()
	if k != "" && !vec8.Runs() {
		t.Skip("this machine cannot run the " + k + " kernel")
	}
	old := kernel
	kernel = k
	defer func() { kernel = old }()
	fn()
}

// TestDenseKernelAgainstEnumeration checks the vector kernel's log Z,
// expected counts and posteriors against enumeration of all taggings, for
// bitag K from 1 to 95 (0 to 7 padding states; every mix of the kernels'
// blocks of 6, 4, 2 and 1 vectors), trigram K from 1 to 48 (K+1 padded
// too: 7, 15 and 47 fill their last vector of previous states, 8, 16 and
// 48 need one more), sentences of 1 to 5 tokens.
func TestDenseKernelAgainstEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 3))
	withKernel(t, vec8.Kernel, func() {
		var fb FB
		var d denseModel
		for _, c := range []struct{ order, k int }{
			{1, 1}, {1, 3}, {1, 8}, {1, 9}, {1, 17}, {1, 24}, {1, 33}, {1, 45}, {1, 50}, {1, 57}, {1, 81}, {1, 95},
			{2, 1}, {2, 3}, {2, 7}, {2, 8}, {2, 15}, {2, 16}, {2, 17}, {2, 47}, {2, 48},
		} {
			k := c.k
			for n := 1; n <= 5 && math.Pow(float64(k), float64(n)) <= 1e5; n++ {
				v := 4
				p := randomParams(rng, c.order, k, v, false)
				words := make([]int32, n)
				for i := range words {
					words[i] = int32(rng.IntN(v))
				}
				z, want, wantGamma, _, _ := bruteForce(p, words)
				acc := &Accum{Trans: make([]float64, len(p.Trans)), Emit: make([]float64, len(p.Emit))}
				gamma := make([]float64, n*k)
				logZ := fb.sentence(p, denseFor(p, &d), words, acc, words, gamma)
				acc.FinishTrans(p)
				checkEnumerated(t, fmt.Sprintf("order %d, K %d, n %d", c.order, k, n), logZ, acc, gamma, z, want, wantGamma)
			}
		}
	})
}

// TestDenseKernelMatches: the vector kernel's E-step over a corpus (bitag
// K = 45 and 17, trigram K = 17 and 8; under a noisy start and after two
// EM iterations) gives the counts and log-likelihood of fb.go's within
// 1e-12 relative.
func TestDenseKernelMatches(t *testing.T) {
	c := sampledCorpus(t, 200, 6, 40, 5)
	for _, shape := range []struct{ order, k int }{{1, 45}, {1, 17}, {2, 17}, {2, 8}} {
		s, _ := NewSpace(shape.order, shape.k, len(c.Words), nil)
		p := s.NoisyUniform(0.5, 3)
		for iter := range 3 {
			var res [2]EStepResult
			for j, kern := range []string{"", vec8.Kernel} {
				withKernel(t, kern, func() { res[j] = NewEStepper(c, s, 1+j).Run(p) })
			}
			worst := math.Abs(res[0].LogLik-res[1].LogLik) / math.Abs(res[0].LogLik)
			for _, pair := range [][2][]float64{{res[0].Counts.Trans, res[1].Counts.Trans}, {res[0].Counts.Emit, res[1].Counts.Emit}} {
				for i, a := range pair[0] {
					if d := math.Abs(a - pair[1][i]); d > 0 {
						worst = max(worst, d/math.Max(math.Abs(a), math.Abs(pair[1][i])))
					}
				}
			}
			if worst > 1e-12 {
				t.Fatalf("order %d, K %d, iteration %d: the %s kernel's E-step differs from fb.go's by %g relative", shape.order, shape.k, iter, vec8.Kernel, worst)
			}
			t.Logf("order %d, K %d, iteration %d: within %.2g relative", shape.order, shape.k, iter, worst)
			p = s.Normalize(res[0].Counts, 0)
		}
	}
}
