package dmv

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/brute"
)

// backoffParts are a model that learns its back-off given by its parts:
// full[ChildAt(h, dir, v, a)] = P_f(a | h, dir, v), back[ChildAt(0, dir,
// v, a)] = P_b(a | dir, v) and lambda[DecisionAt-like (h·2+dir)·Child+v].
type backoffParts struct {
	model        *Params // the mixed model (Child and Backoff set)
	full, back   []float64
	lambda       []float64
	valence      Valence
	tags         int
	lambdaOfSlot func(h, dir, v int) float64
}

// randomBackoffModel draws P_f, P_b and λ at random and mixes them.
func randomBackoffModel(rng *rand.Rand, tags int, v Valence) backoffParts {
	base := randomValenceWeights(rng, tags, v, true) // P_f, root, decisions
	backs := randomValenceWeights(rng, tags, v, true)
	bp := backoffParts{valence: v, tags: tags, full: append([]float64(nil), base.Child...), lambda: make([]float64, tags*2*v.Child)}
	bp.back = backs.Child
	for i := range bp.lambda {
		bp.lambda[i] = 0.1 + 0.8*rng.Float64()
	}
	bp.lambdaOfSlot = func(h, dir, cv int) float64 { return bp.lambda[(h*2+dir)*v.Child+cv] }
	m := base.Clone()
	m.Backoff = make([]float64, len(m.Child))
	for dir := Left; dir <= Right; dir++ {
		for cv := 0; cv < v.Child; cv++ {
			// P_b(a | dir, v) is head 0's row of backs
			row := backs.Child[backs.ChildAt(0, dir, cv, 0):backs.ChildAt(0, dir, cv, tags)]
			for h := 0; h < tags; h++ {
				mix(m, m.ChildAt(h, dir, cv, 0), row, bp.lambdaOfSlot(h, dir, cv))
			}
		}
	}
	bp.model = m
	return bp
}

// enumerate scores every tree of x and every choice of distribution for
// each of its attachments from the parts alone, and returns log Z and the
// expected counts of attachments and of back-off choices (Child and
// Backoff entries).
func (bp backoffParts) enumerate(x []int, counts *Params) float64 {
	v := bp.valence
	type derivation struct {
		logp  float64
		child []int  // child entries
		back  []bool // whether each was drawn from the back-off
	}
	var ds []derivation
	for _, heads := range brute.ProjectiveTrees(len(x)) {
		logp := 0.0
		var child []int
		tabs := bp.model.Tables()
		eachTreeEvent(x, heads, bp.model, func(table, i int) {
			if table == 1 {
				child = append(child, i)
				return
			}
			logp += math.Log(tabs[table][i])
		})
		for mask := 0; mask < 1<<len(child); mask++ {
			d := derivation{logp: logp, child: child, back: make([]bool, len(child))}
			for k, i := range child {
				h := i / (2 * v.Child * bp.tags)
				dir := i / (v.Child * bp.tags) % 2
				cv := i / bp.tags % v.Child
				a := i % bp.tags
				l := bp.lambdaOfSlot(h, dir, cv)
				if mask&(1<<k) != 0 {
					d.back[k] = true
					d.logp += math.Log(l * bp.back[bp.model.ChildAt(0, dir, cv, a)])
				} else {
					d.logp += math.Log((1 - l) * bp.full[i])
				}
			}
			ds = append(ds, d)
		}
	}
	logZ := math.Inf(-1)
	for _, d := range ds {
		logZ = logAdd(logZ, d.logp)
	}
	for _, d := range ds {
		q := math.Exp(d.logp - logZ)
		for k, i := range d.child {
			counts.Child[i] += q
			if d.back[k] {
				counts.Backoff[i] += q
			}
		}
	}
	return logZ
}

// corpusOfInts makes a corpus of tag-number sentences over tags A, B, C…,
// with one sentence of every tag last so that the corpus's tag numbers are
// the test's; it returns the sentences with that one too.
func corpusOfInts(t *testing.T, sents [][]int, tags int) (*Corpus, [][]int) {
	t.Helper()
	names := []string{"A", "B", "C", "D"}[:tags]
	var recs []*format.Sentence
	all := append([][]int(nil), sents...)
	every := make([]int, tags)
	for i := range every {
		every[i] = i
	}
	all = append(all, every)
	for _, x := range all {
		s := &format.Sentence{}
		for _, k := range x {
			s.Tags = append(s.Tags, names[k])
		}
		recs = append(recs, s)
	}
	c, err := NewCorpus(recs, NewTagSet(names...))
	if err != nil {
		t.Fatal(err)
	}
	return c, all
}

// The E-step on a model that learns its back-off — the chart on the mixed
// child distributions, then SplitBackoff — gives the log-likelihood and
// the expected counts of attachments and of back-off choices that
// enumerating every tree and every choice of each attachment gives, for
// the plain DMV and EVG settings.
func TestLearnedBackoffEStepMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 9))
	for _, v := range []Valence{DMVValence, {2, 2}, {3, 3}, {1, 2}} {
		for trial := 0; trial < 3; trial++ {
			tags := 2 + trial%2
			bp := randomBackoffModel(rng, tags, v)
			var sents [][]int
			for k := 0; k < 6; k++ {
				x := make([]int, 1+rng.IntN(4))
				for i := range x {
					x[i] = rng.IntN(tags)
				}
				sents = append(sents, x)
			}
			c, all := corpusOfInts(t, sents, tags)
			want := NewValenceParams(tags, v)
			want.Backoff = make([]float64, len(want.Child))
			wantLL := 0.0
			for _, x := range all {
				wantLL += bp.enumerate(x, want)
			}
			res := NewEStepper(c).Run(bp.model, EStepOptions{Workers: 2})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if relErr(res.LogLik, wantLL) > 1e-10 {
				t.Errorf("%v: log-likelihood %v, by enumeration %v", v, res.LogLik, wantLL)
			}
			for i := range want.Child {
				if math.Abs(res.Counts.Child[i]-want.Child[i]) > 1e-9 || math.Abs(res.Counts.Backoff[i]-want.Backoff[i]) > 1e-9 {
					t.Fatalf("%v: entry %d: attachments %v, back-off %v; by enumeration %v, %v", v, i,
						res.Counts.Child[i], res.Counts.Backoff[i], want.Child[i], want.Backoff[i])
				}
			}
		}
	}
}

// logPrior is the log of the prior MStepLearnedBackoff is the MAP
// estimate under, up to a constant: Dirichlet(λ + 1) on every multinomial
// (root, decisions, P_f, P_b) and Beta(Full + 1, Back + 1) on every λ. The
// parts are recovered from the model: λ = Σ_a q, P_b = q / λ, P_f = (P −
// q) / (1 − λ).
func logPrior(p *Params, lambda float64, prior LearnedBackoff) float64 {
	// P_b once per group: at its first row
	first := map[int]bool{}
	for _, g := range prior.groups(p) {
		first[g[0]] = true
	}
	lg := func(c, x float64) float64 {
		if c == 0 {
			return 0
		}
		return c * math.Log(x)
	}
	s := 0.0
	for _, x := range p.Root {
		s += lg(lambda, x)
	}
	for i := range p.Stop {
		s += lg(lambda, p.Stop[i]) + lg(lambda, p.Cont[i])
	}
	t := p.T
	for dir := Left; dir <= Right; dir++ {
		for v := 0; v < p.V.Child; v++ {
			for h := 0; h < t; h++ {
				lo := p.ChildAt(h, dir, v, 0)
				l := sum(p.Backoff[lo : lo+t])
				s += lg(prior.Back, l) + lg(prior.Full, 1-l)
				for a := 0; a < t; a++ {
					s += lg(lambda, (p.Child[lo+a]-p.Backoff[lo+a])/(1-l))
					if first[lo] {
						s += lg(lambda, p.Backoff[lo+a]/l)
					}
				}
			}
		}
	}
	return s
}

// EM with the learned back-off never lowers log p(x) + log prior, from a
// start of StartBackoff, for the plain DMV and EVG, with and without
// add-λ, the back-off forgetting the head or the valence; and the choices' pseudo-counts pull λ where they should: with
// no data a head's λ is the prior's mean.
func TestLearnedBackoffEMNeverDecreases(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	var sents [][]int
	for k := 0; k < 30; k++ {
		x := make([]int, 1+rng.IntN(6))
		for i := range x {
			x[i] = rng.IntN(3)
		}
		sents = append(sents, x)
	}
	c, _ := corpusOfInts(t, sents, 3)
	for _, v := range []Valence{DMVValence, {2, 2}, {3, 2}, {2, 3}} {
		for _, lambda := range []float64{0, 0.5} {
			prior := DefaultLearnedBackoff
			prior.ForgetValence = v.Child > 1 && lambda > 0
			p := StartBackoff(randomValenceWeights(rng, 3, v, true), prior)
			es := NewEStepper(c)
			last := math.Inf(-1)
			for it := 0; it < 25; it++ {
				res := es.Run(p, EStepOptions{Workers: 1})
				obj := res.LogLik + logPrior(p, lambda, prior)
				if obj < last-1e-9 {
					t.Fatalf("%v, λ = %v: iteration %d: objective %v after %v", v, lambda, it, obj, last)
				}
				last = obj
				p = MStepLearnedBackoff(res.Counts, lambda, prior)
				if err := CheckDistribution(NewTagSet("A", "B", "C"), p); err != nil {
					t.Fatal(err)
				}
				if err := checkBackoff(NewTagSet("A", "B", "C"), p); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// No counts: every λ is the prior's mean, the back-off uniform.
	p := MStepLearnedBackoff(&Params{T: 2, V: DMVValence, Root: []float64{1, 0}, Child: make([]float64, 8), Backoff: make([]float64, 8),
		Stop: []float64{1, 0, 1, 0, 1, 0, 1, 0}, Cont: make([]float64, 8)}, 0, LearnedBackoff{Full: 1, Back: 3})
	if got := p.Backoff[p.ChildAt(1, Right, 0, 0)]; math.Abs(got-0.75*0.5) > 1e-15 {
		t.Errorf("with no counts, a back-off share of %v, want λ = 3/4 times ½", got)
	}
}

// A model that learns its back-off is written with its backoff events
// after each head's children and read back the same, its hash differing
// from the same child distributions without them; a backoff share above
// its child entry is refused.
func TestLearnedBackoffRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	ts := NewTagSet("A", "B")
	for _, v := range []Valence{DMVValence, {2, 2}} {
		bp := randomBackoffModel(rng, 2, v)
		var buf bytes.Buffer
		if err := WriteTable(&buf, ts, bp.model, format.Prob, nil); err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(buf.Bytes(), []byte(`{"ev":"backoff","head":"A","dir":"left",`)) {
			t.Fatalf("%v: no backoff events written:\n%s", v, buf.Bytes())
		}
		got, err := readModelBytes(t, buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		for i := range bp.model.Backoff {
			if got.Params.Backoff[i] != bp.model.Backoff[i] || got.Params.Child[i] != bp.model.Child[i] {
				t.Fatalf("%v: entry %d read back as %v/%v, written %v/%v", v, i, got.Params.Child[i], got.Params.Backoff[i], bp.model.Child[i], bp.model.Backoff[i])
			}
		}
		plain := &Table{Tags: ts, Params: bp.model.Clone(), Unit: format.Prob}
		plain.Params.Backoff = nil
		if plain.Hash() == got.Hash() {
			t.Errorf("%v: the hash does not see the back-off", v)
		}
		bad := bp.model.Clone()
		bad.Backoff[0] = bad.Child[0] + 0.01
		if err := WriteTable(&bytes.Buffer{}, ts, bad, format.Prob, nil); err == nil {
			t.Errorf("%v: a back-off share above its child entry was written", v)
		}
	}
}

// A model that learns its back-off, extended with two unseen tags (their
// average class, not normalised) and renormalised, is a distribution again
// whose every back-off share is the same part of its child entry as before.
func TestRenormaliseKeepsTheBackoffShares(t *testing.T) {
	bp := randomBackoffModel(rand.New(rand.NewPCG(3, 3)), 3, Valence{2, 2})
	ext := extendParams(bp.model, 2)
	q := Renormalise(ext)
	ts := NewTagSet("A", "B", "C", "X", "Y")
	if err := errors.Join(CheckDistribution(ts, q), checkBackoff(ts, q)); err != nil {
		t.Fatal(err)
	}
	for i := range q.Child {
		if math.Abs(q.Backoff[i]/q.Child[i]-ext.Backoff[i]/ext.Child[i]) > 1e-12 {
			t.Fatalf("entry %d: share %v of the whole, %v before", i, q.Backoff[i]/q.Child[i], ext.Backoff[i]/ext.Child[i])
		}
	}
}
