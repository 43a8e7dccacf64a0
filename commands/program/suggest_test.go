package program

import (
	"math/rand/v2"
	"testing"
)

// osa is the optimal string alignment distance by its recursive
// definition, for checking editDistance's rolling rows on short strings.
func osa(a, b string) int {
	switch {
	case a == "":
		return len(b)
	case b == "":
		return len(a)
	}
	i, j := len(a), len(b)
	cost := 1
	if a[i-1] == b[j-1] {
		cost = 0
	}
	d := min(osa(a[:i-1], b)+1, osa(a, b[:j-1])+1, osa(a[:i-1], b[:j-1])+cost)
	if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
		d = min(d, osa(a[:i-2], b[:j-2])+1)
	}
	return d
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"tl", "tol", 1}, {"hrad", "hard", 1}, {"lamda", "lambda", 1}, {"kitten", "sitting", 3}, {"ab", "ba", 1}, {"ca", "abc", 3}, {"", "abc", 3}} {
		if d := editDistance(tc.a, tc.b); d != tc.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.d)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		b := make([]byte, rng.IntN(7))
		for i := range b {
			b[i] = "abc"[rng.IntN(3)]
		}
		return string(b)
	}
	for range 2000 {
		a, b := word(), word()
		if d, want := editDistance(a, b), osa(a, b); d != want {
			t.Fatalf("editDistance(%q, %q) = %d, the definition gives %d", a, b, d, want)
		}
	}
}

func TestNearest(t *testing.T) {
	flags := []string{"tol", "max-iter", "max-memory", "sparsity", "sparsity-direction", "sparsity-root", "o", "hard"}
	for _, tc := range []struct{ typed, want string }{
		{"tl", "tol"}, {"toll", "tol"}, {"max-itr", "max-iter"}, {"maxiter", "max-iter"}, {"sparsity-dir", "sparsity-direction"},
		{"sparsty", "sparsity"},
		{"spars", ""}, // three flags begin so, none near enough
		{"max", ""},
		{"foo", ""}, {"x", "o"}, {"hrad", "hard"}, {"verbose", ""},
	} {
		if got := Nearest(tc.typed, flags); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
}
