package lbfgs

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/ce"
	"github.com/grind-nlp/grind/stages/cesearch"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/estep"
	"github.com/grind-nlp/grind/stages/train"
)

// Begin is ce-step --start: it reads the corpus of src as train-ce does,
// makes the training's start (train-ce's, from job's initializer or -m
// model), writes the state to statePath and the start's weights, the
// first to evaluate, to w.
func Begin(src pipeline.Source, w io.Writer, statePath string, job train.Job, s Settings) error {
	job.Unit = format.Weight
	job.IDs = true
	sess, err := train.Open(src, job)
	if err != nil {
		return err
	}
	defer sess.Close()
	start, err := startWeights(sess, job)
	if err != nil {
		return err
	}
	c := sess.Corpus
	tr, err := NewTraining(c.Tags.Names(), c.Tokens, start, s)
	if err != nil {
		return err
	}
	st := tr.State()
	st.Sentences = c.Len()
	st.Start()
	return save(w, statePath, tr, st)
}

// Step is one call of ce-step on a saved training of the DMV.
type Step struct{ cesearch.Step }

// Run reads the state and the counts, hands the training their
// evaluation, and writes the state and the weights it waits for next — or
// once it has ended, its result — to w.
func (o Step) Run(w io.Writer) error {
	st, err := ReadState(o.State)
	if err != nil {
		return err
	}
	if st.Status == cesearch.Finished {
		if o.Counted() {
			return o.Ended(&st.Progress)
		}
		return writeWeights(w, st.Tags, st.Weights)
	}
	tr, err := st.Continue()
	if err != nil {
		return fmt.Errorf("%s:1: %w", o.State, err)
	}
	if !o.Counted() {
		x, _ := tr.Pending()
		return writeWeights(w, st.Tags, x)
	}
	v, err := o.evaluation(st, tr)
	if err != nil {
		return err
	}
	var accepted []format.Iteration
	tr.Origin = st.Origin()
	tr.Observe = func(it format.Iteration, _ *dmv.Params) error {
		accepted = append(accepted, it)
		return nil
	}
	if err := tr.Give(v); err != nil {
		var nv *NoValueError
		if errors.As(err, &nv) {
			return fmt.Errorf("%s, %s: %w: every sentence must be held by the charts at the start of a stage (a smaller δ, or leave long sentences out with filterlen)", o.Sentences, o.Lattices, err)
		}
		return err
	}
	next := tr.State()
	next.Sentences, next.Started, next.Corpus, next.Lattices = st.Sentences, st.Started, st.Corpus, st.Lattices
	if err := save(w, o.State, tr, next); err != nil {
		return err
	}
	summary := ""
	if tr.Done {
		summary = cesearch.Summary(tr.Converged, tr.Status, tr.Iterations, tr.Evals, tr.Objective)
	}
	return cesearch.ReportStep(accepted, o.Log, o.Report, summary)
}

// evaluation reads the two count files and makes the objective and its
// gradient at the weights the training waits for, refusing counts that
// are not of those weights, of the training's sentences and of the same
// neighbourhoods as before. The first counts fix the hashes of the
// sentences and neighbourhoods (st's Corpus and Lattices).
func (o Step) evaluation(st *State, tr *Training) (ce.Value, error) {
	read := func(path string) (*dmv.Table, *dmv.Params, error) {
		t, err := dmv.ReadCounts(pipeline.Source{Names: []string{path}}, o.MaxMemory)
		if err != nil {
			return nil, nil, err
		}
		p, err := overTags(t, st.Tags)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		with := ""
		if st.Delta != 0 {
			with = fmt.Sprintf(" with --delta %v", float64(st.Delta))
		}
		if err := st.CheckCounts(o.State, path, t.Model, *t.Stats, with); err != nil {
			return nil, nil, err
		}
		return t, p, nil
	}
	sents, num, err := read(o.Sentences)
	if err != nil {
		return ce.Value{}, err
	}
	lats, den, err := read(o.Lattices)
	if err != nil {
		return ce.Value{}, err
	}
	switch {
	case sents.Corpus == lats.Corpus:
		return ce.Value{}, fmt.Errorf("%s and %s: counts of one corpus: give the sentences' counts, then their neighbourhoods' (nbhd | estep)", o.Sentences, o.Lattices)
	case st.Corpus != "" && sents.Corpus != st.Corpus:
		return ce.Value{}, fmt.Errorf("%s: counts of other sentences (corpus %s) than the training's (%s)", o.Sentences, sents.Corpus, st.Corpus)
	case sents.Stats.Loglik > lats.Stats.Loglik+1e-9*math.Abs(lats.Stats.Loglik):
		// Each neighbourhood holds its sentence: Z(N(x)) ≥ Z(x).
		return ce.Value{}, fmt.Errorf("%s and %s: Σ log Z of the sentences (%v) exceeds their neighbourhoods' (%v): give the sentences' counts first, then the lattices'", o.Sentences, o.Lattices, sents.Stats.Loglik, lats.Stats.Loglik)
	}
	if err := st.TakeLattices(o.Lattices, lats.Corpus); err != nil {
		return ce.Value{}, err
	}
	st.Corpus = sents.Corpus
	x, _ := tr.Pending()
	w := dmv.NewParams(len(st.Tags))
	ce.FromVector(x, w)
	leftOut := sents.Stats.LeftOut > 0 || lats.Stats.LeftOut > 0
	return ce.FromCounts(w, sents.Stats.Loglik, num, lats.Stats.Loglik, den, leftOut, tr.Settings.Sigma2), nil
}

// overTags is the counts of t over tags, in their order: every tag of
// the counts must be one of them (a tag the training does not have is
// one the model ce-step wrote does not have either).
func overTags(t *dmv.Table, tags []string) (*dmv.Params, error) {
	if err := dmv.RefuseValence(t.Params.V, "contrastive estimation"); err != nil {
		return nil, err
	}
	if slices.Equal(t.Tags.Names(), tags) {
		return t.Params, nil
	}
	at := make([]int, t.Tags.Len())
	for i, name := range t.Tags.Names() {
		j := slices.Index(tags, name)
		if j < 0 {
			return nil, fmt.Errorf("counts of the tag %q, which the training does not have", name)
		}
		at[i] = j
	}
	p, q := dmv.NewParams(len(tags)), t.Params
	for a := range at {
		p.Root[at[a]] = q.Root[a]
		for dir := 0; dir < 2; dir++ {
			for v := 0; v < q.V.Stop; v++ {
				p.Stop[p.DecisionAt(at[a], dir, v)] = q.Stop[q.DecisionAt(a, dir, v)]
				p.Cont[p.DecisionAt(at[a], dir, v)] = q.Cont[q.DecisionAt(a, dir, v)]
			}
			for b := range at {
				p.Child[p.ChildIndex(at[a], dir, at[b])] = q.Child[q.ChildIndex(a, dir, b)]
			}
		}
	}
	return p, nil
}

// save writes the state (with the hash of the weights it waits for) and
// then those weights, or once done the result, to w.
func save(w io.Writer, path string, tr *Training, st *State) error {
	x := tr.Weights
	if !tr.Done {
		var delta float64
		x, delta = tr.Pending()
		t := &dmv.Table{Tags: dmv.NewTagSet(st.Tags...), Params: dmv.NewParams(len(st.Tags)), Unit: format.Weight}
		ce.FromVector(x, t.Params)
		var r *dmv.Reweighting
		if delta != 0 {
			rw := dmv.Plain()
			rw.Delta = delta
			r = &rw
		}
		st.Model = estep.ModelHash(t, r, nil, dmv.DepthBound{})
	}
	if err := WriteState(path, st); err != nil {
		return err
	}
	return writeWeights(w, st.Tags, x)
}

func writeWeights(w io.Writer, tags []string, x []float64) error {
	p := dmv.NewParams(len(tags))
	ce.FromVector(x, p)
	return dmv.WriteTable(w, dmv.NewTagSet(tags...), p, format.Weight, nil)
}
