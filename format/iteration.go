package format

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
	// CrossEntropy is −objective / tokens in bits (Viterbi EM's stopping test).
	CrossEntropy Real     `json:"cross_entropy"`
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
