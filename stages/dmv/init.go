package dmv

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Initializers (DESIGN.md §5.2). Each gives an estimator its θ⁽⁰⁾.
const (
	InitZero        = "zero"         // all weights 1, handed to the estimator's own first E-step
	InitKM          = "km"           // Smith's K&M: a special E-step with no dynamic program
	InitKMPRToolkit = "km-prtoolkit" // km's masses, the stop counts and smoothing of pr-toolkit's K&M
	InitKlein       = "klein"        // Klein's harmonic start: head-normalised, 1/(c + distance)
	InitLocal       = "local"        // inside–outside under edge weight 1 + 1/|i−j|
	InitUniform     = "uniform"      // every multinomial uniform
	InitRandom      = "random"       // every multinomial from a flat Dirichlet
	InitAdHoc       = "adhoc"        // Spitkovsky et al.'s Ad-Hoc*: one Viterbi step under harmonic scores
)

// Initializers lists the names Initialize accepts.
var Initializers = []string{InitZero, InitKM, InitKMPRToolkit, InitKlein, InitLocal, InitUniform, InitRandom, InitAdHoc}

// DefaultInit is the start of every trainer.
const DefaultInit = InitKM

// DefaultKleinConst is the constant klein adds to every distance.
const DefaultKleinConst = 1.0

// InitOptions configure Initialize.
type InitOptions struct {
	Lambda float64 // add-λ in the initializer's M-step: the run's own λ
	// VBAlpha, when > 0, makes the initializer's M-step the run's VB
	// M-step instead (VariationalBayes with this α).
	VBAlpha    float64
	Seed       uint64  // for random
	KleinConst float64 // c in klein's 1/(c + |i−j|); must be > −1
	Workers    int
	// Valence is the start's valence settings (zero: the plain DMV's);
	// ChildBackoff the run's child back-off weight (MStepBackoff).
	Valence      Valence
	ChildBackoff float64
	// LearnBackoff, when not nil, makes the start one that learns its
	// child back-off with this prior (StartBackoff).
	LearnBackoff *LearnedBackoff
}

// Start is θ⁽⁰⁾, what an estimator's first E-step runs on. It is either a
// normalised model (Weights false), a model of variational Bayes (VB:
// an initializer's counts through VB's M-step) or, for zero, a table of
// unnormalised weights (all 1) that is not a model: every estimator loads
// it into its chart exactly as it would a model — with β for DA, the skew
// for SDA, e^{δ|i−j|} for Model L, log weights for CE — so one mechanism
// serves all of them.
type Start struct {
	Params  *Params
	Weights bool
	VB      bool
}

// mstep is the initializer's M-step on counts: the run's own, add-λ or
// VB's.
func (o InitOptions) mstep(counts *Params) Start {
	if o.VBAlpha > 0 {
		return Start{Params: VariationalBayes(counts, o.VBAlpha), VB: true}
	}
	if o.LearnBackoff != nil && counts.Backoff != nil { // an E-step's on a start that learns it
		return Start{Params: MStepLearnedBackoff(counts, o.Lambda, *o.LearnBackoff)}
	}
	return o.start(Start{Params: MStepBackoff(counts, o.Lambda, o.ChildBackoff)})
}

// start is st, made one that learns its back-off when o asks.
func (o InitOptions) start(st Start) Start {
	if o.LearnBackoff != nil {
		st.Params = StartBackoff(st.Params, *o.LearnBackoff)
	}
	return st
}

// Initialize makes θ⁽⁰⁾ for the corpus with the named initializer.
func Initialize(c *Corpus, name string, opts InitOptions) (Start, error) {
	t, v := c.Tags.Len(), opts.Valence.OrDMV()
	if err := v.Check(); err != nil {
		return Start{}, err
	}
	if err := CheckBackoff(opts.ChildBackoff); err != nil {
		return Start{}, err
	}
	if opts.LearnBackoff != nil {
		if err := errors.Join(opts.LearnBackoff.Check(), opts.LearnBackoff.CheckFor(v)); err != nil {
			return Start{}, err
		}
		if opts.ChildBackoff != 0 || opts.VBAlpha > 0 {
			return Start{}, errors.New("a learned back-off is not with a fixed one (--child-backoff) nor with variational Bayes")
		}
	}
	switch name {
	case InitZero:
		ones := NewValenceParams(t, v)
		ones.Fill(1)
		return opts.start(Start{Params: ones, Weights: true}), nil
	case InitKM:
		counts, err := kmCounts(c, v)
		if err != nil {
			return Start{}, err
		}
		return opts.mstep(counts), nil
	case InitKMPRToolkit:
		counts, err := kmPRToolkitCounts(c, v)
		if err != nil {
			return Start{}, err
		}
		return opts.mstep(counts), nil
	case InitKlein:
		if !(opts.KleinConst > -1) || math.IsInf(opts.KleinConst, 0) {
			return Start{}, fmt.Errorf("the klein constant must be a finite number > −1, not %v", opts.KleinConst)
		}
		counts, err := kleinCounts(c, opts.KleinConst, v)
		if err != nil {
			return Start{}, err
		}
		return opts.mstep(counts), nil
	case InitAdHoc:
		counts, err := adhocCounts(c, v)
		if err != nil {
			return Start{}, err
		}
		return opts.mstep(counts), nil
	case InitLocal:
		ones := NewValenceParams(t, v)
		ones.Fill(1)
		local := func(d int) float64 { return 1 + 1/float64(max(d, 1)) }
		res := NewEStepper(c).Run(ones, EStepOptions{Dist: local, Workers: opts.Workers})
		if res.Err != nil {
			return Start{}, res.Err
		}
		return opts.mstep(res.Counts), nil
	case InitUniform:
		return opts.start(Start{Params: MStep(NewValenceParams(t, v), 1)}), nil
	case InitRandom:
		rng := rand.New(rand.NewPCG(opts.Seed, 0x5eed))
		draws := NewValenceParams(t, v)
		for _, tab := range draws.Tables() {
			for i := range tab {
				tab[i] = rng.ExpFloat64() // Gamma(1): normalised, a flat Dirichlet
			}
		}
		return opts.start(Start{Params: MStep(draws, 0)}), nil
	}
	return Start{}, fmt.Errorf("unknown initializer %q (want one of %v)", name, Initializers)
}

// InitialModel is the initializer's start as a model: for a weight table
// (zero), the M-step (with opts' λ and child back-off, or VB's) of one
// plain E-step over it — what dmv-init writes, and what plain EM's first
// iteration gives.
func InitialModel(c *Corpus, name string, opts InitOptions) (*Params, error) {
	s, err := InitialStart(c, name, opts)
	return s.Params, err
}

// InitialStart is InitialModel with its VB: whether it is a model of
// variational Bayes (opts.VBAlpha: km, klein, local and zero; uniform and
// random are normalised whatever the run's M-step).
func InitialStart(c *Corpus, name string, opts InitOptions) (Start, error) {
	s, err := Initialize(c, name, opts)
	if err != nil || !s.Weights {
		return s, err
	}
	res := NewEStepper(c).Run(s.Params, EStepOptions{Workers: opts.Workers})
	if res.Err != nil {
		return Start{}, res.Err
	}
	return opts.mstep(res.Counts), nil
}

// KMCounts are the counts of Smith's K&M initializer (2006, §3.3.1): a
// special E-step with no dynamic program. In a sentence of n tokens every
// token is the root with mass 1/n, and token j is a child of token i ≠ j
// with mass Z(n, j)/|i−j|, Z(n, j) = (1 − 1/n)/Σ_{i≠j} 1/|i−j|: each
// token's mass as a dependent sums to 1 − 1/n. The stop counts are
// grind's own rule (chainDecisions); the papers give none.
func KMCounts(c *Corpus) (*Params, error) { return kmCounts(c, DMVValence) }

// kmCounts are KMCounts with valence settings v: the K&M masses give no
// order among a head's children, so every child valence gets the same
// counts (an EVG start tells its valences apart only after EM).
func kmCounts(c *Corpus, v Valence) (*Params, error) {
	counts := NewValenceParams(c.Tags.Len(), v)
	err := kmMasses(c, counts, func(tags []int, mass [2][]float64) { chainDecisions(counts, tags, mass) })
	return counts, err
}

// kmMasses adds every sentence's K&M root and child masses to counts and
// hands decide the sentence with the expected children of each head
// side, mass[dir][head].
func kmMasses(c *Corpus, counts *Params, decide func(tags []int, mass [2][]float64)) error {
	var mass [2][]float64
	return c.Each(0, c.Len(), func(_ int, tags, _ []int) {
		n := len(tags)
		for d := range mass {
			mass[d] = append(mass[d][:0], make([]float64, n)...)
		}
		for dep, td := range tags {
			counts.Root[td] += 1 / float64(n)
			z := 0.0
			for h := range tags {
				if h != dep {
					z += 1 / float64(abs(h-dep))
				}
			}
			for h, th := range tags {
				if h == dep {
					continue
				}
				m := (1 - 1/float64(n)) / float64(abs(h-dep)) / z
				dir := side(h, dep)
				for cv := 0; cv < counts.V.Child; cv++ {
					counts.Child[counts.ChildAt(th, dir, cv, td)] += m
				}
				mass[dir][h] += m
			}
		}
		decide(tags, mass)
	})
}

// KMPRToolkitCounts are the counts of pr-toolkit's K&M start
// (KleinManningInitializer.initNoah, "Noah Smith's version of K&M
// initialization"), to be normalised: km's root and child masses, 0.1
// added to every count, and decisions in which every head side stops at
// its first decision and, when it has children (mass k > 0), continues
// k times after the first — then a share s of each such side moved to
// continue at the first decision and stop after it (so: continue s, stop
// 1 − s; continue k − s, stop s). s is one number for the corpus: 0.9
// times the largest share, at most 1, that leaves every smoothed count
// positive. Further stop valences decide as the second.
func KMPRToolkitCounts(c *Corpus) (*Params, error) { return kmPRToolkitCounts(c, DMVValence) }

func kmPRToolkitCounts(c *Corpus, v Valence) (*Params, error) {
	if v.Stop < 2 {
		return nil, errors.New("km-prtoolkit needs a stop valence of 2 or more")
	}
	counts := NewValenceParams(c.Tags.Len(), v)
	sides := make([]float64, len(counts.Stop)) // head sides with children, at their first decisions
	err := kmMasses(c, counts, func(tags []int, mass [2][]float64) {
		for h, th := range tags {
			for dir := Left; dir <= Right; dir++ {
				first, next := counts.DecisionAt(th, dir, 0), counts.DecisionAt(th, dir, 1)
				counts.Stop[first]++
				if k := mass[dir][h]; k > 0 {
					counts.Cont[next] += k
					sides[first]++
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	for _, tab := range counts.Tables() {
		for i := range tab {
			tab[i] += 0.1
		}
	}
	s := 1.0 // the largest share, at most 1, that leaves every count positive
	for h := range counts.T {
		for dir := Left; dir <= Right; dir++ {
			first, next := counts.DecisionAt(h, dir, 0), counts.DecisionAt(h, dir, 1)
			if n := sides[first]; n > 0 {
				s = min(s, counts.Stop[first]/n, counts.Cont[next]/n)
			}
		}
	}
	s *= 0.9
	for h := range counts.T {
		for dir := Left; dir <= Right; dir++ {
			first, next := counts.DecisionAt(h, dir, 0), counts.DecisionAt(h, dir, 1)
			if n := sides[first]; n > 0 {
				counts.Stop[first] -= s * n
				counts.Cont[first] += s * n
				counts.Stop[next] += s * n
				counts.Cont[next] -= s * n
			}
			for val := 2; val < v.Stop; val++ {
				i := counts.DecisionAt(h, dir, val)
				counts.Stop[i], counts.Cont[i] = counts.Stop[next], counts.Cont[next]
			}
		}
	}
	return counts, nil
}

// KleinCounts are the counts of Klein's own description of the harmonic
// start (Klein 2005, §6.2): "all non-ROOT words took the same number of
// arguments, and each took other words as arguments in inverse proportion
// to (a constant plus) the distance between them. The ROOT always had a
// single argument and took each word with equal probability."
// Head-normalised, unlike KMCounts: in a sentence of n tokens each token
// takes (n − 1)/n arguments (so that all of them take the n − 1 a tree
// has), spread over the other tokens in proportion to 1/(cst + |i−j|); the
// root takes each token with mass 1/n. The stop counts follow grind's
// rule (chainDecisions); Klein gives none.
func KleinCounts(c *Corpus, cst float64) (*Params, error) { return kleinCounts(c, cst, DMVValence) }

// kleinCounts are KleinCounts with valence settings v (as kmCounts).
func kleinCounts(c *Corpus, cst float64, v Valence) (*Params, error) {
	counts := NewValenceParams(c.Tags.Len(), v)
	var mass [2][]float64
	err := c.Each(0, c.Len(), func(_ int, tags, _ []int) {
		n := len(tags)
		for d := range mass {
			mass[d] = append(mass[d][:0], make([]float64, n)...)
		}
		for h, th := range tags {
			counts.Root[th] += 1 / float64(n)
			z := 0.0
			for a := range tags {
				if a != h {
					z += 1 / (cst + float64(abs(h-a)))
				}
			}
			for a, ta := range tags {
				if a == h {
					continue
				}
				m := (1 - 1/float64(n)) / (cst + float64(abs(h-a))) / z
				dir := side(h, a)
				for cv := 0; cv < v.Child; cv++ {
					counts.Child[counts.ChildAt(th, dir, cv, ta)] += m
				}
				mass[dir][h] += m
			}
		}
		chainDecisions(counts, tags, mass)
	})
	return counts, err
}

// side is the direction of a child at position a from its head at h.
func side(h, a int) int {
	if a < h {
		return Left
	}
	return Right
}

// chainDecisions adds grind's stop and continue counts for heads whose
// sides received mass[dir][h] expected children: the counts of a chain of
// k children, with k fractional — continue at the first decision with
// mass min(1, k), stop there with the rest; after a first child continue
// max(0, k − 1) times and stop min(1, k) times. (The papers leave these
// counts open; this rule is grind's.) With valence settings the chain
// reaches the decision at valence v < Stop − 1 with mass
// min(1, max(0, k − (v − 1))) (1 at v = 0), continues there with
// min(1, max(0, k − v)) and stops with the rest; the last valence
// continues max(0, k − v) times and stops with all that reaches it. For
// the plain DMV's two valences this is the rule above.
func chainDecisions(counts *Params, tags []int, mass [2][]float64) {
	last := counts.V.Stop - 1
	for h, th := range tags {
		for dir := Left; dir <= Right; dir++ {
			k := mass[dir][h]
			for v := 0; v <= last; v++ {
				reach := 1.0
				if v > 0 {
					reach = min(1, max(0, k-float64(v-1)))
				}
				i := counts.DecisionAt(th, dir, v)
				if v == last {
					counts.Cont[i] += max(0, k-float64(v))
					counts.Stop[i] += reach
					continue
				}
				cont := min(1, max(0, k-float64(v)))
				counts.Cont[i] += cont
				counts.Stop[i] += reach - cont
			}
		}
	}
}
