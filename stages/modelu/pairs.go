package modelu

import "math"

// pairTable is the pairs of symbols (left, right) that the lattices over
// one sentence's symbols read — the sentence's chain and its
// neighbourhood share one — with each pair's features laid end to end
// and, from load to load, each pair's potential. Sharing it, the weights
// of a pair's features are summed once an evaluation for both lattices,
// and their posteriors, the chain's less the neighbourhood's, reach the
// features' counts once.
type pairTable struct {
	sym   []Symbol
	index map[[2]int]int32 // while lattices are added
	off   []int32          // pair k's features are feat[off[k]:off[k+1]]
	feat  []int32
	// local is feat as Objective's chunk of the sentence numbers them
	// (chunkFeatures).
	local []int32
	pot   []float64 // exp(score − c) at load's weights
	c     float64   // the largest score then (0 with none)
}

func newPairTable(sym []Symbol) *pairTable {
	return &pairTable{sym: sym, index: map[[2]int]int32{}, off: []int32{0}}
}

// len is the number of pairs.
func (pt *pairTable) len() int { return len(pt.off) - 1 }

// id is the index of the pair of symbols s (left) and t, its features
// listed when it is new.
func (pt *pairTable) id(m *Model, s, t int) int32 {
	key := [2]int{s, t}
	if k, ok := pt.index[key]; ok {
		return k
	}
	k := int32(pt.len())
	pt.index[key] = k
	pt.feat = m.Features(pt.sym[s], pt.sym[t], pt.feat)
	pt.off = append(pt.off, int32(len(pt.feat)))
	return k
}

// done lets go of what only adding lattices needs.
func (pt *pairTable) done() { pt.index = nil }

// load works out each pair's potential at theta: the weights of its
// features summed in their order, c subtracted, exponentiated.
func (pt *pairTable) load(theta []float64) {
	pt.pot = resize(pt.pot, pt.len())
	for k := range pt.pot {
		v := 0.0
		for _, f := range pt.feat[pt.off[k]:pt.off[k+1]] {
			v += theta[f]
		}
		pt.pot[k] = v
	}
	pt.c = maxScore(pt.pot)
	for k, v := range pt.pot {
		pt.pot[k] = math.Exp(v - pt.c)
	}
}

// addCounts adds scale times sums[k], pair k's expected count, to the
// counts of its features in grad, which ids number (pt.feat, or
// pt.local). A pair of count 0 is left out: adding it would change no
// bit (no count is −0, every one starting at +0).
func (pt *pairTable) addCounts(ids []int32, sums, grad []float64, scale float64) {
	for k, v := range sums {
		if v == 0 {
			continue
		}
		m := scale * v
		for _, f := range ids[pt.off[k]:pt.off[k+1]] {
			grad[f] += m
		}
	}
}

// chunkFeatures numbers the features the tables of one of Objective's
// chunks read, in the order they are met, each table's local its
// features so numbered; it returns them by number. A chunk's counts are
// then a table of its own features (a few thousand of a spelling
// model's tens of thousands), cleared and added to the gradient whole.
// slot, one entry a feature, is −1 throughout on entry and on return.
func chunkFeatures(tables []*pairTable, slot []int32) []int32 {
	var feats []int32
	for _, pt := range tables {
		pt.local = make([]int32, len(pt.feat))
		for j, f := range pt.feat {
			if slot[f] < 0 {
				slot[f] = int32(len(feats))
				feats = append(feats, f)
			}
			pt.local[j] = slot[f]
		}
	}
	for _, f := range feats {
		slot[f] = -1
	}
	return feats
}
