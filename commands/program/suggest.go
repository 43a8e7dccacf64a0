package program

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// withSuggestion adds to urfave/cli's "flag provided but not defined:
// -tl" the flag of app the user most likely meant ("did you mean
// --tol?"), when one is near enough to be a typo of it.
func withSuggestion(app *cli.App, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return err
	}
	var names []string
	for _, f := range app.VisibleFlags() {
		names = append(names, f.Names()...)
	}
	best := Nearest(name, names)
	if best == "" {
		return err
	}
	if len(best) == 1 {
		return fmt.Errorf("%w (did you mean -%s?)", err, best)
	}
	return fmt.Errorf("%w (did you mean --%s?)", err, best)
}

// Nearest is the candidate s is most likely a typo of: the nearest in
// edit distance (a letter inserted, deleted or replaced, or two
// neighbours swapped) within one edit for up to 4 letters, two for up
// to 8 and three beyond, or else the one candidate s begins (--sparsity-dir
// for --sparsity-direction); "" when there is none. Ties go to the
// first candidate.
func Nearest(s string, candidates []string) string {
	limit := 3
	switch {
	case len(s) <= 4:
		limit = 1
	case len(s) <= 8:
		limit = 2
	}
	best, bestDist := "", limit+1
	for _, c := range candidates {
		if d := editDistance(s, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	if best != "" {
		return best
	}
	prefixed := ""
	for _, c := range candidates {
		if len(s) >= 3 && strings.HasPrefix(c, s) {
			if prefixed != "" {
				return "" // two flags begin so: no guess
			}
			prefixed = c
		}
	}
	return prefixed
}

// editDistance is the optimal string alignment distance between a and b
// (Levenshtein's, with a swap of neighbouring letters one edit), over
// bytes: flag and program names are ASCII.
func editDistance(a, b string) int {
	// rows i-2, i-1 and i of the table d[i][j] = distance(a[:i], b[:j])
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
