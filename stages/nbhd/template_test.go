package nbhd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grind-nlp/grind/stages/dmv"
)

var templateKinds = []string{Trans1, Del1, Del1OrTrans1, Dynasearch}

// A template's instance spells exactly the strings of its neighbourhood's
// definition, each by one live path, for every tag string up to length 7
// over 3 tags, where equal neighbours make paths collide.
func TestTemplateInstancesSpellTheirDefinition(t *testing.T) {
	for _, kind := range templateKinds {
		for n := 1; n <= 7; n++ {
			tmpl := NewTemplate(kind, n)
			for _, x := range allStrings(n, 3) {
				l := tmpl.Instance(x)
				want, got := naive(kind, x), stringSet{}
				for _, p := range paths(l) {
					if _, twice := got[fmt.Sprint(p)]; twice {
						t.Fatalf("%s %v: string %v is spelled by two live paths", kind, x, p)
					}
					got.add(p)
				}
				if fmt.Sprint(keys(got)) != fmt.Sprint(keys(want)) {
					t.Fatalf("%s %v: instance spells\n%v, the definition\n%v", kind, x, keys(got), keys(want))
				}
			}
		}
	}
}

// An instance, run alone or in the lanes of one chart beside other
// sentences' instances, gives the log Z and expected counts of the
// determinised, minimised lattice Build makes (≤ 1e-9), under log-linear
// weights with and without a distance factor; a lane whose weights no
// scaling can hold is NaN and leaves the others as they were. The
// contrast with the sentence's own path gives the sentence's log Z and
// the counts over the neighbourhood less those over the sentence.
func TestTemplateLanesMatchBuiltLattices(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const tags = 3
	single, lanes, sc := dmv.NewLatticeChart(), dmv.NewLatticeChart(), dmv.NewChart(8)
	for trial := 0; trial < 120; trial++ {
		kind := templateKinds[trial%len(templateKinds)]
		n := 1 + rng.IntN(7)
		w := dmv.NewParams(tags)
		for _, tab := range w.Tables() {
			for i := range tab {
				tab[i] = math.Exp(2 * rng.NormFloat64())
			}
		}
		var dist []float64
		if trial%3 == 0 {
			dist = make([]float64, n+1)
			for d := range dist {
				dist[d] = math.Exp(-0.3 * float64(d))
			}
		}
		tmpl := NewTemplate(kind, n)
		width := 1 + rng.IntN(5)
		var instances []*dmv.Lattice
		var sentences [][]int
		var want []float64
		var wantCounts []*dmv.Params
		for k := 0; k < width; k++ {
			x := make([]int, n)
			for i := range x {
				x[i] = rng.IntN(tags)
			}
			instances = append(instances, tmpl.Instance(x))
			sentences = append(sentences, x)
			built, err := Build(kind, x, tags)
			if err != nil {
				t.Fatal(err)
			}
			single.Load(built, w, dist)
			want = append(want, single.Inside())
			counts := dmv.NewParams(tags)
			single.Outside()
			single.AddCounts(counts, 1)
			wantCounts = append(wantCounts, counts)
		}
		// Alone, lane by lane.
		for k, l := range instances {
			single.Load(l, w, dist)
			got := single.Inside()
			single.Outside()
			counts := dmv.NewParams(tags)
			single.AddCounts(counts, 1)
			checkClose(t, fmt.Sprintf("%s n=%d alone, lane %d", kind, n, k), got, want[k], counts, wantCounts[k])
		}
		// All lanes at once: the sums over the lanes.
		lanes.LoadLanes(instances, w, dist)
		got := lanes.Inside()
		lanes.Outside()
		counts, sumWant, sumCounts := dmv.NewParams(tags), 0.0, dmv.NewParams(tags)
		lanes.AddCounts(counts, 1)
		for k := range instances {
			sumWant += want[k]
			sumCounts.Add(wantCounts[k])
		}
		checkClose(t, fmt.Sprintf("%s n=%d in %d lanes", kind, n, width), got, sumWant, counts, sumCounts)
		if tmpl.Sentence < 0 {
			continue
		}
		// The contrast with the sentence's own path: Σ log Z(x), and the
		// counts over N(x) less those over x.
		lanes.Inside()
		gotZx, _ := lanes.OutsideContrast(tmpl.Sentence)
		contrast := dmv.NewParams(tags)
		lanes.AddCounts(contrast, 1)
		wantZx, wantContrast := 0.0, sumCounts.Clone()
		for k := range instances {
			sc.Load(sentences[k], w, dist)
			wantZx += sc.Inside()
			sc.Outside()
			sc.AddCounts(sentences[k], wantContrast, -1)
		}
		checkClose(t, fmt.Sprintf("%s n=%d contrast", kind, n), gotZx, wantZx, contrast, wantContrast)
	}
}

func checkClose(t *testing.T, what string, logZ, wantLogZ float64, got, want *dmv.Params) {
	t.Helper()
	if e := math.Abs(logZ-wantLogZ) / math.Max(1, math.Abs(wantLogZ)); !(e <= 1e-9) {
		t.Fatalf("%s: log Z %v, want %v", what, logZ, wantLogZ)
	}
	gt, wt := got.Tables(), want.Tables()
	for k := range gt {
		for i := range gt[k] {
			if math.Abs(gt[k][i]-wt[k][i]) > 1e-9*math.Max(1, math.Abs(wt[k][i])) {
				t.Fatalf("%s: table %d entry %d: %v, want %v", what, k, i, gt[k][i], wt[k][i])
			}
		}
	}
}

// A lane whose weights overflow every scale is NaN with no counts, and
// the other lanes are as they would be alone.
func TestTemplateLaneOutOfRange(t *testing.T) {
	const tags = 3
	tmpl := NewTemplate(Del1OrTrans1, 5)
	w := dmv.NewParams(tags)
	for _, tab := range w.Tables() {
		for i := range tab {
			tab[i] = 0.5
		}
	}
	huge := w.Clone()
	huge.Child[huge.ChildIndex(2, dmv.Right, 2)] = math.Inf(1) // read only by sentences with tag 2
	a, b := tmpl.Instance([]int{0, 1, 0, 1, 0}), tmpl.Instance([]int{2, 2, 2, 1, 0})
	alone := dmv.NewLatticeChart()
	alone.Load(a, huge, nil)
	want := alone.Inside()
	alone.Outside()
	wantCounts := dmv.NewParams(tags)
	alone.AddCounts(wantCounts, 1)

	lanes := dmv.NewLatticeChart()
	lanes.LoadLanes([]*dmv.Lattice{a, b}, huge, nil)
	if got := lanes.Inside(); !math.IsNaN(got) {
		t.Fatalf("log Z with an infinite weight in lane 1: %v, want NaN", got)
	}
	if lanes.Outside() {
		t.Fatal("Outside reports every lane usable")
	}
	counts := dmv.NewParams(tags)
	lanes.AddCounts(counts, 1)
	checkClose(t, "lane 0 beside an unusable lane", want, want, counts, wantCounts)
}

// Under weights far outside what training ends at (those a line search
// may try: potentials e^±90 and beyond), the lattice either gives the
// log Z that charting every neighbour gives or no number: never a
// number that has lost strings of one length to underflow.
func TestTemplateExtremeWeightsMatchEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const tags = 8
	lc, sc := dmv.NewLatticeChart(), dmv.NewChart(12)
	for trial := 0; trial < 300; trial++ {
		kind := templateKinds[trial%len(templateKinds)]
		spread := []float64{10, 30, 60}[trial%3]
		w := dmv.NewParams(tags)
		for _, tab := range w.Tables() {
			for i := range tab {
				tab[i] = math.Exp(spread * rng.NormFloat64())
			}
		}
		x := make([]int, 2+rng.IntN(9))
		for i := range x {
			x[i] = rng.IntN(tags)
		}
		lc.Load(NewTemplate(kind, len(x)).Instance(x), w, nil)
		got := lc.Inside()
		want := math.Inf(-1)
		for _, y := range naive(kind, x) {
			if len(y) > 0 {
				sc.Load(y, w, nil)
				z := sc.Inside()
				want = math.Max(want, z) + math.Log1p(math.Exp(-math.Abs(want-z)))
			}
		}
		if !math.IsNaN(got) && math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Fatalf("%s of %v, weights e^(%v·N(0,1)): lattice log Z %v, over the neighbours %v", kind, x, spread, got, want)
		}
	}
}
