package nbhd

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/dmv"
)

// The naive enumerator: each neighbourhood straight from its definition,
// as a set of strings.

type stringSet map[string][]int

func (s stringSet) add(x []int) { s[fmt.Sprint(x)] = append([]int(nil), x...) }

func swapped(x []int, i int) []int {
	y := slices.Clone(x)
	y[i], y[i+1] = y[i+1], y[i]
	return y
}

func naiveTrans1(x []int) stringSet {
	s := stringSet{}
	s.add(x)
	for i := 0; i+1 < len(x); i++ {
		s.add(swapped(x, i))
	}
	return s
}

func naiveDel1(x []int) stringSet {
	s := stringSet{}
	s.add(x)
	for i := range x {
		s.add(append(slices.Clone(x[:i]), x[i+1:]...))
	}
	return s
}

func naiveDynasearch(x []int) stringSet {
	s := stringSet{}
	var walk func(i int, y []int)
	walk = func(i int, y []int) {
		if i >= len(x)-1 {
			s.add(y)
			return
		}
		walk(i+1, y)
		walk(i+2, swapped(y, i))
	}
	walk(0, slices.Clone(x))
	return s
}

func naiveTrans2(x []int) stringSet {
	s := stringSet{}
	for _, y := range naiveTrans1(x) {
		for _, z := range naiveTrans1(y) {
			s.add(z)
		}
	}
	return s
}

func naiveDel1Subseq(x []int) stringSet {
	s := stringSet{}
	s.add(x)
	n := len(x)
	for i := 0; i < n; i++ {
		for j := i + 1; j <= n; j++ {
			if i == 0 && j == n {
				continue
			}
			s.add(append(slices.Clone(x[:i]), x[j:]...))
		}
	}
	return s
}

func unionOf(a, b stringSet) stringSet {
	s := stringSet{}
	for _, x := range a {
		s.add(x)
	}
	for _, x := range b {
		s.add(x)
	}
	return s
}

func naive(kind string, x []int) stringSet {
	switch kind {
	case Trans1:
		return naiveTrans1(x)
	case Del1:
		return naiveDel1(x)
	case Del1OrTrans1:
		return unionOf(naiveDel1(x), naiveTrans1(x))
	case Dynasearch:
		return naiveDynasearch(x)
	case Trans2:
		return naiveTrans2(x)
	case Del1OrTrans2:
		return unionOf(naiveDel1(x), naiveTrans2(x))
	case Del1Subseq:
		return naiveDel1Subseq(x)
	}
	panic(kind)
}

// paths lists the string of every path from the start to a final state
// that uses no dead arc.
func paths(l *dmv.Lattice) [][]int {
	var out [][]int
	var walk func(s int, prefix []int)
	walk = func(s int, prefix []int) {
		if l.Final[s] {
			out = append(out, slices.Clone(prefix))
		}
		for i, a := range l.Arcs {
			if a.From == s && (l.Dead == nil || !l.Dead[i]) {
				walk(a.To, append(prefix, a.Tag))
			}
		}
	}
	walk(0, nil)
	return out
}

// countPaths counts the strings of the lattice by dynamic programming,
// without listing them.
func countPaths(l *dmv.Lattice) *big.Int {
	ways := make([]big.Int, l.States())
	ways[0].SetInt64(1)
	total := new(big.Int)
	for _, a := range l.Arcs { // sorted by source, states by depth
		ways[a.To].Add(&ways[a.To], &ways[a.From])
	}
	for s, f := range l.Final {
		if f {
			total.Add(total, &ways[s])
		}
	}
	return total
}

func allStrings(n, k int) [][]int {
	if n == 0 {
		return [][]int{nil}
	}
	var out [][]int
	for _, s := range allStrings(n-1, k) {
		for a := 0; a < k; a++ {
			out = append(out, append(slices.Clone(s), a))
		}
	}
	return out
}

func checkLattice(t *testing.T, kind string, x []int, tags int) *dmv.Lattice {
	t.Helper()
	l, err := Build(kind, x, tags)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Check(tags); err != nil {
		t.Fatalf("%s %v: %v", kind, x, err)
	}
	want := naive(kind, x)
	got := stringSet{}
	for _, p := range paths(l) {
		if _, twice := got[fmt.Sprint(p)]; twice {
			t.Fatalf("%s %v: string %v is spelled by two paths", kind, x, p)
		}
		got.add(p)
	}
	if len(got) != len(want) {
		t.Fatalf("%s %v: lattice spells %d strings, the definition %d:\n%v\n%v", kind, x, len(got), len(want), keys(got), keys(want))
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			t.Fatalf("%s %v: lattice lacks %s", kind, x, k)
		}
	}
	return l
}

func keys(s stringSet) []string {
	var k []string
	for key := range s {
		k = append(k, key)
	}
	slices.Sort(k)
	return k
}

// Every neighbourhood of every tag string up to length 7 over 3 tags,
// where swaps and deletions collide, spells exactly the strings of its
// definition, each once.
func TestNeighbourhoodsSpellTheirDefinition(t *testing.T) {
	for _, kind := range Kinds {
		if kind == Length {
			continue
		}
		t.Run(kind, func(t *testing.T) {
			for n := 1; n <= 7; n++ {
				for _, x := range allStrings(n, 3) {
					checkLattice(t, kind, x, 3)
				}
			}
		})
	}
}

func TestNeighbourhoodSizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	fib := []int{0, 1}
	for len(fib) < 20 {
		fib = append(fib, fib[len(fib)-1]+fib[len(fib)-2])
	}
	for n := 1; n <= 12; n++ {
		// No two adjacent tags equal (over 3 tags).
		x := make([]int, n)
		for i := range x {
			x[i] = rng.IntN(3)
			for i > 0 && x[i] == x[i-1] {
				x[i] = rng.IntN(3)
			}
		}
		for kind, want := range map[string]int{Trans1: n, Del1: n + 1} {
			l, _ := Build(kind, x, 3)
			if got := countPaths(l); got.Cmp(big.NewInt(int64(want))) != 0 {
				t.Errorf("%s of %v: %v strings, want %d", kind, x, got, want)
			}
		}
		// All tags distinct.
		distinct := rng.Perm(n)
		l, _ := Build(Dynasearch, distinct, n)
		if got := countPaths(l); got.Cmp(big.NewInt(int64(fib[n+1]))) != 0 {
			t.Errorf("dynasearch of %v: %v strings, want F(%d) = %d", distinct, got, n+1, fib[n+1])
		}
		for _, sigma := range []int{1, 3, 45} {
			l, _ := Build(Length, x, sigma)
			want := new(big.Int).Exp(big.NewInt(int64(sigma)), big.NewInt(int64(n)), nil)
			if got := countPaths(l); got.Cmp(want) != 0 {
				t.Errorf("length %d over %d tags: %v strings, want %v", n, sigma, got, want)
			}
		}
	}
}

// The DMV over a neighbourhood's lattice sums the sentence's DMV over the
// neighbours the naive enumerator lists: log Z and expected counts.
func TestLatticeInsideIsSumOverNeighbours(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	lc, sc := dmv.NewLatticeChart(), dmv.NewChart(8)
	for trial := 0; trial < 150; trial++ {
		const tags = 3
		w := dmv.NewParams(tags)
		for _, tab := range w.Tables() {
			for i := range tab {
				tab[i] = math.Exp(rng.NormFloat64()) // log-linear weights: any positive potentials
			}
		}
		kind := Kinds[trial%len(Kinds)]
		x := make([]int, 1+rng.IntN(6))
		for i := range x {
			x[i] = rng.IntN(tags)
		}
		var dist []float64
		if trial%2 == 0 {
			dist = make([]float64, len(x)+1)
			for d := range dist {
				dist[d] = math.Exp(-0.2 * float64(d))
			}
		}
		l, err := Build(kind, x, tags)
		if err != nil {
			t.Fatal(err)
		}
		var strs [][]int
		if kind == Length {
			strs = allStrings(len(x), tags)
		} else {
			for _, y := range naive(kind, x) {
				strs = append(strs, y)
			}
		}
		slices.SortFunc(strs, slices.Compare)
		wantZ, wantCounts := 0.0, dmv.NewParams(tags)
		for _, y := range strs {
			if len(y) == 0 {
				continue // no tree
			}
			sc.Load(y, w, dist)
			z := math.Exp(sc.Inside())
			sc.Outside()
			sc.AddCounts(y, wantCounts, z)
			wantZ += z
		}
		lc.Load(l, w, dist)
		logZ := lc.Inside()
		if e := math.Abs(logZ-math.Log(wantZ)) / math.Abs(math.Log(wantZ)); e > 1e-9 {
			t.Fatalf("%s of %v: lattice log Z %v, over %d neighbours %v", kind, x, logZ, len(strs), math.Log(wantZ))
		}
		lc.Outside()
		got := dmv.NewParams(tags)
		lc.AddCounts(got, 1)
		gt, wt := got.Tables(), wantCounts.Tables()
		for k := range gt {
			for i := range gt[k] {
				if want := wt[k][i] / wantZ; math.Abs(gt[k][i]-want) > 1e-9*math.Max(1, want) {
					t.Fatalf("%s of %v: table %d entry %d: %v, over neighbours %v", kind, x, k, i, gt[k][i], want)
				}
			}
		}
	}
}

func TestRecordRoundTrip(t *testing.T) {
	ts := dmv.NewTagSet("DT", "NN", "VBD")
	s := &format.Sentence{ID: "s1", Tags: []string{"DT", "NN", "VBD", "NN"}}
	x, _ := ts.Encode(s.Tags, nil)
	for _, kind := range Kinds {
		l, _ := Build(kind, x, ts.Len())
		rec := ToRecord(l, ts, s, kind)
		if err := rec.Validate(); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		b, _ := format.Marshal(rec)
		var back format.Lattice
		if err := format.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		l2, err := FromRecord(&back, ts)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(l2) != fmt.Sprint(l) {
			t.Fatalf("%s: lattice changed through its record:\n%v\n%v", kind, l, l2)
		}
	}
	// A record need not be layered or minimal: here two states are reached
	// by strings of two lengths and the string "DT NN" is at the end of
	// both branches.
	rec := &format.Lattice{Tags: []string{"DT"}, States: 4, Start: 0, Final: []int{3},
		Arcs: []format.Arc{{From: 0, To: 1, Tag: "DT"}, {From: 0, To: 2, Tag: "NN"}, {From: 1, To: 2, Tag: "VBD"}, {From: 2, To: 3, Tag: "DT"}}}
	l, err := FromRecord(rec, ts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range paths(l) {
		var names []string
		for _, tag := range p {
			names = append(names, ts.Name(tag))
		}
		got = append(got, strings.Join(names, " "))
	}
	slices.Sort(got)
	if want := []string{"DT VBD DT", "NN DT"}; !slices.Equal(got, want) {
		t.Fatalf("strings %q, want %q", got, want)
	}
	if err := l.Check(ts.Len()); err != nil {
		t.Fatal(err)
	}
	rec.Arcs[0].Tag = "JJ"
	if _, err := FromRecord(rec, ts); err == nil || !strings.Contains(err.Error(), `"JJ"`) {
		t.Fatalf("unknown tag: %v", err)
	}
}

func TestBuildErrors(t *testing.T) {
	if _, err := Build("swap3", []int{0}, 1); err == nil {
		t.Fatal("unknown kind accepted")
	}
	if _, err := Build(Trans1, nil, 1); err == nil {
		t.Fatal("empty sentence accepted")
	}
}
