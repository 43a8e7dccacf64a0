package modelu

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/cesearch"
)

// StartOptions are ce-step --start --family modelu's: train-ce --family
// modelu's.
type StartOptions struct {
	Kind     string
	Spelling bool
	Sigma2   float64
	MaxIter  int
	Tol      float64
}

// Begin is ce-step --start for Model U: it reads the sentences of src,
// makes the model's features as train-ce does (no neighbourhood is built:
// nbhd makes them for the loop), writes the state to statePath and the
// start's model (weights 0) to w.
func Begin(src pipeline.Source, w io.Writer, statePath string, o StartOptions) error {
	sents, err := pipeline.ReadSentences(src)
	if err != nil {
		return err
	}
	if len(sents) == 0 {
		return fmt.Errorf("%s: no sentences", pipeline.DescribeInputs(src.Names))
	}
	if o.Spelling && o.Kind == "length" {
		return fmt.Errorf("Model U's spelling features need the words, and the length neighbourhood has every tag string without them: use another --nbhd")
	}
	m := New(corpusTags(sents), o.Spelling)
	m.Nbhd = o.Kind
	if _, err := Features(m, sents); err != nil {
		return fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
	}
	tr, err := NewTraining(m, sents, o.Sigma2, o.MaxIter, o.Tol)
	if err != nil {
		return err
	}
	tr.State.Start()
	if err := tr.WriteState(statePath); err != nil {
		return err
	}
	return tr.WriteModel(w)
}

// Step is one call of ce-step on a saved Model U training.
type Step struct{ cesearch.Step }

// Run reads the state and the counts, hands L-BFGS their evaluation, and
// writes the state and the model it waits for next (or the result) to w.
// Without counts it writes that model again and changes nothing.
func (o Step) Run(w io.Writer) error {
	tr, err := ReadState(o.State)
	if err != nil {
		return err
	}
	switch {
	case tr.Done() && o.Counted():
		return o.Ended(&tr.State.Progress)
	case !o.Counted():
		return tr.WriteModel(w)
	}
	obj, grad, err := o.evaluation(tr)
	if err != nil {
		return err
	}
	origin := tr.State.Origin()
	var accepted []format.Iteration
	if err := tr.Give(obj, grad, func(it cesearch.Iteration) error {
		accepted = append(accepted, Log(it, origin))
		return nil
	}); err != nil {
		return err
	}
	if err := tr.WriteState(o.State); err != nil {
		return err
	}
	if err := tr.WriteModel(w); err != nil {
		return err
	}
	summary := ""
	if st := tr.State; tr.Done() {
		summary = cesearch.Summary(st.Converged, st.Stopped, st.Iteration-1, st.Evaluations, float64(st.Objective))
	}
	return cesearch.ReportStep(accepted, o.Log, o.Report, summary)
}

// evaluation reads the two count files and makes the objective and its
// gradient at the weights the training waits for, as Problem.Objective
// does, refusing counts of other weights, sentences or neighbourhoods.
func (o Step) evaluation(tr *Training) (float64, []float64, error) {
	st := tr.State
	// The hash of the weights it waits for, made again: an edited state's
	// is not trusted.
	st.Model = tr.Model(tr.Pending()).Hash()
	read := func(path string) (*Counts, error) {
		c, err := ReadCounts(pipeline.Source{Names: []string{path}})
		if err != nil {
			return nil, err
		}
		return c, st.CheckCounts(o.State, path, c.Model, c.Stats, "")
	}
	sents, err := read(o.Sentences)
	if err != nil {
		return 0, nil, err
	}
	lats, err := read(o.Lattices)
	if err != nil {
		return 0, nil, err
	}
	switch {
	case sents.Corpus != st.Corpus:
		return 0, nil, fmt.Errorf("%s: counts of other sentences (corpus %s) than the training's (%s): give the sentences' counts first, then their neighbourhoods'", o.Sentences, sents.Corpus, st.Corpus)
	case lats.Corpus == st.Corpus:
		return 0, nil, fmt.Errorf("%s: counts of the training's sentences, where their neighbourhoods' are due (nbhd | estep)", o.Lattices)
	}
	if err := st.TakeLattices(o.Lattices, lats.Corpus); err != nil {
		return 0, nil, err
	}
	theta := tr.Pending()
	grad := make([]float64, len(theta))
	for _, side := range []struct {
		c    *Counts
		sign float64
		path string
	}{{sents, 1, o.Sentences}, {lats, -1, o.Lattices}} {
		for j, name := range side.c.Names {
			i := tr.m.Feature(name)
			if i < 0 {
				return 0, nil, fmt.Errorf("%s: a count of %s %s/%s, which is not a feature of the training", side.path, name[0], name[1], name[2])
			}
			grad[i] += side.sign * side.c.N[j]
		}
	}
	f := sents.Stats.Loglik - lats.Stats.Loglik
	if sents.Stats.LeftOut > 0 || lats.Stats.LeftOut > 0 {
		f = math.Inf(-1)
	}
	if s2 := float64(st.Sigma2); s2 > 0 && !math.IsInf(s2, 1) {
		for i, w := range theta {
			f -= w * w / (2 * s2)
			grad[i] -= w / s2
		}
	}
	return f, grad, nil
}

// corpusTags are the tags of sents, sorted, each once: Model U's tag set.
func corpusTags(sents []*format.Sentence) []string {
	var tags []string
	for _, s := range sents {
		tags = append(tags, s.Tags...)
	}
	slices.Sort(tags)
	return slices.Compact(tags)
}
