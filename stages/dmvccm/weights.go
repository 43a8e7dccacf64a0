package dmvccm

import "github.com/grind-nlp/grind/stages/dmv"

// WeightsFromDMV looks up a DMV's tables (probabilities, or any chart
// weights) for the positions of one sentence of tag numbers; a negative
// tag number (a tag the DMV never saw) gets weight 0 throughout.
func WeightsFromDMV(p *dmv.Params, tags []int) Weights {
	n := len(tags)
	var w Weights
	w.Root = make([]float64, n)
	for h, t := range tags {
		if t >= 0 {
			w.Root[h] = p.Root[t]
		}
	}
	for d := range 2 {
		w.Choose[d] = make([][]float64, n)
		for h, th := range tags {
			row := make([]float64, n)
			for a, ta := range tags {
				if th >= 0 && ta >= 0 {
					row[a] = p.Child[p.ChildIndex(th, d, ta)]
				}
			}
			w.Choose[d][h] = row
		}
		for v := range 2 {
			w.Stop[d][v], w.Cont[d][v] = make([]float64, n), make([]float64, n)
			for h, th := range tags {
				if th < 0 {
					continue
				}
				w.Stop[d][v][h] = p.Stop[dmv.DecisionIndex(th, d, v)]
				w.Cont[d][v][h] = p.Cont[dmv.DecisionIndex(th, d, v)]
			}
		}
	}
	return w
}
