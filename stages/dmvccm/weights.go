package dmvccm

import "github.com/grind-nlp/grind/stages/dmv"

// WeightsFromDMV looks up a DMV's tables (probabilities, or any chart
// weights) for the positions of one sentence of tag numbers; a negative
// tag number (a tag the DMV never saw) gets weight 0 throughout.
func WeightsFromDMV(p *dmv.Params, tags []int) Weights {
	var w Weights
	w.load(p, tags)
	return w
}

// resize returns b with length n, reusing its memory, zeroed.
func resize(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	b = b[:n]
	clear(b)
	return b
}

// load is WeightsFromDMV into w's memory.
func (w *Weights) load(p *dmv.Params, tags []int) {
	n := len(tags)
	w.Root = resize(w.Root, n)
	for h, t := range tags {
		if t >= 0 {
			w.Root[h] = p.Root[t]
		}
	}
	for d := range 2 {
		if cap(w.Choose[d]) < n {
			w.Choose[d] = make([][]float64, n)
		}
		w.Choose[d] = w.Choose[d][:n]
		for h, th := range tags {
			row := resize(w.Choose[d][h], n)
			for a, ta := range tags {
				if th >= 0 && ta >= 0 {
					row[a] = p.Child[p.ChildIndex(th, d, ta)]
				}
			}
			w.Choose[d][h] = row
		}
		for v := range 2 {
			w.Stop[d][v], w.Cont[d][v] = resize(w.Stop[d][v], n), resize(w.Cont[d][v], n)
			for h, th := range tags {
				if th < 0 {
					continue
				}
				w.Stop[d][v][h] = p.Stop[dmv.DecisionIndex(th, d, v)]
				w.Cont[d][v][h] = p.Cont[dmv.DecisionIndex(th, d, v)]
			}
		}
	}
}
