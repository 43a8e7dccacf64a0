package dmv

import (
	"math/rand/v2"
	"testing"
)

// Each lane of the bounded lanes is BoundedChart: log Z and every
// posterior bit for bit (where the arithmetic is exact: no fused
// multiply-adds), for bounds deep and shallow, chunks short and long,
// with distance factors, attachment factors and weights whose Z leaves
// the range (those lanes are the scalar chart's to settle).
func TestBoundedLanesAreTheScalarChart(t *testing.T) {
	if testedKernel() == "" {
		t.Skip("no lane kernel on this machine")
	}
	rng := rand.New(rand.NewPCG(25, 30))
	exact := exactArithmetic()
	var p laneChart
	var lc boundedLanes
	var tab laneTables
	bounds := []DepthBound{{1, 1}, {1, 3}, {2, 1}, {2, 2}, {3, 2}, {1, 6}, {4, 30}}
	for trial := range 140 {
		bound := bounds[trial%len(bounds)]
		sc := NewBoundedChart(bound, 20)
		n, size := 1+rng.IntN(20), 1+rng.IntN(lanes)
		w := randomWeights(rng, 6, trial%2 == 0)
		sents, factors, dist := loadTrialBatch(rng, &p, &tab, w, n, size, trial)
		lc.grow(bound, n)
		lc.setLength(n)
		lc.inside(&p)
		lc.outside(&p)
		compared := 0
		for l, tags := range sents {
			if f := factors[l]; f != nil {
				sc.LoadFactored(tags, w, dist, f[:n*n], f[n*n:])
			} else {
				sc.Load(tags, w, dist)
			}
			logZ := sc.Inside()
			got, ok := p.logZ(l)
			if !ok {
				continue // the scalar chart's to settle
			}
			if !sc.Outside() || !p.usable(l) {
				t.Fatalf("trial %d, lane %d: posteriors usable: scalar %v, lanes %v", trial, l, sc.Outside(), p.usable(l))
			}
			compared++
			same := func(what string, i int, x, y float64) {
				if exact && x != y || relErr(x, y) > 1e-13 {
					t.Fatalf("trial %d (n=%d, bound %+v), lane %d: %s %d: %v on the lanes, %v on the scalar chart", trial, n, bound, l, what, i, x, y)
				}
			}
			same("log Z", 0, got, logZ)
			c := sc.pot
			for i := range n * n {
				same("edge posterior", i, p.edgePost[i][l], c.edgePost[i])
			}
			for i := range n {
				same("root posterior", i, p.rootPost[i][l], c.rootPost[i])
			}
			for i := range 4 * n {
				same("stop posterior", i, p.dec[i].stopPost[l], c.stopPost[i])
				same("cont posterior", i, p.dec[i].contPost[l], c.contPost[i])
			}
		}
		if trial%3 != 2 && compared == 0 {
			t.Fatalf("trial %d: no lane compared", trial)
		}
	}
}

// The bounded E-step on the lanes gives the scalar chart's counts and
// log-likelihood within 1e-12 relative (only the sentences' order in the
// sums differs), the same bytes for any number of workers, and sentences
// too long for the lanes' tables go to the scalar chart.
func TestBoundedLanesMatchScalarEStep(t *testing.T) {
	if testedKernel() == "" {
		t.Skip("no lane kernel on this machine")
	}
	rng := rand.New(rand.NewPCG(25, 31))
	for trial, bound := range []DepthBound{{1, 3}, {2, 1}, {3, 2}, {2, 4}} {
		c := mixedLengths(rng, 200+rng.IntN(100), 20, 8)
		if trial == 3 {
			c = mixedLengths(rng, 60, boundedLaneLen(bound)+3, 8) // some beyond the lanes
		}
		w := randomWeights(rng, 8, true)
		for name, opts := range eStepCases(rng) {
			opts.Bound = bound
			var first EStepResult
			for _, workers := range []int{1, 3} {
				opts.Workers = workers
				lanes := withKernel(testedKernel(), c, w, opts)
				if workers == 1 {
					first = lanes
					scalar := withKernel("", c, w, opts)
					if d := maxRelDiff(lanes, scalar); d > 1e-12 || lanes.Unusable != scalar.Unusable || lanes.ZeroWeight != scalar.ZeroWeight {
						t.Fatalf("bound %+v, %s: lanes and scalar chart differ by %g (unusable %d, %d)", bound, name, d, lanes.Unusable, scalar.Unusable)
					}
					continue
				}
				if d := maxRelDiff(lanes, first); d != 0 {
					t.Fatalf("bound %+v, %s: %d workers differ from 1 by %g", bound, name, workers, d)
				}
			}
		}
	}
}
