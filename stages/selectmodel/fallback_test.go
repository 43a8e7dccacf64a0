package selectmodel

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
)

// TestZeroFallbackSaysRank: by likelihood, what the note of a model of
// log-likelihood −Inf says it was ranked by is what rank ranks it by —
// after every model without sentences of probability 0, fewer of them
// first, then the log-likelihood of the others (the number the note
// gives); a model with no other sentence says so. A finite model has no
// note, and by accuracy or rules none has (the likelihood ranks nothing,
// or breaks ties only).
func TestZeroFallbackSaysRank(t *testing.T) {
	ll := func(zero, sentences int, nonzero float64) *DevLikelihood {
		l := &DevLikelihood{LogLik: format.Real(nonzero), LogLikSentences: sentences, ZeroProbability: zero, LogLikNonzero: format.Real(nonzero)}
		if zero > 0 {
			l.LogLik = format.Real(math.Inf(-1))
		}
		return l
	}
	rows := []Row{
		{Model: "all-zero", DevLikelihood: ll(3, 3, 0)},
		{Model: "one-zero-low", DevLikelihood: ll(1, 3, -9)},
		{Model: "finite", DevLikelihood: ll(0, 3, -20)},
		{Model: "one-zero-high", DevLikelihood: ll(1, 3, -4)},
		{Model: "two-zero", DevLikelihood: ll(2, 3, -1)},
	}
	var rep Report
	for i := range rows {
		rep.zeroFallback(&rows[i], Likelihood)
	}
	var got []string
	for _, i := range rank(rows, Likelihood) {
		got = append(got, rows[i].Model)
	}
	want := []string{"finite", "one-zero-high", "one-zero-low", "two-zero", "all-zero"}
	if !slices.Equal(got, want) {
		t.Fatalf("ranked %v, want %v", got, want)
	}
	if len(rows[2].Fallbacks) != 0 {
		t.Errorf("a finite log-likelihood fell back: %q", rows[2].Fallbacks)
	}
	for _, c := range []struct {
		row  int
		want string
	}{
		{0, "log-likelihood -inf: 3 of its 3 dev sentences have probability 0; ranked after the models without such sentences, by fewer of them (it has no others: ties keep the order given)"},
		{1, "log-likelihood -inf: 1 of its 3 dev sentences have probability 0; ranked after the models without such sentences, by fewer of them, then by the log-likelihood of the others (-9)"},
		{3, "then by the log-likelihood of the others (-4)"},
		{4, "2 of its 3 dev sentences have probability 0"},
	} {
		if f := rows[c.row].Fallbacks; len(f) != 1 || !strings.Contains(f[0], c.want) {
			t.Errorf("%s: fallbacks %q, want one with %q", rows[c.row].Model, f, c.want)
		}
	}
	if len(rep.Fallbacks) != 4 || !strings.HasPrefix(rep.Fallbacks[0], "all-zero: log-likelihood -inf") {
		t.Errorf("stderr's lines %q: want the 4 notes, each named by its model, in the order given", rep.Fallbacks)
	}
	for _, by := range []Criterion{Accuracy, Rules, Contrast, Bound} {
		r := Row{Model: "m", DevLikelihood: ll(1, 3, -4)}
		var rep Report
		rep.zeroFallback(&r, by)
		if len(r.Fallbacks)+len(rep.Fallbacks) != 0 {
			t.Errorf("--by %s: %q", by, r.Fallbacks)
		}
	}
}
