package hmm

import (
	"math"
	"testing"

	"github.com/grind-nlp/grind/format"
)

func TestBuildDict(t *testing.T) {
	recs := []*format.Sentence{
		{Words: []string{"the", "can", "rusts"}, Tags: []string{"DT", "NN", "VBZ"}},
		{Words: []string{"we", "can"}, Tags: []string{"PRP", "MD"}, GoldTags: []string{"PRP", "MD"}},
		{Words: []string{"the", "dog"}, Tags: []string{"s1", "s2"}, GoldTags: []string{"DT", "NN"}},
	}
	c, err := NewCorpus(recs)
	if err != nil {
		t.Fatal(err)
	}
	allowed := func(d *Dict, word string) []string {
		var tags []string
		w := c.index[word]
		for i, tag := range d.Tags {
			if d.Allowed[int(w)*len(d.Tags)+i] {
				tags = append(tags, tag)
			}
		}
		return tags
	}
	full, err := BuildDict(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := full.Tags; len(got) != 5 || got[0] != "DT" || got[4] != "VBZ" {
		t.Fatalf("tags %v (gold_tags must win over tags)", got)
	}
	if got := allowed(full, "can"); len(got) != 2 || got[0] != "MD" || got[1] != "NN" {
		t.Errorf("full: can → %v", got)
	}
	if !full.Ambiguous[c.index["can"]] || full.Ambiguous[c.index["the"]] {
		t.Errorf("ambiguity %v", full.Ambiguous)
	}
	// Seen ≥ 2 times: "the" and "can" are restricted, "dog" may be anything.
	two, _ := BuildDict(c, 2)
	if got := allowed(two, "dog"); len(got) != 5 {
		t.Errorf("≥2: dog → %v", got)
	}
	if got := allowed(two, "the"); len(got) != 1 || got[0] != "DT" {
		t.Errorf("≥2: the → %v", got)
	}
}

// TestNormalizeSupport: rows sum to one over their support, the start
// never stops, forbidden emissions stay zero, and VB rows sum below one.
func TestNormalizeSupport(t *testing.T) {
	s, _ := NewSpace(2, 2, 3, []bool{true, false, true, true, false, true})
	c := NewParams(s)
	for i := range c.Trans {
		c.Trans[i] = float64(i % 4)
	}
	for i := range c.Emit {
		c.Emit[i] = 1 + float64(i)
	}
	for _, p := range []*Params{s.Normalize(c, 0), s.Normalize(c, 0.5), s.VariationalBayes(c, 0.1, 0.1)} {
		if p.Trans[s.StartContext()*3+2] != 0 {
			t.Fatal("the start context may stop")
		}
		if p.Emit[1] != 0 || p.Emit[4] != 0 {
			t.Fatal("a forbidden emission has weight")
		}
		for ctx := 0; ctx < s.Contexts(); ctx++ {
			sum := p.Trans[ctx*3] + p.Trans[ctx*3+1] + p.Trans[ctx*3+2]
			if sum > 1+1e-12 || sum < 0.2 {
				t.Fatalf("row %d sums to %v", ctx, sum)
			}
		}
	}
	p := s.Normalize(c, 0)
	if e0 := p.Emit[0] + p.Emit[2] + p.Emit[4]; math.Abs(e0-1) > 1e-12 {
		t.Fatalf("state 0's emissions sum to %v", e0)
	}
	// Annealing at β = 1 with no skew is the identity; at β = 0 every
	// supported weight is 1.
	a1, a0 := Anneal(p, 1, nil), Anneal(p, 0, nil)
	for i, v := range p.Emit {
		if math.Abs(a1.Emit[i]-v) > 1e-15 || (v > 0) != (a0.Emit[i] == 1) {
			t.Fatalf("Anneal: %v → β=1 %v, β=0 %v", v, a1.Emit[i], a0.Emit[i])
		}
	}
}
