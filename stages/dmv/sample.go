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
	// The tree is grown and laid out with stacks of its own, not by
	// recursion: a chain of a million heads would overflow Go's stack.
	type node struct {
		tag         int
		left, right []*node // in generation order: nearest first
		parent      *node
		pos         int // 1-based position in the sentence
	}
	type growing struct {
		nd       *node
		dir, adj int // the decision due next; dir past Right: done
	}
	size := 0
	grow := func(tag int, parent *node) growing {
		size++
		return growing{&node{tag: tag, parent: parent}, Left, Adj}
	}
	stack := []growing{grow(draw(rng, p.Root), nil)}
	top := stack[0].nd
	for len(stack) > 0 {
		g := &stack[len(stack)-1]
		if g.dir > Right {
			stack = stack[:len(stack)-1]
			continue
		}
		if maxLen > 0 && size > maxLen {
			return nil, nil, false
		}
		i := DecisionIndex(g.nd.tag, g.dir, g.adj)
		if rng.Float64()*(p.Stop[i]+p.Cont[i]) < p.Stop[i] {
			g.dir, g.adj = g.dir+1, Adj
			continue
		}
		row := p.Child[p.ChildIndex(g.nd.tag, g.dir, 0):p.ChildIndex(g.nd.tag, g.dir, p.T)]
		child := grow(draw(rng, row), g.nd)
		if g.dir == Left {
			g.nd.left = append(g.nd.left, child.nd)
		} else {
			g.nd.right = append(g.nd.right, child.nd)
		}
		g.adj = NonAdj
		stack = append(stack, child)
	}
	// Lay the tree out left to right: a head's left children, farthest
	// first, then the head, then its right children, nearest first. The
	// stack holds what is still to be laid out, next on top; a head is
	// put on it again (placed) to be written after its left children.
	type item struct {
		nd     *node
		placed bool
	}
	var order []*node
	todo := []item{{top, false}}
	for len(todo) > 0 {
		it := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if it.placed {
			order = append(order, it.nd)
			it.nd.pos = len(order)
			continue
		}
		for i := len(it.nd.right) - 1; i >= 0; i-- {
			todo = append(todo, item{it.nd.right[i], false})
		}
		todo = append(todo, item{it.nd, true})
		for _, l := range it.nd.left { // the farthest, last generated, on top
			todo = append(todo, item{l, false})
		}
	}
	tags, heads = make([]int, len(order)), make([]int, len(order))
	for k, nd := range order {
		tags[k] = nd.tag
		if nd.parent != nil {
			heads[k] = nd.parent.pos
		}
	}
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
