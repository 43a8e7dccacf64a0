package modelu

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/cesearch"
	"github.com/grind-nlp/grind/stages/eventio"
	"github.com/grind-nlp/grind/stages/train"
)

// StateVersion is the version of a Model U training's state file.
const StateVersion = 1

// State is a Model U training saved between two evaluations: ce-step's
// state file (family "modelu") and train-ce --family modelu's run
// directory's ce-state.json. The README documents its fields; Search is
// its L-BFGS (package cesearch).
type State struct {
	cesearch.Header
	// The model: the neighbourhood it is trained with (written in the
	// model's header), its tags, its spelling affixes and its features
	// in the order of its weights, each [kind, a, b] (Key).
	Nbhd     string     `json:"nbhd"`
	Tags     []string   `json:"tags"`
	Spelling bool       `json:"spelling"`
	Affixes  []string   `json:"affixes,omitempty"`
	Features [][3]int32 `json:"features"`
	// What is optimised and how far.
	Sigma2  format.Real `json:"sigma2"`
	MaxIter int         `json:"max_iter"`
	Tol     format.Real `json:"tol"`
	// Where the training is: iterations logged (the start the first) and
	// evaluations made; then the search, or once done how it ended and its
	// weights (the result, which the model written holds).
	Iteration   int `json:"iteration"`
	Evaluations int `json:"evaluations"`
	cesearch.Progress
}

// Training is Model U's L-BFGS driven one evaluation at a time: Pending
// is the weights to evaluate, Give takes their evaluation. train-ce runs
// it in process (Train), ce-step one evaluation per call (Step), saving
// it between two (Snapshot, ReadState).
type Training struct {
	State *State
	// Logged is the number of iterations already in the log (a resumed
	// run's): they are not observed again.
	Logged int
	m      *Model
	search *cesearch.Search
}

// NewTraining starts the training of m's weights (from their values) on
// the sentences sents, which m's features come from (Features).
func NewTraining(m *Model, sents []*format.Sentence, sigma2 float64, maxIter int, tol float64) (*Training, error) {
	if len(m.Theta) == 0 {
		return nil, errNoFeatures
	}
	opts := SearchOptions(maxIter, tol)
	search, err := cesearch.New(opts, m.Theta)
	if err != nil {
		return nil, err
	}
	tokens := 0
	for _, s := range sents {
		tokens += len(s.Tags)
	}
	st := &State{Header: cesearch.NewHeader(Family, StateVersion),
		Nbhd: m.Nbhd, Tags: m.Tags, Spelling: m.Spelling, Affixes: m.Affixes,
		Sigma2: format.Real(sigma2), MaxIter: opts.MaxIter, Tol: format.Real(opts.Tol)}
	st.Corpus, st.Sentences, st.Tokens = eventio.CorpusHash(sents, m.Spelling), len(sents), tokens
	for _, k := range m.Keys {
		st.Features = append(st.Features, [3]int32{k.Kind, k.A, k.B})
	}
	return &Training{State: st, m: m, search: search}, nil
}

// Done says whether the training has ended.
func (tr *Training) Done() bool { return tr.search == nil }

// Pending is the weights to evaluate next (nil once done).
func (tr *Training) Pending() []float64 {
	if tr.search == nil {
		return nil
	}
	return tr.search.Pending()
}

// Give hands over the objective and gradient at Pending and runs L-BFGS
// until it needs another evaluation, or ends. observe (nil: none) sees
// every accepted point the log has not seen.
func (tr *Training) Give(obj float64, grad []float64, observe func(cesearch.Iteration) error) error {
	if tr.search == nil {
		return fmt.Errorf("the training has ended")
	}
	if err := checkStart(tr, obj); err != nil {
		return err
	}
	evals := tr.search.Evals()
	err := tr.search.Give(cesearch.Eval{Objective: obj, Gradient: grad}, func(it cesearch.Iteration) error {
		tr.State.Iteration++
		if tr.State.Iteration <= tr.Logged || observe == nil {
			return nil
		}
		return observe(it)
	})
	tr.State.Evaluations += tr.search.Evals() - evals
	if err != nil || !tr.search.Done() {
		return err
	}
	if tr.State.Progress, err = tr.search.Ended(); err != nil {
		return err
	}
	tr.State.Status, tr.State.Model, tr.search = cesearch.Finished, "", nil
	return nil
}

// Snapshot is the training as its state file holds it: the search under
// way, and the hash of the model Pending is.
func (tr *Training) Snapshot() *State {
	st := *tr.State
	if tr.search != nil {
		st.Progress = cesearch.UnderWay(tr.search)
		st.Model = tr.Model(tr.search.Pending()).Hash()
	}
	return &st
}

// Model is the training's model with weights theta (sharing its
// features).
func (tr *Training) Model(theta []float64) *Model {
	m := *tr.m
	m.Theta = theta
	return &m
}

// Result is the model the training ended with (the best weights).
func (tr *Training) Result() *Model { return tr.Model(tr.State.Weights) }

// Log is an accepted point as the log (--log, the run directory's
// iterations.jsonl, ce-step --log) has it, its seconds counted from
// origin.
func Log(it cesearch.Iteration, origin time.Time) format.Iteration {
	rec := format.Iteration{Iter: it.Index + 1, Objective: format.Real(it.Objective), Seconds: time.Since(origin).Seconds()}
	if it.Index > 0 {
		c := format.Real(train.RelativeChange(it.Prev, it.Objective))
		rec.Change = &c
	}
	return rec
}

// WriteState writes the training's state file atomically.
func (tr *Training) WriteState(path string) error { return cesearch.WriteFile(path, tr.Snapshot()) }

// ReadState reads a Model U training's state file and rebuilds the
// training; a file that is not one is an error naming it and its line.
func ReadState(path string) (*Training, error) {
	var st State
	if err := cesearch.ReadFile(path, &st, st.check); err != nil {
		return nil, err
	}
	bad := func(err error) error { return fmt.Errorf("%s:1: %w", path, err) }
	m, err := st.model()
	if err != nil {
		return nil, bad(err)
	}
	tr := &Training{State: &st, m: m}
	if st.Status == cesearch.Evaluate {
		if tr.search, err = st.Resume(SearchOptions(st.MaxIter, float64(st.Tol)), st.Iteration); err != nil {
			return nil, bad(err)
		}
		st.Search = nil
	}
	return tr, nil
}

// check says what is wrong with a state read, whose weights are those of
// its features (nil: nothing).
func (st *State) check() error {
	if err := st.Header.Check(Family, StateVersion); err != nil {
		return err
	}
	switch {
	case len(st.Tags) == 0 || len(st.Features) == 0:
		return fmt.Errorf("%d features over %d tags", len(st.Features), len(st.Tags))
	case st.Iteration < 0 || st.Evaluations < 0:
		return fmt.Errorf("iteration %d, %d evaluations", st.Iteration, st.Evaluations)
	}
	return st.Progress.Check(st.Status, len(st.Features))
}

// model is the state's features as a model (weights 0).
func (st *State) model() (*Model, error) {
	if !st.Spelling && len(st.Affixes) > 0 {
		return nil, fmt.Errorf("affixes in a training without spelling")
	}
	m := New(st.Tags, st.Spelling)
	if len(m.tagID) != len(st.Tags) {
		return nil, fmt.Errorf("a tag twice")
	}
	m.Nbhd = st.Nbhd
	m.Affixes = slices.Clone(st.Affixes)
	m.finish()
	if len(m.affixID) != len(m.Affixes) {
		return nil, fmt.Errorf("an affix twice")
	}
	T, A := int32(len(m.Tags)), int32(len(m.Affixes))
	for i, f := range st.Features {
		k := Key{Kind: f[0], A: f[1], B: f[2]}
		ok := false
		switch f[0] {
		case KindEdge:
			ok = k.A >= 0 && k.A < T && k.B >= 0 && k.B < T
		case KindRightAffix:
			ok = m.Spelling && k.A >= 0 && k.A < T && k.B >= 0 && k.B < A
		case KindLeftAffix:
			ok = m.Spelling && k.A >= 0 && k.A < A && k.B >= 0 && k.B < T
		}
		if !ok {
			return nil, fmt.Errorf("feature %d %v is not one of %d tags and %d affixes (spelling %v)", i+1, f, T, A, m.Spelling)
		}
		if _, dup := m.feat[k]; dup {
			return nil, fmt.Errorf("feature %d %v twice", i+1, f)
		}
		m.add(k, 0)
	}
	return m, nil
}

// WriteModel writes the model the training waits for (Pending), or once
// done its result.
func (tr *Training) WriteModel(w io.Writer) error {
	if tr.Done() {
		return tr.Result().Write(w)
	}
	return tr.Model(tr.Pending()).Write(w)
}
