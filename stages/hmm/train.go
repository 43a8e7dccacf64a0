package hmm

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/grind-nlp/grind/format"
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
	// change falls below it; 0 runs every iteration.
	Tol   float64
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
}

// Result is a trained model and the training corpus's induced tags.
type Result struct {
	// Params are the final weights (nil for Gibbs): probabilities, or for
	// VB the variational weights exp E[log θ] used for decoding.
	Params *Params
	// Unseen is the weight each state gives a word the last M-step never
	// counted (Model.Unseen; nil for Gibbs).
	Unseen     []float64
	States     []string
	Tags       [][]int
	Objective  float64
	Iterations int
}

// Train runs the estimator over the corpus and tags it.
func Train(c *Corpus, o Options) (*Result, error) {
	k := o.States
	var allowed []bool
	states := StateNames(k)
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
	if !(o.Noise > 0) && o.Estimator != Gibbs {
		// At an exactly symmetric point every state gets the same counts
		// and EM can never tell them apart.
		return nil, errors.New("the start needs noise > 0")
	}
	start := time.Now()
	iter, lastStage := 0, 0
	report := func(stage int, beta *float64, obj, prev float64) {
		iter++
		if o.Progress == nil {
			return
		}
		it := format.Iteration{Iter: iter, Stage: stage, Objective: format.Real(obj), Beta: beta,
			CrossEntropy: format.Real(-obj / float64(c.Tokens) / math.Ln2), Seconds: time.Since(start).Seconds()}
		if iter > 1 && stage == lastStage {
			ch := format.Real(relChange(prev, obj))
			it.Change = &ch
		}
		lastStage = stage
		o.Progress(it)
	}
	if o.Estimator == Gibbs {
		return trainGibbs(c, s, states, o, report)
	}
	es := NewEStepper(c, s, o.Workers)
	theta0 := s.NoisyUniform(o.Noise, o.Seed)
	theta := theta0
	res := &Result{States: states}
	converged := func(prev, obj float64) bool {
		return o.Tol > 0 && relChange(prev, obj) < o.Tol
	}
	switch o.Estimator {
	case EM, MAP:
		prev := math.Inf(-1)
		for i := 0; i < o.Iterations; i++ {
			r := es.Run(theta)
			theta = s.Normalize(r.Counts, o.Lambda)
			res.Unseen = s.UnseenNormalize(r.Counts, o.Lambda)
			report(0, nil, r.LogLik, prev)
			done := i > 0 && converged(prev, r.LogLik)
			prev, res.Objective = r.LogLik, r.LogLik
			if done {
				break
			}
		}
	case DA, SDA:
		betas, err := schedule.DA(o.Beta0, o.BetaGrowth)
		if err != nil {
			return nil, err
		}
		var skew *Params
		if o.Estimator == SDA {
			skew = theta0
		}
		for k, beta := range betas {
			stage := k + 1
			prev := math.Inf(-1)
			for i := 0; i < o.Iterations; i++ {
				r := es.Run(Anneal(theta, beta, skew))
				theta = s.Normalize(r.Counts, o.Lambda)
				res.Unseen = s.UnseenNormalize(r.Counts, o.Lambda)
				b := beta
				report(stage, &b, r.LogLik, prev)
				done := i > 0 && converged(prev, r.LogLik)
				prev, res.Objective = r.LogLik, r.LogLik
				if done {
					break
				}
			}
		}
	case VB:
		if !(o.AlphaT > 0) || !(o.AlphaE > 0) {
			return nil, errors.New("variational Bayes needs Dirichlet hyperparameters > 0")
		}
		// The first E-step runs on the noisy start; every later one on the
		// weights of q(θ) = Dir(counts + α), whose bound it reports.
		counts := es.Run(theta).Counts
		prev := math.Inf(-1)
		for i := 0; i < o.Iterations; i++ {
			theta = s.VariationalBayes(counts, o.AlphaT, o.AlphaE)
			r := es.Run(theta)
			bound := r.LogLik - s.KLPrior(counts, o.AlphaT, o.AlphaE)
			counts = r.Counts
			report(0, nil, bound, prev)
			done := i > 0 && converged(prev, bound)
			prev, res.Objective = bound, bound
			if done {
				break
			}
		}
		theta = s.VariationalBayes(counts, o.AlphaT, o.AlphaE)
		res.Unseen = s.UnseenVB(counts, o.AlphaE)
	default:
		return nil, fmt.Errorf("unknown estimator %q", o.Estimator)
	}
	res.Params, res.Iterations = theta, iter
	res.Tags = es.Decode(theta, !o.Viterbi)
	return res, nil
}

func relChange(prev, cur float64) float64 {
	if math.IsInf(prev, -1) {
		return math.Inf(1)
	}
	return math.Abs(cur-prev) / max(math.Abs(prev), 1e-300)
}

func trainGibbs(c *Corpus, s *Space, states []string, o Options, report func(int, *float64, float64, float64)) (*Result, error) {
	if s.Order != 1 {
		return nil, errors.New("--estimator gibbs is for the bitag HMM")
	}
	g, err := NewSampler(c, s, o.AlphaT, o.AlphaE, o.Seed)
	if err != nil {
		return nil, err
	}
	samples := max(1, min(o.Samples, o.Iterations))
	temp0 := max(1, o.Temp0)
	cooling := o.Iterations - samples
	kept := make([][]int32, 0, samples)
	prev := math.Inf(-1)
	res := &Result{States: states}
	for i := 0; i < o.Iterations; i++ {
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
	return res, nil
}
