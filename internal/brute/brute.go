// Package brute enumerates what the dynamic programs sum over, for tests
// that check them against brute force.
package brute

import "sync"

var cache struct {
	sync.Mutex
	trees map[int][][]int
}

// ProjectiveTrees are every projective tree of one root over n tokens, as
// head arrays (1-based, 0 the root): 1, 2, 7, 30, 143, 728, 3876 trees for
// n = 1…7. They are built once per n and shared: callers must not change
// them.
func ProjectiveTrees(n int) [][]int {
	cache.Lock()
	defer cache.Unlock()
	if t, ok := cache.trees[n]; ok {
		return t
	}
	var out [][]int
	for _, t := range treesOver(1, n) {
		heads := make([]int, n)
		for d, h := range t.heads {
			heads[d-1] = h
		}
		out = append(out, heads)
	}
	if cache.trees == nil {
		cache.trees = map[int][][]int{}
	}
	cache.trees[n] = out
	return out
}

// tree is a tree over tokens i..j: its root and the heads of the others
// (the root's head is set by whoever takes it as a dependent).
type tree struct {
	root  int
	heads map[int]int
}

// treesOver lists the trees over tokens i..j (1-based); for i..n from 1
// every root's head is 0 already.
func treesOver(i, j int) []tree {
	var out []tree
	for h := i; h <= j; h++ {
		for _, l := range forests(i, h-1) {
			for _, r := range forests(h+1, j) {
				heads := map[int]int{h: 0}
				for _, f := range [][]tree{l, r} {
					for _, t := range f {
						for d, hd := range t.heads {
							heads[d] = hd
						}
						heads[t.root] = h
					}
				}
				out = append(out, tree{root: h, heads: heads})
			}
		}
	}
	return out
}

// forests lists the sequences of trees covering tokens i..j.
func forests(i, j int) [][]tree {
	if i > j {
		return [][]tree{nil}
	}
	var out [][]tree
	for k := i; k <= j; k++ {
		for _, t := range treesOver(i, k) {
			for _, rest := range forests(k+1, j) {
				out = append(out, append([]tree{t}, rest...))
			}
		}
	}
	return out
}
