package tageval

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// TestHandComputed: 8 tokens, (gold, induced) = (A,x)×3, (A,y)×2,
// (B,y), (B,z), (C,z). By hand: many-to-1 picks x→A 3, y→A 2, z→B|C 1 =
// 6/8; greedy 1-to-1 takes (A,x) 3, then among the 1s (B,y) and (C,z) =
// 5/8 (y and z are used before (B,z) and A is gone before (A,y)).
// H(G) = −(5/8 lg 5/8 + 1/4 lg 1/4 + 1/8 lg 1/8) = 1.29879…,
// H(I) = −(2·3/8 lg 3/8 + 1/4 lg 1/4) = 1.56127…, H(G,I) = −(3/8 lg 3/8 +
// 1/4 lg 1/4 + 3/8 lg 1/8) = 2.15563…, so H(G|I) = H(G,I) − H(I) and
// H(I|G) = H(G,I) − H(G).
func TestHandComputed(t *testing.T) {
	c := NewCounter()
	for _, p := range [][3]string{
		{"the", "A", "x"}, {"the", "A", "x"}, {"a", "A", "x"}, {"dog", "A", "y"}, {"dog", "A", "y"},
		{"dog", "B", "y"}, {"runs", "B", "z"}, {"runs", "C", "z"},
	} {
		c.Add(p[0], p[1], p[2])
	}
	r := c.Report()
	hG, hI := 1.2987949406953985, 1.561278124459133
	hGI, hIG := 0.5943609377704333, 0.8568441215341678
	checks := []struct {
		name      string
		got, want float64
	}{
		{"many-to-1", r.ManyToOne, 6.0 / 8},
		{"1-to-1", r.OneToOne, 5.0 / 8},
		{"H(G)", r.HGold, hG},
		{"H(I)", r.HInduced, hI},
		{"H(G|I)", r.HGoldGivenInduced, hGI},
		{"H(I|G)", r.HInducedGivenGold, hIG},
		{"VI", r.VI, hGI + hIG},
		{"homogeneity", r.Homogeneity, 0.5423750746578966},
		{"completeness", r.Completeness, 0.45119059307194176},
		{"V-measure", r.VMeasure, 0.49259860631350977},
	}
	for _, ch := range checks {
		if !near(ch.got, ch.want) {
			t.Errorf("%s = %v, want %v", ch.name, ch.got, ch.want)
		}
	}
	if r.OneToOneMap["x"] != "A" || r.OneToOneMap["y"] != "B" || r.OneToOneMap["z"] != "C" || len(r.OneToOneMap) != 3 {
		t.Errorf("1-to-1 map %v", r.OneToOneMap)
	}
	// "dog" (A, B) and "runs" (B, C) are ambiguous: 5 tokens.
	if r.AmbiguousTokens != 5 || r.Tokens != 8 || r.GoldTags != 3 || r.InducedTags != 3 {
		t.Errorf("report %+v", r)
	}
	// x, y, z are no gold tags: accuracy has no meaning, and none is given.
	if r.Accuracy != nil || r.AmbiguousAccuracy != nil {
		t.Errorf("accuracy %v, %v of induced states", r.Accuracy, r.AmbiguousAccuracy)
	}
}

// TestAccuracyWithDictionaryNames: when states carry gold names, plain
// and ambiguous accuracy count matches.
func TestAccuracyWithDictionaryNames(t *testing.T) {
	c := NewCounter()
	c.Add("can", "MD", "MD")
	c.Add("can", "NN", "MD")
	c.Add("can", "MD", "MD")
	c.Add("the", "DT", "DT")
	r := c.Report()
	if r.Accuracy == nil || !near(*r.Accuracy, 0.75) || r.AmbiguousTokens != 3 || r.AmbiguousAccuracy == nil || !near(*r.AmbiguousAccuracy, 2.0/3) {
		t.Errorf("accuracy %v, ambiguous %d at %v", r.Accuracy, r.AmbiguousTokens, r.AmbiguousAccuracy)
	}
	// Without words no token is ambiguous, and their accuracy is none.
	n := NewCounter()
	n.Add("", "DT", "DT")
	if r := n.Report(); r.Accuracy == nil || *r.Accuracy != 1 || r.AmbiguousAccuracy != nil {
		t.Errorf("no words: accuracy %v, ambiguous %v", r.Accuracy, r.AmbiguousAccuracy)
	}
	// A perfect tagging: VI 0, V-measure 1, 1-to-1 = many-to-1 = 1.
	p := NewCounter()
	for _, g := range []string{"a", "b", "a", "c"} {
		p.Add("", g, "s"+g)
	}
	r = p.Report()
	if !near(r.VI, 0) || !near(r.VMeasure, 1) || !near(r.OneToOne, 1) || !near(r.ManyToOne, 1) || r.AmbiguousTokens != 0 {
		t.Errorf("perfect: %+v", r)
	}
	if e := NewCounter().Report(); e.Tokens != 0 || e.VI != 0 {
		t.Errorf("empty: %+v", e)
	}
}
