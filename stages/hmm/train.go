package hmm

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/emloop"
	"github.com/grind-nlp/grind/stages/rundir"
	"github.com/grind-nlp/grind/stages/schedule"
)

// Estimator names a training method.
type Estimator string

const (
	EM    Estimator = "em"    // Baum–Welch from a noisy uniform start
	MAP   Estimator = "map"   // EM with add-λ M-steps
	DA    Estimator = "da"    // deterministic annealing: E-steps on θ^β
	SDA   Estimator = "sda"   // skewed DA: E-steps on θ^β·θ₀^(1−β), θ₀ the start
	VB    Estimator = "vb"    // mean-field variational Bayes, Dirichlet priors
	Gibbs Estimator = "gibbs" // collapsed pointwise Gibbs sampling
)

// Estimators lists them.
var Estimators = []Estimator{EM, MAP, DA, SDA, VB, Gibbs}

// Options configure Train.
type Options struct {
	Order     int // 1 bitag, 2 trigram
	States    int // K; with a dictionary, the dictionary's tags
	Estimator Estimator
	// Iterations bounds the E-steps (EM, MAP, VB), the E-steps of each β
	// stage (DA, SDA) or the sweeps (Gibbs).
	Iterations int
	// Tol stops EM, MAP, VB and each DA stage when the objective's relative
	// change (under Stop emloop.Bits: its change in bits per token) falls
	// below it; 0 runs every iteration.
	Tol   float64
	Stop  emloop.Rule
	Seed  uint64
	Noise float64 // the start's noise (NoisyUniform)
	// Lambda is the add-λ of every M-step (MAP, DA, SDA; EM uses it too
	// when set).
	Lambda float64
	// AlphaT and AlphaE are the symmetric Dirichlet hyperparameters of
	// transition and emission rows (VB, Gibbs).
	AlphaT, AlphaE float64
	// Beta0 and BetaGrowth are DA's schedule: β ← min(1, β·growth) after
	// each stage converges, from Beta0; the last stage has β = 1.
	Beta0, BetaGrowth float64
	// Temp0 is the Gibbs sampler's starting temperature, lowered linearly
	// to 1 before the last Samples sweeps (1: no annealing).
	Temp0 float64
	// Samples is how many final sweeps the Gibbs decoding takes each
	// token's most frequent state from.
	Samples int
	// Dict, when not nil, restricts each word's states to its tags; the
	// states are then Dict.Tags.
	Dict *Dict
	// Viterbi decodes the best tagging instead of each token's most
	// probable state.
	Viterbi bool
	Workers int
	// Progress, when not nil, receives one record per iteration.
	Progress func(format.Iteration)
	// Checkpoint and Resume are the loop's (emloop.Loop), with the state
	// as a Snapshot; Gibbs checkpoints its sampler after every sweep.
	Checkpoint func(rundir.State[Snapshot]) error
	Resume     *rundir.State[Snapshot]
	// Clock is the origin of the log's seconds (zero: now).
	Clock time.Time
	// Start, when not nil, replaces the noisy uniform start (train-hmm -m:
	// a saved model over this corpus's space): EM's and MAP's first
	// E-step, DA's and SDA's θ₀ (SDA skews towards it), VB's first
	// E-step; the Gibbs sampler starts from its decoding (each token's
	// most probable state).
	Start *Params
	// Names, when not nil, names the states (a start model's) instead of
	// s0 … s(K−1); a dictionary's tags name them otherwise.
	Names []string
	// Save, when SaveEvery > 0, receives every SaveEvery-th iteration's
	// model (the one its E-step ran with: for VB the weights exp E[log θ])
	// and unseen-word weights (nil for the start), for --save-every.
	SaveEvery int
	Save      func(iter int, p *Params, unseen []float64) error
}

// Result is a trained model and the training corpus's induced tags.
type Result struct {
	// Params are the final weights: probabilities, for VB the variational
	// weights exp E[log θ] used for decoding, for Gibbs the posterior mean
	// given the kept samples' counts (Space.PosteriorMean); Gibbs decodes
	// the corpus from its samples, not from these.
	Params *Params
	// Unseen is the weight each state gives a word the last M-step (or
	// Gibbs's posterior mean) never counted (Model.Unseen).
	Unseen     []float64
	States     []string
	Tags       [][]int
	Objective  float64
	Iterations int
	// FellBack counts the sentences of probability 0 under Params,
	// tagged by the fallback (Decoder).
	FellBack int
}

// Train runs the estimator over the corpus and tags it.
func Train(c *Corpus, o Options) (*Result, error) {
	k := o.States
	var allowed []bool
	states := StateNames(k)
	if o.Names != nil {
		states = o.Names
	}
	if o.Dict != nil {
		k, allowed, states = len(o.Dict.Tags), o.Dict.Allowed, o.Dict.Tags
	}
	s, err := NewSpace(o.Order, k, len(c.Words), allowed)
	if err != nil {
		return nil, err
	}
	if o.Iterations < 1 {
		return nil, errors.New("need at least one iteration")
	}
	if o.Start != nil && (o.Start.Order != s.Order || o.Start.K != s.K || o.Start.V != s.V) {
		return nil, fmt.Errorf("a start model of order %d, %d states and %d words, not this HMM's %d, %d and %d", o.Start.Order, o.Start.K, o.Start.V, s.Order, s.K, s.V)
	}
	if !(o.Noise > 0) && o.Estimator != Gibbs && o.Start == nil {
		// At an exactly symmetric point every state gets the same counts
		// and EM can never tell them apart.
		return nil, errors.New("the start needs noise > 0")
	}
	if o.Estimator == Gibbs {
		return trainGibbs(c, s, states, o)
	}
	es := NewEStepper(c, s, o.Workers)
	clock := o.Clock
	if clock.IsZero() {
		clock = time.Now()
	}
	first, loop, err := newLoop(c, s, es, o, clock)
	if err != nil {
		return nil, err
	}
	out, err := loop.Run(first)
	if err != nil {
		return nil, err
	}
	res := &Result{States: states, Params: out.Model.P, Unseen: out.Model.Unseen, Objective: out.Objective, Iterations: out.Iterations}
	if o.Estimator == VB {
		// The loop's state is the counts of the last E-step; q(θ) is
		// Dir(counts + α).
		res.Params = s.VariationalBayes(out.Model.P, o.AlphaT, o.AlphaE)
		res.Unseen = s.UnseenVB(out.Model.P, o.AlphaE)
	}
	res.Tags, res.FellBack = es.Decode(res.Params, !o.Viterbi)
	return res, nil
}

// State is what an iteration of Train starts from: the model and the
// weight of unseen words of the last M-step, or under VB the expected
// counts of the last E-step (Unseen nil).
type State struct {
	P      *Params
	Unseen []float64
}

// Snapshot is a State as a run directory's checkpoint stores it, or
// under Gibbs the sampler between sweeps.
type Snapshot struct {
	Trans  []float64      `json:"trans,omitempty"`
	Emit   []float64      `json:"emit,omitempty"`
	Unseen []float64      `json:"unseen,omitempty"`
	Gibbs  *GibbsSnapshot `json:"gibbs,omitempty"`
}

// GibbsSnapshot is a Gibbs run between sweeps: the sampler, and the
// states of the sweeps kept so far for decoding.
type GibbsSnapshot struct {
	Sampler GibbsState `json:"sampler"`
	Kept    [][]int32  `json:"kept"`
}

// Snapshot is st as a Snapshot (sharing its tables).
func (st State) Snapshot() Snapshot {
	return Snapshot{Trans: st.P.Trans, Emit: st.P.Emit, Unseen: st.Unseen}
}

// State is the snapshot over space s, which must have its sizes.
func (sn Snapshot) State(s *Space) (State, error) {
	if len(sn.Trans) != s.Contexts()*(s.K+1) || len(sn.Emit) != s.V*s.K || sn.Unseen != nil && len(sn.Unseen) != s.K {
		return State{}, fmt.Errorf("a model of %d transitions and %d emissions, not of this HMM's %d and %d",
			len(sn.Trans), len(sn.Emit), s.Contexts()*(s.K+1), s.V*s.K)
	}
	return State{P: &Params{Space: s, Trans: sn.Trans, Emit: sn.Emit}, Unseen: sn.Unseen}, nil
}

// BadResume is a checkpoint (Options.Resume) that is not one of this
// run: Err says why.
type BadResume struct{ Err error }

func (e *BadResume) Error() string { return "resuming: " + e.Err.Error() }
func (e *BadResume) Unwrap() error { return e.Err }

// check refuses a state that is not what a loop leaves: under VB (counts)
// finite counts ≥ 0, otherwise a model whose rows are normalised and
// whose unseen-word weights are probabilities.
func (st State) check(counts bool) error {
	if counts {
		for _, tab := range [][]float64{st.P.Trans, st.P.Emit} {
			for _, v := range tab {
				if !(v >= 0) || math.IsInf(v, 1) {
					return fmt.Errorf("an expected count of %v", v)
				}
			}
		}
		return nil
	}
	for _, tab := range [][]float64{st.P.Trans, st.P.Emit, st.Unseen} {
		for _, v := range tab {
			if !(v >= 0 && v <= 1) {
				return fmt.Errorf("a probability of %v", v)
			}
		}
	}
	return (&Model{P: st.P, States: StateNames(st.P.K)}).CheckDistribution()
}

// newLoop is the estimator's start and its loop (emloop): for EM, MAP, DA
// and SDA the model of the last M-step; for VB the counts of the last
// E-step, the first of them on the noisy start (unless resuming).
func newLoop(c *Corpus, s *Space, es *EStepper, o Options, clock time.Time) (State, *emloop.Loop[State], error) {
	theta0 := o.Start
	if theta0 == nil {
		theta0 = s.NoisyUniform(o.Noise, o.Seed)
	}
	loop := &emloop.Loop[State]{MaxIter: o.Iterations, Tol: o.Tol, Tokens: c.Tokens, Start: clock}
	if o.Stop == emloop.Bits {
		loop.Converged = emloop.Bits.Converged(o.Tol, c.Tokens)
	}
	if o.Estimator == VB {
		loop.Tokens = 0 // the objective is the variational bound: no cross-entropy
	}
	if r := o.Resume; r != nil {
		st, err := r.Model.State(s)
		if err == nil {
			err = st.check(o.Estimator == VB)
		}
		if err != nil {
			return State{}, nil, &BadResume{err}
		}
		loop.Resume = &rundir.State[State]{Stage: r.Stage, StageIters: r.StageIters, Before: r.Before, Prev: r.Prev, Model: st}
	}
	if o.Checkpoint != nil {
		loop.Checkpoint = func(c rundir.State[State]) error { return o.Checkpoint(rundir.Map(c, State.Snapshot)) }
	}
	if o.Progress != nil {
		loop.Observe = func(it format.Iteration, _ State) error {
			o.Progress(it)
			return nil
		}
	}
	if o.Save != nil {
		loop.Observe = emloop.Every(o.SaveEvery, loop.Observe, func(iter int, st State) error {
			if o.Estimator == VB {
				return o.Save(iter, s.VariationalBayes(st.P, o.AlphaT, o.AlphaE), s.UnseenVB(st.P, o.AlphaE))
			}
			unseen := st.Unseen
			if unseen == nil {
				// The start (iteration 1's model) knows only the corpus's
				// words: a model file needs its unseen_word records.
				unseen = make([]float64, s.K)
			}
			return o.Save(iter, st.P, unseen)
		})
	}
	mstep := func(r EStepResult) State {
		return State{s.Normalize(r.Counts, o.Lambda), s.UnseenNormalize(r.Counts, o.Lambda)}
	}
	switch o.Estimator {
	case EM, MAP:
		loop.Step = func(st State, _ float64) (State, float64, error) {
			r := es.Run(st.P)
			return mstep(r), r.LogLik, nil
		}
		return State{P: theta0}, loop, nil
	case DA, SDA:
		betas, err := schedule.DA(o.Beta0, o.BetaGrowth)
		if err != nil {
			return State{}, nil, err
		}
		var skew *Params
		if o.Estimator == SDA {
			skew = theta0
		}
		loop.Betas, loop.Annealed = betas, true
		loop.Step = func(st State, beta float64) (State, float64, error) {
			r := es.Run(Anneal(st.P, beta, skew))
			return mstep(r), r.LogLik, nil
		}
		return State{P: theta0}, loop, nil
	case VB:
		if !(o.AlphaT > 0) || !(o.AlphaE > 0) {
			return State{}, nil, errors.New("variational Bayes needs Dirichlet hyperparameters > 0")
		}
		// Every E-step runs on the weights of q(θ) = Dir(counts + α), whose
		// bound it reports.
		loop.Step = func(st State, _ float64) (State, float64, error) {
			r := es.Run(s.VariationalBayes(st.P, o.AlphaT, o.AlphaE))
			return State{P: r.Counts}, r.LogLik - s.KLPrior(st.P, o.AlphaT, o.AlphaE), nil
		}
		if o.Resume != nil {
			return State{}, loop, nil
		}
		return State{P: es.Run(theta0).Counts}, loop, nil
	}
	return State{}, nil, fmt.Errorf("unknown estimator %q", o.Estimator)
}

func relChange(prev, cur float64) float64 {
	if math.IsInf(prev, -1) {
		return math.Inf(1)
	}
	return math.Abs(cur-prev) / max(math.Abs(prev), 1e-300)
}

func trainGibbs(c *Corpus, s *Space, states []string, o Options) (*Result, error) {
	start := o.Clock
	if start.IsZero() {
		start = time.Now()
	}
	iter, lastStage := 0, 0
	report := func(stage int, beta *float64, obj, prev float64) {
		iter++
		if o.Progress == nil {
			return
		}
		// The objective is a log joint of samples: no cross-entropy.
		it := format.Iteration{Iter: iter, Stage: stage, Objective: format.Real(obj), Beta: beta, Seconds: time.Since(start).Seconds()}
		if iter > 1 && stage == lastStage {
			ch := format.Real(relChange(prev, obj))
			it.Change = &ch
		}
		lastStage = stage
		o.Progress(it)
	}
	if s.Order != 1 {
		return nil, errors.New("--estimator gibbs is for the bitag HMM")
	}
	g, err := NewSampler(c, s, o.AlphaT, o.AlphaE, o.Seed)
	if err != nil {
		return nil, err
	}
	if o.Start != nil && o.Resume == nil {
		tags, _ := NewEStepper(c, s, o.Workers).Decode(o.Start, true)
		g.Start(tags)
	}
	samples := max(1, min(o.Samples, o.Iterations))
	temp0 := max(1, o.Temp0)
	cooling := o.Iterations - samples
	kept := make([][]int32, 0, samples)
	prev := math.Inf(-1)
	res := &Result{States: states}
	first := 0
	if r := o.Resume; r != nil {
		if r.Model.Gibbs == nil {
			return nil, &BadResume{errors.New("not the checkpoint of a Gibbs run")}
		}
		if err := g.Restore(r.Model.Gibbs.Sampler); err != nil {
			return nil, &BadResume{err}
		}
		kept = append(kept, r.Model.Gibbs.Kept...)
		first, prev, iter = r.StageIters, r.Prev, r.StageIters
	}
	for i := first; i < o.Iterations; i++ {
		temp := 1.0
		if i < cooling {
			temp = temp0 + (1-temp0)*float64(i)/float64(cooling)
		}
		g.Sweep(temp)
		lj := g.LogJoint()
		var tp *float64
		if temp0 != 1 {
			tp = &temp
		}
		report(0, tp, lj, prev)
		prev, res.Objective = lj, lj
		if i >= o.Iterations-samples {
			flat := make([]int32, 0, c.Tokens)
			for _, t := range g.Tags {
				flat = append(flat, t...)
			}
			kept = append(kept, flat)
		}
		if o.Checkpoint != nil && i+1 < o.Iterations {
			st, err := g.State()
			if err != nil {
				return nil, err
			}
			snap := Snapshot{Gibbs: &GibbsSnapshot{Sampler: st, Kept: kept}}
			if err := o.Checkpoint(rundir.State[Snapshot]{Stage: 1, StageIters: i + 1, Prev: lj, Model: snap}); err != nil {
				return nil, err
			}
		}
	}
	// Each token's most frequent state over the kept samples (ties to the
	// lowest state).
	tally := make([]int, s.K)
	pos := 0
	res.Tags = make([][]int, len(c.Sents))
	for i, sent := range c.Sents {
		tags := make([]int, len(sent))
		for j := range sent {
			clear(tally)
			for _, smp := range kept {
				tally[smp[pos]]++
			}
			best := 0
			for t, n := range tally {
				if n > tally[best] {
					best = t
				}
			}
			tags[j] = best
			pos++
		}
		res.Tags[i] = tags
	}
	res.Iterations = o.Iterations
	res.Params, res.Unseen = s.PosteriorMean(meanCounts(c, s, kept), o.AlphaT, o.AlphaE)
	return res, nil
}

// meanCounts is the transition and emission counts of the kept samples
// (each the corpus's states, flat), averaged.
func meanCounts(c *Corpus, s *Space, kept [][]int32) *Params {
	sum := NewParams(s)
	k, k1 := s.K, s.K+1
	for _, smp := range kept {
		pos := 0
		for _, sent := range c.Sents {
			prev := k
			for _, w := range sent {
				t := int(smp[pos])
				sum.Trans[prev*k1+t]++
				sum.Emit[int(w)*k+t]++
				prev = t
				pos++
			}
			sum.Trans[prev*k1+k]++
		}
	}
	n := float64(len(kept))
	for _, tab := range [][]float64{sum.Trans, sum.Emit} {
		for i := range tab {
			tab[i] /= n
		}
	}
	return sum
}
