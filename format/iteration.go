package format

import "math"

// Iteration is one line of a training log (--log FILE): what one
// iteration of a training loop did. plotcurve draws these.
//
//	{"iter":3,"objective":-41234.5,"change":0.0021,"beta":1,"seconds":0.011,"directed":0.412,"undirected":0.601}
type Iteration struct {
	Iter      int  `json:"iter"`            // 1-based, counted across stages
	Stage     int  `json:"stage,omitempty"` // annealing stage or epoch, 1-based
	Objective Real `json:"objective"`       // the estimator's objective (log-likelihood for EM), natural log
	// Change is the relative change of the objective from the previous
	// iteration (absent for the first).
	Change *Real `json:"change,omitempty"`
	// CrossEntropy is −objective / tokens in bits, present only where that
	// is a cross-entropy: the objective is the log-likelihood of a model
	// that generates each token once (the DMV's and the HMM's EM, MAP and
	// Viterbi EM; DA at β = 1), not a tempered, biased or contrastive
	// objective, a variational bound, a log joint of samples, nor the CCM's
	// and DMV+CCM's likelihood, which generate every span of a sentence.
	CrossEntropy *Real    `json:"cross_entropy,omitempty"`
	Beta         *float64 `json:"beta,omitempty"`  // annealing temperature, when annealing
	Delta        *float64 `json:"delta,omitempty"` // locality bias δ (Model L)
	SegBeta      *float64 `json:"seg_beta,omitempty"`
	// DualSteps are the projected-gradient steps of posterior
	// regularization's projection in the iteration's E-step.
	DualSteps *int    `json:"dual_steps,omitempty"`
	Seconds   float64 `json:"seconds"` // wall time since training began
	// Directed and Undirected are attachment accuracies (root counted) of
	// the iteration's model on the training data, when it has gold heads
	// and the log asked for them.
	Directed   *float64 `json:"directed,omitempty"`
	Undirected *float64 `json:"undirected,omitempty"`
}

// CrossEntropy is −loglik / tokens in bits: the cross-entropy per token of
// a model that generates each token once (the DMV, the HMM), loglik being
// the natural-log likelihood of the tokens' sentences. Nothing else is
// called cross-entropy (README, Conventions).
func CrossEntropy(loglik float64, tokens int) Real {
	return Real(-loglik / float64(max(tokens, 1)) / math.Ln2)
}
