package hmmce

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/grind-nlp/grind/stages/dmv"
)

// The trigram model (Smith 2006 §4.7: "We train a trigram tagger … The
// log-linear models trained by CE used the same feature set" as
// Merialdo's second-order HMM): a weight on every tag trigram (a, b) → t,
// with the boundary before the first word and after the last, and on
// every (tag, word) and (tag, spelling feature) pair.
//
// Forward–backward over a lattice keeps, at each lattice state, a vector
// over contexts (a, b) — the last two tags, the boundary for those
// before the first word — rescaled to sum 1 as the bitag passes' are:
// O(states·(K+1)³ + arcs·(K+1)·K) per sentence.

// logZ2 is logZ for the trigram model.
func (w *lattice) logZ2(p *potentials, l *dmv.Lattice, c *counts, scale float64) float64 {
	K, S := p.K, l.States()
	B, K1 := K, K+1
	C := K1 * K1 // contexts (a, b) = a·(K+1) + b
	inf := math.Inf(-1)
	w.index(l)
	w.alpha, w.beta = grow(w.alpha, S*C), grow(w.beta, S*C)
	w.u = grow(w.u, S*C) // u[s][(b, t)] = Σ_a alpha[s][(a, b)]·T[(a, b) → t]
	w.la, w.lb = grow(w.la, S), grow(w.lb, S)
	w.nz, w.nnz = growInt(w.nz, S*C), growInt(w.nnz, S)
	w.g = grow(w.g, C)
	T := p.trans

	finish := func(s int) { // the nonzero contexts of s and u
		a, u, nz := w.alpha[s*C:(s+1)*C], w.u[s*C:(s+1)*C], w.nz[s*C:(s+1)*C]
		n := 0
		for ctx, v := range a {
			if v != 0 {
				nz[n] = ctx
				n++
				b := ctx % K1
				floats.AddScaled(u[b*K1:(b+1)*K1], v, T[ctx*K1:(ctx+1)*K1])
			}
		}
		w.nnz[s] = n
	}
	w.alpha[B*K1+B] = 1
	w.la[0] = 0
	finish(0)
	for s := 1; s < S; s++ {
		ref := inf
		for _, i := range w.inArcs[w.inStart[s]:w.inStart[s+1]] {
			a := l.Arcs[i]
			ref = math.Max(ref, w.la[a.From]+p.maxLoc[a.Tag])
		}
		if ref == inf {
			w.la[s] = inf
			continue
		}
		a := w.alpha[s*C : (s+1)*C]
		for _, i := range w.inArcs[w.inStart[s]:w.inStart[s+1]] {
			arc := l.Arcs[i]
			f := math.Exp(w.la[arc.From] + p.maxLoc[arc.Tag] - ref)
			if f == 0 {
				continue
			}
			u, e := w.u[arc.From*C:(arc.From+1)*C], p.emit[arc.Tag*K:(arc.Tag+1)*K]
			for b := 0; b <= K; b++ {
				ub, ab := u[b*K1:b*K1+K], a[b*K1:b*K1+K]
				for t := range ab {
					ab[t] += f * ub[t] * e[t]
				}
			}
		}
		z := floats.Sum(a)
		if z == 0 {
			w.la[s] = inf
			continue
		}
		floats.Scale(1/z, a)
		w.la[s] = ref + p.maxT + math.Log(z)
		finish(s)
	}
	ref := inf
	for s := 0; s < S; s++ {
		if l.Final[s] {
			ref = math.Max(ref, w.la[s])
		}
	}
	if ref == inf {
		return inf
	}
	z := 0.0
	for s := 0; s < S; s++ {
		if l.Final[s] && w.la[s] > inf {
			stop := 0.0
			for b := 0; b <= K; b++ {
				stop += w.u[s*C+b*K1+B]
			}
			z += math.Exp(w.la[s]-ref) * stop
		}
	}
	if z == 0 {
		return inf
	}
	logZ := ref + p.maxT + math.Log(z)
	if c == nil {
		return logZ
	}

	// Backward, with the counts of each state's outgoing arcs.
	for s := S - 1; s >= 0; s-- {
		if w.la[s] == inf {
			w.lb[s] = inf
			continue
		}
		ref := inf
		if l.Final[s] {
			ref = 0
		}
		for _, i := range w.outArcs[w.outStart[s]:w.outStart[s+1]] {
			a := l.Arcs[i]
			ref = math.Max(ref, w.lb[a.To]+p.maxLoc[a.Tag])
		}
		if ref == inf {
			w.lb[s] = inf
			continue
		}
		// g[(b, t)]: what follows a step to tag t from a context ending in
		// b, over exp(ref): the stop, or an arc's emission and its target's
		// backward vector at context (b, t).
		g := w.g
		clear(g)
		if l.Final[s] {
			for b := 0; b <= K; b++ {
				g[b*K1+B] = math.Exp(-ref)
			}
		}
		for _, i := range w.outArcs[w.outStart[s]:w.outStart[s+1]] {
			a := l.Arcs[i]
			f := math.Exp(w.lb[a.To] + p.maxLoc[a.Tag] - ref)
			if f == 0 {
				continue
			}
			bt, e := w.beta[a.To*C:(a.To+1)*C], p.emit[a.Tag*K:(a.Tag+1)*K]
			for b := 0; b <= K; b++ {
				gb, bb := g[b*K1:b*K1+K], bt[b*K1:b*K1+K]
				for t := range gb {
					gb[t] += f * e[t] * bb[t]
				}
			}
		}
		b := w.beta[s*C : (s+1)*C]
		nz := w.nz[s*C : s*C+w.nnz[s]]
		sum := 0.0
		for _, ctx := range nz {
			last := ctx % K1
			b[ctx] = floats.Dot(T[ctx*K1:(ctx+1)*K1], g[last*K1:(last+1)*K1])
			sum += b[ctx]
		}
		if sum == 0 {
			w.lb[s] = inf
			continue
		}
		floats.Scale(1/sum, b)
		w.lb[s] = ref + p.maxT + math.Log(sum)

		// Transitions out of s: alpha[(a, b)]·T[(a, b) → t]·g[(b, t)], T
		// applied later.
		a := w.alpha[s*C : (s+1)*C]
		if f := scale * math.Exp(w.la[s]+ref+p.maxT-logZ); f != 0 {
			for _, ctx := range nz {
				last := ctx % K1
				floats.AddScaled(c.trans[ctx*K1:(ctx+1)*K1], f*a[ctx], g[last*K1:(last+1)*K1])
			}
		}
		// Emissions on each arc out of s: Σ_b u[(b, t)]·E[t]·beta[to][(b, t)].
		u := w.u[s*C : (s+1)*C]
		for _, i := range w.outArcs[w.outStart[s]:w.outStart[s+1]] {
			arc := l.Arcs[i]
			f := scale * math.Exp(w.la[s]+p.maxT+p.maxLoc[arc.Tag]+w.lb[arc.To]-logZ)
			if f == 0 {
				continue
			}
			bt, e := w.beta[arc.To*C:(arc.To+1)*C], p.emit[arc.Tag*K:(arc.Tag+1)*K]
			ec := c.emit[arc.Tag*K : (arc.Tag+1)*K]
			for b := 0; b <= K; b++ {
				ub, bb := u[b*K1:b*K1+K], bt[b*K1:b*K1+K]
				for t := range ec {
					ec[t] += f * ub[t] * e[t] * bb[t]
				}
			}
		}
	}
	return logZ
}

// viterbi2 is the best tagging of x under the trigram model: a score per
// context (the last two tags) and position.
func (m *Model) viterbi2(theta []float64, x []int) []int {
	K, K1, n := m.K, m.K+1, len(x)
	B, C := K, (K+1)*(K+1)
	score := make([][]float64, n)
	back := make([][]int, n)
	for i := range score {
		score[i] = fill(C, math.Inf(-1))
		back[i] = make([]int, C)
	}
	for t := 0; t < K; t++ {
		score[0][B*K1+t] = theta[m.trans(B*K1+B, t)] + m.local(theta, t, x[0])
		back[0][B*K1+t] = B
	}
	for i := 1; i < n; i++ {
		for t := 0; t < K; t++ {
			loc := m.local(theta, t, x[i])
			for b := 0; b < K; b++ {
				cur := b*K1 + t
				for a := 0; a <= K; a++ {
					prev := a*K1 + b
					if v := score[i-1][prev] + theta[m.trans(prev, t)] + loc; v > score[i][cur] {
						score[i][cur], back[i][cur] = v, a
					}
				}
			}
		}
	}
	best, bc := math.Inf(-1), -1
	for ctx := 0; ctx < C; ctx++ {
		if ctx%K1 == B {
			continue
		}
		if v := score[n-1][ctx] + theta[m.trans(ctx, B)]; v > best || bc < 0 {
			best, bc = v, ctx
		}
	}
	tags := make([]int, n)
	a, b := bc/K1, bc%K1
	for i := n - 1; i >= 0; i-- {
		tags[i] = b
		a, b = back[i][a*K1+b], a
	}
	return tags
}
