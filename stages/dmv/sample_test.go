package dmv

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// sampleModel is a two-tag model (A, B) in which every sentence ends:
// each head takes at most one child per side, with probability ½.
func sampleModel() *Params {
	p := NewParams(2)
	p.Root[0], p.Root[1] = 0.5, 0.5
	for h := 0; h < 2; h++ {
		for dir := Left; dir <= Right; dir++ {
			p.Stop[DecisionIndex(h, dir, Adj)], p.Cont[DecisionIndex(h, dir, Adj)] = 0.5, 0.5
			p.Stop[DecisionIndex(h, dir, NonAdj)] = 1
			p.Child[p.ChildIndex(h, dir, 0)], p.Child[p.ChildIndex(h, dir, 1)] = 0.5, 0.5
		}
	}
	return p
}

// Models that cannot give a finite sentence are refused with the
// multinomial at fault named; tags that never occur do not count.
func TestCheckSampleable(t *testing.T) {
	name := func(t int) string { return string(rune('A' + t)) }
	if err := CheckSampleable(sampleModel(), name); err != nil {
		t.Fatalf("a sound model refused: %v", err)
	}
	cases := []struct {
		breakIt func(p *Params)
		want    string
	}{
		{func(p *Params) {
			p.Stop[DecisionIndex(1, Right, NonAdj)], p.Cont[DecisionIndex(1, Right, NonAdj)] = 0, 1
		},
			"stop(B, right, adj=false) is 0 and cont is 1: sentences never end"},
		{func(p *Params) { p.Stop[DecisionIndex(0, Left, Adj)], p.Cont[DecisionIndex(0, Left, Adj)] = 0, 0 },
			"stop(A, left, adj=true) and cont(A, left, adj=true) are both 0"},
		{func(p *Params) { p.Child[p.ChildIndex(0, Right, 0)], p.Child[p.ChildIndex(0, Right, 1)] = 0, 0 },
			"cont(A, right, adj=true) is 0.5 but child(A, right, ·) is 0 everywhere"},
		{func(p *Params) { p.Root[0], p.Root[1] = 0, 0 }, "root(·) is 0 everywhere"},
	}
	for _, c := range cases {
		p := sampleModel()
		c.breakIt(p)
		if err := CheckSampleable(p, name); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
	// B never occurs (no root, no child): its endless stop is harmless.
	p := sampleModel()
	p.Root[0], p.Root[1] = 1, 0
	for dir := Left; dir <= Right; dir++ {
		p.Child[p.ChildIndex(0, dir, 0)], p.Child[p.ChildIndex(0, dir, 1)] = 1, 0
	}
	p.Stop[DecisionIndex(1, Right, NonAdj)], p.Cont[DecisionIndex(1, Right, NonAdj)] = 0, 1
	if err := CheckSampleable(p, name); err != nil {
		t.Fatalf("a tag that never occurs makes the model refused: %v", err)
	}
}

// A model that rarely stops (each head takes children on and on) gives
// up at maxLen rather than running away.
func TestSampleStopsAtMaxLen(t *testing.T) {
	p := sampleModel()
	for i := range p.Stop {
		p.Stop[i], p.Cont[i] = 0.01, 0.99
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for k := 0; k < 20; k++ {
		if tags, _, ok := Sample(rng, p, 50); ok && len(tags) > 50 {
			t.Fatalf("a sentence of %d tags over a bound of 50", len(tags))
		}
	}
}
