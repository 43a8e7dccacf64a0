package dmv_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/nbhd"
)

// The lattice chart's lane loops give the same bits in vectors as in
// plain loops — log Z, the contrast with the sentence's own path and
// every expected count — for lane counts that fill vectors, leave a
// remainder or fill none, with and without a distance factor. (Where the
// build or the machine has no vectors both runs are the plain loops.)
func TestLatticeLanesVectorsAreThePlainLoops(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const tags = 5
	kinds := []string{nbhd.Trans1, nbhd.Del1, nbhd.Del1OrTrans1, nbhd.Dynasearch}
	for trial := 0; trial < 40; trial++ {
		kind, n := kinds[trial%len(kinds)], 2+rng.IntN(9)
		width := []int{2, 7, 8, 13, 16, 21, 32}[trial%7]
		w := dmv.NewParams(tags)
		for _, tab := range w.Tables() {
			for i := range tab {
				tab[i] = math.Exp(3 * rng.NormFloat64())
			}
		}
		var dist []float64
		if trial%2 == 0 {
			dist = dmv.DistanceFactors(-0.4, n+1)
		}
		tmpl := nbhd.NewTemplate(kind, n)
		ls := make([]*dmv.Lattice, width)
		for k := range ls {
			x := make([]int, n)
			for i := range x {
				x[i] = rng.IntN(tags)
			}
			ls[k] = tmpl.Instance(x)
		}
		run := func(vectors bool) (logZ, logZx uint64, counts, contrast *dmv.Params) {
			defer dmv.SetLaneVectors(vectors)()
			c := dmv.NewLatticeChart()
			c.LoadLanes(ls, w, dist)
			logZ = math.Float64bits(c.Inside())
			c.Outside()
			counts = dmv.NewParams(tags)
			c.AddCounts(counts, 1)
			contrast = dmv.NewParams(tags)
			if tmpl.Sentence >= 0 {
				c.Inside()
				zx, _ := c.OutsideContrast(tmpl.Sentence)
				logZx = math.Float64bits(zx)
				c.AddCounts(contrast, 1)
			}
			return
		}
		what := fmt.Sprintf("%s n=%d, %d lanes", kind, n, width)
		z0, zx0, c0, k0 := run(false)
		z1, zx1, c1, k1 := run(true)
		if z0 != z1 || zx0 != zx1 {
			t.Fatalf("%s: log Z %v / %v in vectors, %v / %v in plain loops", what,
				math.Float64frombits(z1), math.Float64frombits(zx1), math.Float64frombits(z0), math.Float64frombits(zx0))
		}
		for _, p := range [][2]*dmv.Params{{c0, c1}, {k0, k1}} {
			for ti, tab := range p[0].Tables() {
				for i, x := range tab {
					if y := p[1].Tables()[ti][i]; math.Float64bits(x) != math.Float64bits(y) {
						t.Fatalf("%s: count %d of table %d is %v in vectors, %v in plain loops", what, i, ti, y, x)
					}
				}
			}
		}
	}
}
