package lbfgs

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/cesearch"
	"github.com/grind-nlp/grind/stages/dmv"
)

// StateVersion is the version of the DMV's training's state file.
const StateVersion = 1

// State is a training saved between two evaluations: one JSON record, the
// file ce-step keeps and train-ce's run directory's ce-state.json. The
// README documents its fields; Search is the L-BFGS search of the stage
// under way (package cesearch).
type State struct {
	cesearch.Header
	Tags []string `json:"tags"`
	// What is optimised and how far.
	Sigma2  format.Real   `json:"sigma2"`
	Deltas  []format.Real `json:"deltas"`
	MaxIter int           `json:"max_iter"`
	Tol     format.Real   `json:"tol"`
	// Where the training is: its stage (from 1) and δ, the iterations
	// logged (over all stages; stage_start of them before this stage),
	// the evaluations made, the L-BFGS iterations of the stages ended;
	// then the stage's search, or once done the last stage's outcome and
	// the result (which the model written holds too).
	Stage       int         `json:"stage"`
	Delta       format.Real `json:"delta"`
	Iteration   int         `json:"iteration"`
	StageStart  int         `json:"stage_start"`
	Evaluations int         `json:"evaluations"`
	Iterations  int         `json:"iterations"`
	cesearch.Progress
}

// State is the training saved.
func (tr *Training) State() *State {
	st := &State{Header: cesearch.NewHeader(dmv.Family, StateVersion),
		Tags: tr.Tags, Sigma2: format.Real(tr.Settings.Sigma2), Deltas: reals(tr.Deltas),
		MaxIter: tr.Settings.search().MaxIter, Tol: format.Real(tr.Settings.search().Tol),
		Stage: tr.Stage + 1, Delta: format.Real(tr.Deltas[tr.Stage]), Iteration: tr.Iter, StageStart: tr.StageStart,
		Evaluations: tr.Evals, Iterations: tr.Iterations}
	st.Tokens = tr.Tokens
	if tr.Done {
		st.Status, st.Progress = cesearch.Finished, cesearch.Ended(tr.Converged, tr.Status, tr.Objective, tr.Weights)
		return st
	}
	st.Evaluations += tr.Search.Evals()
	st.Progress = cesearch.UnderWay(tr.Search)
	return st
}

// Continue rebuilds the training the state was saved from with the
// settings and schedule of δ it holds (ce-step's steps), waiting for the
// same evaluation.
func (st *State) Continue() (*Training, error) {
	if err := st.check(); err != nil {
		return nil, err
	}
	deltas := make([]float64, len(st.Deltas))
	for i, d := range st.Deltas {
		deltas[i] = float64(d)
	}
	return st.training(st.Tags, Settings{Sigma2: float64(st.Sigma2), MaxIter: st.MaxIter, Tol: float64(st.Tol)}, deltas)
}

// Training rebuilds the training the state was saved from, waiting for
// the same evaluation; tags and s are the run's (train-ce --resume's),
// which the state must have been saved with. A state that is not one
// (edited, cut short, of another run) is an error saying what does not
// fit.
func (st *State) Training(tags []string, s Settings) (*Training, error) {
	if err := st.check(); err != nil {
		return nil, err
	}
	deltas, err := s.Deltas()
	if err != nil {
		return nil, err
	}
	search := s.search()
	switch {
	case !slices.Equal(st.Tags, tags):
		return nil, fmt.Errorf("a training over the tags %v, not this corpus's %v", clip(st.Tags), clip(tags))
	case !slices.Equal(st.Deltas, reals(deltas)):
		return nil, fmt.Errorf("a schedule of δ %v, not %v", st.Deltas, deltas)
	case !same(st.Sigma2, format.Real(s.Sigma2)) || st.MaxIter != search.MaxIter || float64(st.Tol) != search.Tol:
		return nil, fmt.Errorf("σ² %v, --max-iter %d and --tol %v, not %v, %d and %v", st.Sigma2, st.MaxIter, st.Tol, s.Sigma2, search.MaxIter, search.Tol)
	}
	return st.training(tags, s, deltas)
}

func (st *State) training(tags []string, s Settings, deltas []float64) (*Training, error) {
	if st.Status != cesearch.Evaluate {
		return nil, errors.New("the training has ended")
	}
	tr := &Training{Tags: tags, Tokens: st.Tokens, Settings: s, Deltas: deltas, Stage: st.Stage - 1,
		Iter: st.Iteration, StageStart: st.StageStart, Iterations: st.Iterations}
	var err error
	if tr.Search, err = st.Resume(s.search(), st.Iteration-st.StageStart); err != nil {
		return nil, err
	}
	if tr.Evals = st.Evaluations - tr.Search.Evals(); tr.Evals < 0 {
		return nil, fmt.Errorf("%d evaluations, fewer than its search's %d", st.Evaluations, tr.Search.Evals())
	}
	return tr, nil
}

// check checks what every state holds, whatever the run.
func (st *State) check() error {
	if err := st.Header.Check(dmv.Family, StateVersion); err != nil {
		return err
	}
	switch {
	case len(st.Tags) == 0:
		return errors.New("no tags")
	case len(st.Deltas) == 0 || st.Stage < 1 || st.Stage > len(st.Deltas) || st.Delta != st.Deltas[st.Stage-1]:
		return fmt.Errorf("stage %d at δ %v of a schedule %v", st.Stage, st.Delta, st.Deltas)
	case st.Iteration < 0 || st.StageStart < 0 || st.StageStart > st.Iteration || st.Evaluations < 0 || st.Iterations < 0:
		return fmt.Errorf("iteration %d, stage started at %d, %d evaluations, %d L-BFGS iterations", st.Iteration, st.StageStart, st.Evaluations, st.Iterations)
	}
	for _, d := range st.Deltas {
		if math.IsNaN(float64(d)) || math.IsInf(float64(d), 0) {
			return fmt.Errorf("δ %v", d)
		}
	}
	if s2 := float64(st.Sigma2); !(s2 >= 0) {
		return fmt.Errorf("σ² %v", s2)
	}
	// The weights: Root, Stop and Cont (two directions, two valences),
	// Child (two directions) over the tags (ce.Vector's order).
	T := len(st.Tags)
	return st.Progress.Check(st.Status, 2*T*T+9*T)
}

func reals(xs []float64) []format.Real {
	out := make([]format.Real, len(xs))
	for i, x := range xs {
		out[i] = format.Real(x)
	}
	return out
}

func same(a, b format.Real) bool { return a == b || math.IsNaN(float64(a)) && math.IsNaN(float64(b)) }

// clip shortens a list of tags for a message.
func clip(tags []string) []string {
	if len(tags) > 8 {
		return append(slices.Clip(tags[:8]), "…")
	}
	return tags
}

// WriteState writes st to path atomically (a .gz or .zst name is
// compressed): one JSON record and a newline.
func WriteState(path string, st *State) error { return cesearch.WriteFile(path, st) }

// ReadState reads a state file (compressed or not). A file that is not
// one record of a state — cut short, another file, fields unknown to it
// — is an error naming the file and the line, and says what is wrong.
func ReadState(path string) (*State, error) {
	var st State
	if err := cesearch.ReadFile(path, &st, st.check); err != nil {
		return nil, err
	}
	return &st, nil
}
