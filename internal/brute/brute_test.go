package brute

import (
	"fmt"
	"testing"
)

// The counts are the numbers of projective dependency trees of one root
// (OEIS A006013), and each tree is one: a single root, every token
// reached from it, no two arcs crossing, no tree twice.
func TestProjectiveTrees(t *testing.T) {
	want := []int{1, 2, 7, 30, 143, 728, 3876}
	for n := 1; n <= len(want); n++ {
		trees := ProjectiveTrees(n)
		if len(trees) != want[n-1] {
			t.Errorf("n=%d: %d trees, want %d", n, len(trees), want[n-1])
		}
		seen := map[string]bool{}
		for _, heads := range trees {
			if !projective(heads) {
				t.Fatalf("n=%d: %v is no projective tree of one root", n, heads)
			}
			key := fmt.Sprint(heads)
			if seen[key] {
				t.Fatalf("n=%d: %v twice", n, heads)
			}
			seen[key] = true
		}
	}
}

func projective(heads []int) bool {
	n, roots := len(heads), 0
	for d, h := range heads {
		if h == 0 {
			roots++
		}
		if h < 0 || h > n || h == d+1 {
			return false
		}
		for x, steps := d+1, 0; x != 0; x, steps = heads[x-1], steps+1 {
			if steps > n {
				return false // a cycle
			}
		}
	}
	for a, ha := range heads {
		for b, hb := range heads {
			l1, r1 := min(a+1, ha), max(a+1, ha)
			l2, r2 := min(b+1, hb), max(b+1, hb)
			if l1 < l2 && l2 < r1 && r1 < r2 {
				return false
			}
		}
	}
	return roots == 1
}
