package modelu

import (
	"slices"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/nbhd"
)

// TestPairTables checks that a sentence's chain and neighbourhood share
// one table of pairs of symbols, that every E item of either reads the
// features of its own arcs' symbols from it, and that the table holds no
// pair neither reads.
func TestPairTables(t *testing.T) {
	sents := append(corpus(), &format.Sentence{Words: []string{"dogs", "chase", "cats"}, Tags: []string{"NNS", "VBP", "NNS"}})
	for _, spelling := range []bool{false, true} {
		for _, kind := range []string{nbhd.Trans1, nbhd.Del1OrTrans2, nbhd.Dynasearch} {
			m := New([]string{"CD", "DT", "NN", "NNS", "RB", "VBD", "VBP", "VBZ"}, spelling)
			p, err := NewProblem(m, sents, kind, 2, 0)
			if err != nil {
				t.Fatal(err)
			}
			for i, x := range p.Sents {
				pt := p.Sents[i].pairs
				if p.Nbhds[i].pairs != pt {
					t.Fatalf("%s, sentence %d: its chain and its neighbourhood have tables of their own", kind, i+1)
				}
				read := make([]bool, pt.len())
				for _, in := range []*Instance{x, p.Nbhds[i]} {
					for e, arcs := range in.Chart.sh.pairs {
						k := in.pair[e]
						read[k] = true
						s, u := in.Lat.Arcs[arcs[0]].Tag, in.Lat.Arcs[arcs[1]].Tag
						if want, got := m.Features(pt.sym[s], pt.sym[u], nil), pt.feat[pt.off[k]:pt.off[k+1]]; !slices.Equal(got, want) {
							t.Fatalf("%s, sentence %d, E item %d: features %v, want those of its symbols, %v", kind, i+1, e, got, want)
						}
					}
				}
				if j := slices.Index(read, false); j >= 0 {
					t.Errorf("%s, sentence %d: pair %d of %d is read by no E item", kind, i+1, j, pt.len())
				}
			}
		}
	}
}
