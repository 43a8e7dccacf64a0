package nbhd

import (
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/grind-nlp/grind/stages/dmv"
)

// epsilon labels an arc that reads nothing.
const epsilon = -1

// automaton is a finite automaton over tag numbers under construction,
// with ε-arcs allowed; every one built here is acyclic.
type automaton struct {
	start int
	final []bool
	out   [][]arc // per state
}

type arc struct{ to, label int }

func (m *automaton) add() int {
	m.final = append(m.final, false)
	m.out = append(m.out, nil)
	return len(m.final) - 1
}

func (m *automaton) link(from, to, label int) {
	m.out[from] = append(m.out[from], arc{to, label})
}

func (m *automaton) states() int { return len(m.final) }

// chain is the automaton of the one string x.
func chain(x []int) *automaton {
	m := &automaton{}
	for i := 0; i <= len(x); i++ {
		m.add()
	}
	for i, t := range x {
		m.link(i, i+1, t)
	}
	m.final[len(x)] = true
	return m
}

// union accepts what a or b accepts.
func union(a, b *automaton) *automaton {
	m := &automaton{}
	m.start = m.add()
	copyInto := func(x *automaton) int {
		base := m.states()
		for s := 0; s < x.states(); s++ {
			m.add()
			m.final[base+s] = x.final[s]
		}
		for s, arcs := range x.out {
			for _, a := range arcs {
				m.link(base+s, base+a.to, a.label)
			}
		}
		return base + x.start
	}
	m.link(m.start, copyInto(a), epsilon)
	m.link(m.start, copyInto(b), epsilon)
	return m
}

// closure adds to set (sorted) every state ε-reachable from it.
func (m *automaton) closure(set []int) []int {
	seen := map[int]bool{}
	stack := append([]int(nil), set...)
	for _, s := range set {
		seen[s] = true
	}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, a := range m.out[s] {
			if a.label == epsilon && !seen[a.to] {
				seen[a.to] = true
				set = append(set, a.to)
				stack = append(stack, a.to)
			}
		}
	}
	slices.Sort(set)
	return set
}

// determinize is the subset construction: an ε-free deterministic
// automaton with the same language, whose states are the sets of m's
// states that one string leads to. Only reachable sets are made.
func (m *automaton) determinize() *automaton {
	d := &automaton{}
	ids := map[string]int{}
	var sets [][]int
	key := func(set []int) string {
		b := make([]byte, 0, 4*len(set))
		for _, s := range set {
			b = binary.AppendUvarint(b, uint64(s))
		}
		return string(b)
	}
	state := func(set []int) int {
		k := key(set)
		if id, ok := ids[k]; ok {
			return id
		}
		id := d.add()
		ids[k] = id
		sets = append(sets, set)
		for _, s := range set {
			d.final[id] = d.final[id] || m.final[s]
		}
		return id
	}
	d.start = state(m.closure([]int{m.start}))
	for id := 0; id < len(sets); id++ {
		next := map[int][]int{}
		var labels []int
		for _, s := range sets[id] {
			for _, a := range m.out[s] {
				if a.label == epsilon {
					continue
				}
				if _, ok := next[a.label]; !ok {
					labels = append(labels, a.label)
				}
				if !slices.Contains(next[a.label], a.to) {
					next[a.label] = append(next[a.label], a.to)
				}
			}
		}
		slices.Sort(labels)
		for _, t := range labels {
			d.link(id, state(m.closure(next[t])), t)
		}
	}
	return d
}

// layered turns an ε-free deterministic acyclic automaton into the
// lattice form of dmv.Lattice: every state at one depth (a state reached
// by strings of several lengths is split into one copy per length, which
// keeps it deterministic and its language unchanged), states that lead
// to no final state dropped, equivalent states of one depth merged
// (minimisation among automata whose states have one depth each), states
// numbered by depth and arcs sorted.
func (m *automaton) layered() *dmv.Lattice {
	// Unfold by depth, breadth first from the start.
	type copyOf struct{ state, depth int }
	ids := map[copyOf]int{}
	var copies []copyOf
	var out [][]arc
	get := func(c copyOf) int {
		if id, ok := ids[c]; ok {
			return id
		}
		ids[c] = len(copies)
		copies = append(copies, c)
		out = append(out, nil)
		return len(copies) - 1
	}
	get(copyOf{m.start, 0})
	for id := 0; id < len(copies); id++ {
		c := copies[id]
		for _, a := range m.out[c.state] {
			out[id] = append(out[id], arc{get(copyOf{a.to, c.depth + 1}), a.label})
		}
	}
	n := len(copies)
	// Live states lead to a final state; copies are in breadth-first
	// order, so every arc goes forward and one backward sweep does.
	live := make([]bool, n)
	for id := n - 1; id >= 0; id-- {
		live[id] = m.final[copies[id].state]
		for _, a := range out[id] {
			live[id] = live[id] || live[a.to]
		}
	}
	// Merge equivalent states, deepest first: same finality and the same
	// arcs into the same classes.
	maxDepth := copies[n-1].depth
	byDepth := make([][]int, maxDepth+1)
	for id, c := range copies {
		if live[id] || id == 0 {
			byDepth[c.depth] = append(byDepth[c.depth], id)
		}
	}
	class := make([]int, n)
	var classes [][]arc   // arcs of each class, to classes
	var classFinal []bool // finality of each class
	var classDepth []int
	for d := maxDepth; d >= 0; d-- {
		seen := map[string]int{}
		for _, id := range byDepth[d] {
			var arcs []arc
			for _, a := range out[id] {
				if live[a.to] {
					arcs = append(arcs, arc{class[a.to], a.label})
				}
			}
			slices.SortFunc(arcs, func(x, y arc) int { return x.label - y.label })
			fin := m.final[copies[id].state]
			b := []byte{0}
			if fin {
				b[0] = 1
			}
			for _, a := range arcs {
				b = binary.AppendUvarint(b, uint64(a.label))
				b = binary.AppendUvarint(b, uint64(a.to))
			}
			k := string(b)
			if c, ok := seen[k]; ok {
				class[id] = c
				continue
			}
			seen[k] = len(classes)
			class[id] = len(classes)
			classes = append(classes, arcs)
			classFinal = append(classFinal, fin)
			classDepth = append(classDepth, d)
		}
	}
	// Number the classes in reverse postorder of a depth-first search
	// that visits the successors with fewer strings ahead first: states
	// with many futures (the unchanged sentence) come first, the others
	// after them in runs, so the states reachable from one state, over
	// which the chart's sums run, are close together.
	ahead := make([]float64, len(classes)) // strings from each class
	for k := range classes {               // classes were made deepest first
		if classFinal[k] {
			ahead[k] = 1
		}
		for _, a := range classes[k] {
			ahead[k] += ahead[a.to]
		}
	}
	number := make([]int, len(classes))
	for i := range number {
		number[i] = -1
	}
	// The search keeps its own stack: a lattice's depth grows with the
	// sentence, and Go's stack of a recursion would not stop at
	// --max-memory.
	type frame struct {
		k    int
		next []arc // the successors not yet visited, sorted
	}
	var post []int
	enter := func(k int) frame {
		number[k] = 0 // on the way
		next := slices.Clone(classes[k])
		slices.SortStableFunc(next, func(x, y arc) int { return cmp.Compare(ahead[x.to], ahead[y.to]) })
		return frame{k, next}
	}
	stack := []frame{enter(class[0])}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if len(top.next) == 0 {
			post = append(post, top.k)
			stack = stack[:len(stack)-1]
			continue
		}
		a := top.next[0]
		top.next = top.next[1:]
		if number[a.to] < 0 {
			stack = append(stack, enter(a.to))
		}
	}
	order := make([]int, len(post))
	for i, k := range post {
		order[len(post)-1-i] = k
	}
	for i, k := range order {
		number[k] = i
	}
	l := &dmv.Lattice{Depth: make([]int, len(order)), Final: make([]bool, len(order))}
	for i, c := range order {
		l.Depth[i], l.Final[i] = classDepth[c], classFinal[c]
		for _, a := range classes[c] {
			l.Arcs = append(l.Arcs, dmv.LatticeArc{From: i, To: number[a.to], Tag: a.label})
		}
	}
	return l
}
