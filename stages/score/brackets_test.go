package score

import (
	"math"
	"slices"
	"testing"

	"github.com/grind-nlp/grind/stages/bintree"
)

func TestGoldBracketsCollapseUnariesAndDropEmpties(t *testing.T) {
	spans, n, err := GoldBrackets("(S (NP (NP (DT the) (NN dog))) (-NONE- *T*) (VP (VBD ran) (ADVP (RB away))))")
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]int{{0, 2}, {0, 4}, {2, 4}}
	if n != 4 || !slices.Equal(spans, want) {
		t.Errorf("got %v over %d tokens, want %v over 4", spans, n, want)
	}
}

func TestDependencyBrackets(t *testing.T) {
	// the(1)←dog(2)←ran(3) root, away(4)←ran: spans of dog [0,2) and ran [0,4).
	got := DependencyBrackets([]int{2, 3, 0, 3})
	if want := [][2]int{{0, 2}, {0, 4}}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// enumerateBinary lists the bracketings (spans of ≥ 2) of every binary
// tree over [i, j).
func enumerateBinary(i, j int) [][][2]int {
	if j-i == 1 {
		return [][][2]int{nil}
	}
	var out [][][2]int
	for k := i + 1; k < j; k++ {
		for _, l := range enumerateBinary(i, k) {
			for _, r := range enumerateBinary(k, j) {
				b := append(append([][2]int{{i, j}}, l...), r...)
				out = append(out, b)
			}
		}
	}
	return out
}

func TestUniformTreeBracketAgainstEnumeration(t *testing.T) {
	for n := 1; n <= 8; n++ {
		trees := enumerateBinary(0, n)
		for i := 0; i < n; i++ {
			for j := i + 2; j <= n; j++ {
				hits := 0
				for _, b := range trees {
					if slices.Contains(b, [2]int{i, j}) {
						hits++
					}
				}
				want := float64(hits) / float64(len(trees))
				if got := bintree.BracketProb(j-i, n); math.Abs(got-want) > 1e-12 {
					t.Errorf("n=%d (%d,%d): %v, want %v", n, i, j, got, want)
				}
			}
		}
	}
}
