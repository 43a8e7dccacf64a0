package dmv

import (
	"fmt"
	"math/rand/v2"
)

// Sample draws one sentence and its tree from the DMV p (a model: root
// and child distributions, stop against cont), generating children
// nearest first as the model defines. It gives up and returns ok = false
// as soon as the sentence grows beyond maxLen tokens (maxLen ≤ 0: no
// bound), so that a model that rarely stops cannot run away.
func Sample(rng *rand.Rand, p *Params, maxLen int) (tags, heads []int, ok bool) {
	type node struct {
		tag         int
		left, right []*node // in generation order: nearest first
	}
	size := 0
	var grow func(tag int) *node
	grow = func(tag int) *node {
		size++
		nd := &node{tag: tag}
		for dir := Left; dir <= Right; dir++ {
			for v := Adj; ; v = NonAdj {
				if maxLen > 0 && size > maxLen {
					return nd
				}
				i := DecisionIndex(tag, dir, v)
				if rng.Float64()*(p.Stop[i]+p.Cont[i]) < p.Stop[i] {
					break
				}
				row := p.Child[p.ChildIndex(tag, dir, 0):p.ChildIndex(tag, dir, p.T)]
				child := grow(draw(rng, row))
				if dir == Left {
					nd.left = append(nd.left, child)
				} else {
					nd.right = append(nd.right, child)
				}
			}
		}
		return nd
	}
	top := grow(draw(rng, p.Root))
	if maxLen > 0 && size > maxLen {
		return nil, nil, false
	}
	// Lay the tree out left to right: a head's left children, farthest
	// first, then the head, then its right children, nearest first.
	var layout func(nd *node) int
	layout = func(nd *node) int {
		var kids []int
		for i := len(nd.left) - 1; i >= 0; i-- {
			kids = append(kids, layout(nd.left[i]))
		}
		tags = append(tags, nd.tag)
		heads = append(heads, 0)
		pos := len(tags) // 1-based position of this head
		for _, ch := range nd.right {
			kids = append(kids, layout(ch))
		}
		for _, k := range kids {
			heads[k-1] = pos
		}
		return pos
	}
	layout(top)
	return tags, heads, true
}

// CheckSampleable says why sampling from p cannot give finite sentences,
// naming the multinomial, or returns nil: among the tags that can occur
// (a root, or a child of a tag that occurs), a decision whose stop and
// cont are both 0, a cont with no child to draw, or a head that, having
// taken a child on one side, never stops there (stop 0 after the first
// child) — every sentence through it would be endless. name gives tag
// names. A model that merely rarely stops is left to Sample's bound.
func CheckSampleable(p *Params, name func(int) string) error {
	if err := RefuseValence(p.V, "sampling"); err != nil {
		return err
	}
	dirs := [2]string{"left", "right"}
	sum := func(x []float64) float64 {
		t := 0.0
		for _, v := range x {
			t += v
		}
		return t
	}
	if !(sum(p.Root) > 0) {
		return fmt.Errorf("root(·) is 0 everywhere: no sentence can start")
	}
	seen := make([]bool, p.T)
	var queue []int
	occur := func(row []float64) {
		for t, v := range row {
			if v > 0 && !seen[t] {
				seen[t] = true
				queue = append(queue, t)
			}
		}
	}
	occur(p.Root)
	for len(queue) > 0 {
		h := queue[0]
		queue = queue[1:]
		for dir := Left; dir <= Right; dir++ {
			adj, non := DecisionIndex(h, dir, Adj), DecisionIndex(h, dir, NonAdj)
			at := func(v int) string { return fmt.Sprintf("(%s, %s, adj=%v)", name(h), dirs[dir], v == Adj) }
			if !(p.Stop[adj]+p.Cont[adj] > 0) {
				return fmt.Errorf("stop%s and cont%[1]s are both 0: the model cannot go on", at(Adj))
			}
			if p.Cont[adj] == 0 {
				continue // never a child on this side
			}
			row := p.Child[p.ChildIndex(h, dir, 0):p.ChildIndex(h, dir, p.T)]
			if !(sum(row) > 0) {
				return fmt.Errorf("cont%s is %g but child(%s, %s, ·) is 0 everywhere: no child to draw", at(Adj), p.Cont[adj], name(h), dirs[dir])
			}
			if !(p.Stop[non] > 0) {
				return fmt.Errorf("stop%s is 0 and cont is %g: sentences never end", at(NonAdj), p.Cont[non])
			}
			occur(row)
		}
	}
	return nil
}

// draw picks an index with probability proportional to weights.
func draw(rng *rand.Rand, weights []float64) int {
	total := 0.0
	for _, w := range weights {
		total += w
	}
	u := rng.Float64() * total
	for i, w := range weights {
		if u < w {
			return i
		}
		u -= w
	}
	for i := len(weights) - 1; i >= 0; i-- { // rounding: the last positive weight
		if weights[i] > 0 {
			return i
		}
	}
	return len(weights) - 1
}
