package lbfgs

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/cesearch"
	"github.com/grind-nlp/grind/stages/dmv"
)

// StateFile is the training's state in a train-ce run directory.
const StateFile = "ce-state.json"

// StateFormat and StateVersion mark a state file.
const (
	StateFormat  = cesearch.StateFormat
	StateVersion = 1
)

// Status of a saved training.
const (
	Evaluate = "evaluate" // the weights written beside it wait for their evaluation
	Finished = "done"     // the training has ended; the weights written are its result
)

// State is a training saved between two evaluations: one JSON record, the
// file ce-step keeps and train-ce's run directory's ce-state.json. The
// README documents its fields; Search is the L-BFGS search of the stage
// under way (package cesearch).
type State struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Family  string `json:"family"`
	Status  string `json:"status"`
	// Model is the hash of the weights to evaluate next, as estep writes
	// it in the counts' header (the δ included); Corpus and Lattices the
	// hashes of the sentences and of their neighbourhoods the counts must
	// come from (Lattices once the first counts are in). ce-step's.
	Model     string `json:"model,omitempty"`
	Corpus    string `json:"corpus,omitempty"`
	Lattices  string `json:"lattices,omitempty"`
	Sentences int    `json:"sentences"`
	Tokens    int    `json:"tokens"`
	// Started is when ce-step --start ran: the log's seconds count from it.
	Started *time.Time `json:"started,omitempty"`
	Tags    []string   `json:"tags"`
	// What is optimised and how far.
	Sigma2  format.Real   `json:"sigma2"`
	Deltas  []format.Real `json:"deltas"`
	MaxIter int           `json:"max_iter"`
	Tol     format.Real   `json:"tol"`
	// Where the training is: its stage (from 1) and δ, the iterations
	// logged (over all stages; stage_start of them before this stage),
	// the evaluations made, and the last accepted point's objective.
	Stage       int         `json:"stage"`
	Delta       format.Real `json:"delta"`
	Iteration   int         `json:"iteration"`
	StageStart  int         `json:"stage_start"`
	Evaluations int         `json:"evaluations"`
	Iterations  int         `json:"iterations"` // L-BFGS iterations of the stages ended
	Objective   format.Real `json:"objective"`
	// Once done: how the last stage ended.
	Converged bool   `json:"converged"`
	Stopped   string `json:"stopped,omitempty"`
	// Done's weights (the result, which the model written holds too).
	Weights cesearch.Vector `json:"weights,omitempty"`
	// The stage's search (absent once done).
	Search *cesearch.State `json:"search,omitempty"`
}

// State is the training saved.
func (tr *Training) State() *State {
	st := &State{Format: StateFormat, Version: StateVersion, Family: dmv.Family, Status: Evaluate,
		Tags: tr.Tags, Tokens: tr.Tokens, Sigma2: format.Real(tr.Settings.Sigma2),
		MaxIter: tr.Settings.search().MaxIter, Tol: format.Real(tr.Settings.search().Tol),
		Stage: tr.Stage + 1, Delta: format.Real(tr.Deltas[tr.Stage]), Iteration: tr.Iter, StageStart: tr.StageStart,
		Evaluations: tr.Evals, Iterations: tr.Iterations, Objective: format.Real(math.Inf(-1))}
	st.Deltas = reals(tr.Deltas)
	if tr.Done {
		st.Status, st.Objective, st.Converged, st.Weights = Finished, format.Real(tr.Objective), tr.Converged, tr.Weights
		if !tr.Converged {
			st.Stopped = tr.Status
		}
		return st
	}
	st.Evaluations += tr.Search.Evals()
	if _, obj := tr.Search.Last(); !math.IsNaN(obj) {
		st.Objective = format.Real(obj)
	}
	st.Search = tr.Search.State()
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
	if st.Status != Evaluate {
		return nil, errors.New("the training has ended")
	}
	search := s.search()
	tr := &Training{Tags: tags, Tokens: st.Tokens, Settings: s, Deltas: deltas, Stage: st.Stage - 1,
		Iter: st.Iteration, StageStart: st.StageStart, Iterations: st.Iterations}
	var err error
	if tr.Search, err = cesearch.Restore(st.Search); err != nil {
		return nil, fmt.Errorf("its search: %w", err)
	}
	if o := tr.Search.Options(); o != search {
		return nil, fmt.Errorf("its search's options %+v are not a stage's %+v", o, search)
	}
	tr.Evals = st.Evaluations - tr.Search.Evals()
	dim := 2*len(tags)*len(tags) + 9*len(tags)
	switch {
	case len(st.Search.Start) != dim:
		return nil, fmt.Errorf("a search over %d weights, not the %d of %d tags", len(st.Search.Start), dim, len(tags))
	case st.Iteration-st.StageStart != st.Search.Accepted || tr.Evals < 0 || st.Iterations < 0:
		return nil, fmt.Errorf("iteration %d, stage started at %d, %d evaluations: not its search's %d points accepted after %d evaluations", st.Iteration, st.StageStart, st.Evaluations, st.Search.Accepted, st.Search.Evals)
	}
	return tr, nil
}

// check checks what every state holds, whatever the run.
func (st *State) check() error {
	switch {
	case st.Format != StateFormat:
		return fmt.Errorf("not a ce-step state (format %q, not %q)", st.Format, StateFormat)
	case st.Version != StateVersion:
		return fmt.Errorf("a ce-step state of version %d (this grind reads version %d)", st.Version, StateVersion)
	case st.Family != dmv.Family:
		return fmt.Errorf("a ce-step state of the %q family, not %q", st.Family, dmv.Family)
	case st.Status != Evaluate && st.Status != Finished:
		return fmt.Errorf("status %q (want %q or %q)", st.Status, Evaluate, Finished)
	case len(st.Tags) == 0:
		return errors.New("no tags")
	case len(st.Deltas) == 0 || st.Stage < 1 || st.Stage > len(st.Deltas) || st.Delta != st.Deltas[st.Stage-1]:
		return fmt.Errorf("stage %d at δ %v of a schedule %v", st.Stage, st.Delta, st.Deltas)
	case st.Iteration < 0 || st.StageStart < 0 || st.StageStart > st.Iteration || st.Evaluations < 0 || st.Tokens < 0 || st.Sentences < 0:
		return fmt.Errorf("iteration %d, stage started at %d, %d evaluations, %d sentences, %d tokens", st.Iteration, st.StageStart, st.Evaluations, st.Sentences, st.Tokens)
	case st.Status == Evaluate && st.Search == nil:
		return errors.New("no search under way")
	case st.Status == Finished && len(st.Weights) == 0:
		return errors.New("a training done without its weights")
	}
	for _, d := range st.Deltas {
		if math.IsNaN(float64(d)) || math.IsInf(float64(d), 0) {
			return fmt.Errorf("δ %v", d)
		}
	}
	if s2 := float64(st.Sigma2); !(s2 >= 0) {
		return fmt.Errorf("σ² %v", s2)
	}
	return nil
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
	if err := cesearch.ReadFile(path, &st); err != nil {
		return nil, err
	}
	if err := st.check(); err != nil {
		return nil, fmt.Errorf("%s:1: %w", path, err)
	}
	return &st, nil
}
