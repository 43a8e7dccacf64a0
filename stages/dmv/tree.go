package dmv

import "math"

// eachTreeEvent calls fn with the table (0 root, 1 child, 2 stop, 3 cont)
// and index in tables shaped as p of every event that generates the tree
// heads (1-based, 0 = root) over tags: children nearest first on each
// side, then a stop; a head with k children on a side takes its next
// decision and child at valences min(k, V.Stop − 1) and min(k, V.Child −
// 1) (for the plain DMV, Adj or NonAdj and its one child distribution).
func eachTreeEvent(tags, heads []int, p *Params, fn func(table, index int)) {
	n := len(tags)
	for d, h := range heads {
		if h == 0 {
			fn(0, tags[d])
		}
	}
	ds, cs := p.V.Stop-1, p.V.Child-1
	for h := 0; h < n; h++ {
		th := tags[h]
		// Left children nearest first: scan leftwards from h.
		k := 0
		for d := h - 1; d >= 0; d-- {
			if heads[d] == h+1 {
				fn(3, p.DecisionAt(th, Left, min(k, ds)))
				fn(1, p.ChildAt(th, Left, min(k, cs), tags[d]))
				k++
			}
		}
		fn(2, p.DecisionAt(th, Left, min(k, ds)))
		k = 0
		for d := h + 1; d < n; d++ {
			if heads[d] == h+1 {
				fn(3, p.DecisionAt(th, Right, min(k, ds)))
				fn(1, p.ChildAt(th, Right, min(k, cs), tags[d]))
				k++
			}
		}
		fn(2, p.DecisionAt(th, Right, min(k, ds)))
	}
}

// AddTreeCounts adds weight to the count of every event of the tree.
// The tree need not be projective (gold trees of some treebanks are not).
func AddTreeCounts(tags, heads []int, counts *Params, weight float64) {
	tabs := counts.Tables()
	eachTreeEvent(tags, heads, counts, func(table, i int) { tabs[table][i] += weight })
}

// TreeLogWeight is the log of the product of w over the tree's events
// (its log-probability when w is a model).
func TreeLogWeight(tags, heads []int, w *Params) float64 {
	tabs := w.Tables()
	s := 0.0
	eachTreeEvent(tags, heads, w, func(table, i int) { s += math.Log(tabs[table][i]) })
	return s
}

// SingleRoot is the rule for gold trees of more than one root (some
// treebanks have them; the DMV generates exactly one): the leftmost root
// stays the root and every other root becomes a dependent of it, so
// supervised counts stay those of a DMV derivation (the tree may become
// non-projective, which gold counts allow). It returns heads itself when
// there is one root, else a copy, and how many roots were reattached.
func SingleRoot(heads []int) ([]int, int) {
	first, moved := -1, 0
	var out []int
	for d, h := range heads {
		if h != 0 {
			continue
		}
		if first < 0 {
			first = d
			continue
		}
		if out == nil {
			out = append([]int(nil), heads...)
		}
		out[d] = first + 1
		moved++
	}
	if out == nil {
		return heads, 0
	}
	return out, moved
}
