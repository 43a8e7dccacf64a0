package hmmce

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/cesearch"
	"github.com/grind-nlp/grind/stages/eventio"
	"github.com/grind-nlp/grind/stages/hmm"
)

// StateVersion is the version of an HMM training's state file.
const StateVersion = 1

// State is an HMM CE training (train-hmm --estimator ce's) saved between
// two evaluations: ce-step's state file, family "hmm". One stage; the
// README documents its fields; Search is its L-BFGS (package cesearch).
type State struct {
	cesearch.Header
	// The model: its states, its words (in the order of its weights) and
	// whether the words' spelling features are weights of their own.
	States   []string `json:"states"`
	Words    []string `json:"words"`
	Spelling bool     `json:"spelling"`
	// What is optimised and how far; the start's seed and noise.
	Sigma2  format.Real `json:"sigma2"`
	MaxIter int         `json:"max_iter"`
	Tol     format.Real `json:"tol"`
	Seed    uint64      `json:"seed"`
	Noise   format.Real `json:"noise"`
	// Where the training is: iterations logged and evaluations made; then
	// the search, or once done how it ended and its weights (the result,
	// which the model written holds, spelling folded into the emissions).
	Iteration   int `json:"iteration"`
	Evaluations int `json:"evaluations"`
	cesearch.Progress
}

// StartOptions are ce-step --start's for the HMM: train-hmm --estimator
// ce's.
type StartOptions struct {
	States   int
	Spelling bool
	Seed     uint64
	Noise    float64
	Sigma2   float64
	MaxIter  int
	Tol      float64
}

// Begin is ce-step --start for the HMM: it reads the sentences of src as
// train-hmm does, makes train-hmm --estimator ce's start (seeded noise),
// writes the state to statePath and the start's model to w.
func Begin(src pipeline.Source, w io.Writer, statePath string, o StartOptions) error {
	if !(o.Noise > 0) {
		return errors.New("hmmce: the start noise must be > 0 (the zero vector is a symmetric point)")
	}
	sents, err := pipeline.ReadSentencesChecked(src, hmm.CheckSentence)
	if err != nil {
		return err
	}
	corpus, err := hmm.NewCorpus(sents)
	if err != nil {
		return err
	}
	opts := SearchOptions(o.MaxIter, o.Tol)
	st := &State{Header: cesearch.NewHeader(hmm.Family, StateVersion),
		States: hmm.StateNames(o.States), Words: corpus.Words, Spelling: o.Spelling,
		Sigma2: format.Real(o.Sigma2), MaxIter: opts.MaxIter, Tol: format.Real(opts.Tol), Seed: o.Seed, Noise: format.Real(o.Noise)}
	st.Corpus, st.Sentences, st.Tokens = eventio.CorpusHash(sents, true), len(sents), corpus.Tokens
	st.Start()
	m := st.model()
	r := rand.New(rand.NewPCG(o.Seed, 0x686d6d6365))
	theta := make([]float64, m.Dim())
	for i := range theta {
		theta[i] = o.Noise * r.Float64()
	}
	search, err := cesearch.New(opts, theta)
	if err != nil {
		return err
	}
	return st.save(w, statePath, m, search)
}

// model is the state's feature layout.
func (st *State) model() *Model {
	m := &Model{K: len(st.States), V: len(st.Words)}
	if st.Spelling {
		var names []string
		m.Spell, names = SpellingFeatures(st.Words)
		m.F = len(names)
	}
	return m
}

// save writes the state, and the model it waits for (or once done the
// result) to w.
func (st *State) save(w io.Writer, path string, m *Model, search *cesearch.Search) error {
	theta := []float64(st.Weights)
	if search != nil {
		st.Progress = cesearch.UnderWay(search)
		theta = search.Pending()
	}
	p, err := m.Params(theta)
	if err != nil {
		return err
	}
	if search != nil {
		st.Model = WeightsHash(&hmm.Model{P: p, States: st.States, Words: st.Words})
	}
	if err := cesearch.WriteFile(path, st); err != nil {
		return err
	}
	return hmm.WriteWeights(w, p, st.States, st.Words)
}

// ReadState reads an HMM training's state file; a file that is not one
// is an error naming it and its line.
func ReadState(path string) (*State, error) {
	var st State
	if err := cesearch.ReadFile(path, &st, st.check); err != nil {
		return nil, err
	}
	return &st, nil
}

// check says what is wrong with a state read, whose weights are those of
// its states and words (nil: nothing).
func (st *State) check() error {
	if err := st.Header.Check(hmm.Family, StateVersion); err != nil {
		return err
	}
	switch {
	case len(st.States) == 0 || len(st.Words) == 0:
		return fmt.Errorf("%d states over %d words", len(st.States), len(st.Words))
	case st.Iteration < 0 || st.Evaluations < 0:
		return fmt.Errorf("iteration %d, %d evaluations", st.Iteration, st.Evaluations)
	}
	return st.Progress.Check(st.Status, st.model().Dim())
}

// Step is one call of ce-step on a saved HMM training.
type Step struct{ cesearch.Step }

// Run reads the state and the counts, hands L-BFGS their evaluation, and
// writes the state and the model it waits for next (or the result) to w.
func (o Step) Run(w io.Writer) error {
	st, err := ReadState(o.State)
	if err != nil {
		return err
	}
	m := st.model()
	if st.Status == cesearch.Finished {
		if o.Counted() {
			return o.Ended(&st.Progress)
		}
		p, err := m.Params(st.Weights)
		if err != nil {
			return err
		}
		return hmm.WriteWeights(w, p, st.States, st.Words)
	}
	search, err := st.Resume(SearchOptions(st.MaxIter, float64(st.Tol)), st.Iteration)
	if err != nil {
		return fmt.Errorf("%s:1: %w", o.State, err)
	}
	if !o.Counted() {
		p, err := m.Params(search.Pending())
		if err != nil {
			return err
		}
		return hmm.WriteWeights(w, p, st.States, st.Words)
	}
	e, err := o.evaluation(st, m, search.Pending())
	if err != nil {
		return err
	}
	var accepted []format.Iteration
	origin := st.Origin()
	evals := search.Evals()
	if err := search.Give(e, func(it cesearch.Iteration) error {
		// The contrastive objective: no cross-entropy.
		rec := format.Iteration{Iter: it.Index + 1, Objective: format.Real(it.Objective), Seconds: time.Since(origin).Seconds()}
		if it.Index > 0 {
			ch := format.Real(math.Abs(it.Objective-it.Prev) / math.Abs(it.Prev))
			rec.Change = &ch
		}
		accepted = append(accepted, rec)
		return nil
	}); err != nil {
		return err
	}
	st.Iteration += len(accepted)
	st.Evaluations += search.Evals() - evals
	if search.Done() {
		if st.Progress, err = search.Ended(); err != nil {
			return err
		}
		st.Status, search = cesearch.Finished, nil
	}
	if err := st.save(w, o.State, m, search); err != nil {
		return err
	}
	summary := ""
	if st.Status == cesearch.Finished {
		summary = cesearch.Summary(st.Converged, st.Stopped, st.Iteration-1, st.Evaluations, float64(st.Objective))
	}
	return cesearch.ReportStep(accepted, o.Log, o.Report, summary)
}

// evaluation reads the two count files and makes the objective and its
// gradient at theta as Model.Objective does, refusing counts of other
// weights, sentences or neighbourhoods.
func (o Step) evaluation(st *State, m *Model, theta []float64) (cesearch.Eval, error) {
	read := func(path string) (*hmm.CountTable, error) {
		t, err := hmm.ReadCounts(pipeline.Source{Names: []string{path}}, o.MaxMemory)
		if err != nil {
			return nil, err
		}
		if !slices.Equal(t.States, st.States) || !slices.Equal(t.Words, st.Words) || t.Counts.Order != 1 {
			return nil, fmt.Errorf("%s: counts over other states or words than the training's (%d states, %d words)", path, len(st.States), len(st.Words))
		}
		if err := st.CheckCounts(o.State, path, t.Shards.Model, *t.Shards.Stats, ""); err != nil {
			return nil, err
		}
		return t, nil
	}
	sents, err := read(o.Sentences)
	if err != nil {
		return cesearch.Eval{}, err
	}
	lats, err := read(o.Lattices)
	if err != nil {
		return cesearch.Eval{}, err
	}
	switch {
	case sents.Shards.Corpus != st.Corpus:
		return cesearch.Eval{}, fmt.Errorf("%s: counts of other sentences (corpus %s) than the training's (%s): give the sentences' counts first, then their neighbourhoods'", o.Sentences, sents.Shards.Corpus, st.Corpus)
	case lats.Shards.Corpus == st.Corpus:
		return cesearch.Eval{}, fmt.Errorf("%s: counts of the training's sentences, where their neighbourhoods' are due (nbhd --words | estep)", o.Lattices)
	}
	if err := st.TakeLattices(o.Lattices, lats.Shards.Corpus); err != nil {
		return cesearch.Eval{}, err
	}
	num, den := sents.Counts, lats.Counts
	f := sents.Shards.Stats.Loglik - lats.Shards.Stats.Loglik
	if sents.Shards.Stats.LeftOut > 0 || lats.Shards.Stats.LeftOut > 0 {
		f = math.Inf(-1)
	}
	grad := make([]float64, m.Dim())
	for i := range num.Trans {
		grad[i] = num.Trans[i] - den.Trans[i]
	}
	// Emissions and the spelling features they fire, as counts.addTo.
	for w := 0; w < m.V; w++ {
		for t := 0; t < m.K; t++ {
			v := num.Emit[w*m.K+t] - den.Emit[w*m.K+t]
			if v == 0 {
				continue
			}
			grad[m.emit(t, w)] += v
			if m.Spell != nil {
				for _, ft := range m.Spell[w] {
					grad[m.spell(t, ft)] += v
				}
			}
		}
	}
	if s2 := float64(st.Sigma2); s2 > 0 && !math.IsInf(s2, 1) {
		for j, v := range theta {
			f -= v * v / (2 * s2)
			grad[j] -= v / s2
		}
	}
	return cesearch.Eval{Objective: f, Gradient: grad}, nil
}
