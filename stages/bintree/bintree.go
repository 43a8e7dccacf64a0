// Package bintree counts binary trees: the Catalan numbers, and the
// probability of a bracket under a tree drawn uniformly. The CCM's
// likelihood and tree-uniform start, the random bracketing baseline and
// the scorer's expected RANDOM all rest on them.
package bintree

import "math"

// LogCatalan is log Cat(k) = log (2k)! / (k! (k+1)!), the log of the
// number of binary trees over k+1 leaves.
func LogCatalan(k int) float64 {
	if k < len(logCatalans) {
		return logCatalans[k]
	}
	return logCatalan(k)
}

// logCatalans holds the values sentences of ordinary length need, so that
// a chart does not call Lgamma three times per sentence.
var logCatalans = func() []float64 {
	t := make([]float64, 128)
	for k := range t {
		t[k] = logCatalan(k)
	}
	return t
}()

func logCatalan(k int) float64 {
	a, _ := math.Lgamma(float64(2*k + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(k + 2))
	return a - b - c
}

// BracketProb is the probability that a binary tree drawn uniformly over n
// leaves has a given bracket of length l (any position, 1 ≤ l ≤ n):
// Cat(l−1)·Cat(n−l)/Cat(n−1), the bracket's subtree times the rest with
// the bracket as one leaf, over all trees (Klein appendix B.1).
func BracketProb(l, n int) float64 {
	return math.Exp(LogCatalan(l-1) + LogCatalan(n-l) - LogCatalan(n-1))
}
