package dmv

import "math"

// eachTreeEvent calls fn with the table (0 root, 1 child, 2 stop, 3 cont)
// and index of every event that generates the tree heads (1-based, 0 =
// root) over tags: children nearest first on each side, then a stop.
func eachTreeEvent(tags, heads []int, t int, fn func(table, index int)) {
	n := len(tags)
	for d, h := range heads {
		if h == 0 {
			fn(0, tags[d])
		}
	}
	for h := 0; h < n; h++ {
		th := tags[h]
		// Left children nearest first: scan leftwards from h.
		v := Adj
		for d := h - 1; d >= 0; d-- {
			if heads[d] == h+1 {
				fn(3, DecisionIndex(th, Left, v))
				fn(1, (th*2+Left)*t+tags[d])
				v = NonAdj
			}
		}
		fn(2, DecisionIndex(th, Left, v))
		v = Adj
		for d := h + 1; d < n; d++ {
			if heads[d] == h+1 {
				fn(3, DecisionIndex(th, Right, v))
				fn(1, (th*2+Right)*t+tags[d])
				v = NonAdj
			}
		}
		fn(2, DecisionIndex(th, Right, v))
	}
}

// AddTreeCounts adds weight to the count of every event of the tree.
// The tree need not be projective (gold trees of some treebanks are not).
func AddTreeCounts(tags, heads []int, counts *Params, weight float64) {
	tabs := counts.Tables()
	eachTreeEvent(tags, heads, counts.T, func(table, i int) { tabs[table][i] += weight })
}

// TreeLogWeight is the log of the product of w over the tree's events
// (its log-probability when w is a model).
func TreeLogWeight(tags, heads []int, w *Params) float64 {
	tabs := w.Tables()
	s := 0.0
	eachTreeEvent(tags, heads, w.T, func(table, i int) { s += math.Log(tabs[table][i]) })
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
