package hmmce

import "math"

// The trigram model (Smith 2006 §4.7: "We train a trigram tagger … The
// log-linear models trained by CE used the same feature set" as
// Merialdo's second-order HMM): a weight on every tag trigram (a, b) → t,
// with the boundary before the first word and after the last, and on
// every (tag, word) and (tag, spelling feature) pair.
//
// Forward–backward (lattice.logZ) keeps, at each lattice state, a vector
// over contexts (a, b) — the last two tags, the boundary for those
// before the first word — where the bitag model's runs over the previous
// tag: O(states·(K+1)³ + arcs·(K+1)·K) per sentence.

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
