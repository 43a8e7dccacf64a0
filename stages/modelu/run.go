package modelu

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/cesearch"
	"github.com/grind-nlp/grind/stages/rundir"
	"github.com/grind-nlp/grind/stages/train"
)

// RunOptions are train-ce --family modelu's settings; the job's are the
// workers, the log, --save-every, the run directory and progress.
type RunOptions struct {
	Kind     string
	Spelling bool
	Sigma2   float64
	MaxIter  int
	Tol      float64
}

// Run trains Model U by CE on the sentences of src from weights 0 and
// writes it to w. With job.RunDir it keeps the run directory: the log,
// a checkpoint and the training's state (cesearch.StateFile) after every
// iteration, the final model; with job.Resume it goes on from them, in
// the middle of a line search, to the model the run would have made.
func Run(src pipeline.Source, w io.Writer, job train.Job, opts RunOptions) error {
	defer job.Progress.Done()
	sents, p, err := setUp(src, job, opts)
	if err != nil {
		return err
	}
	m := p.M
	tr, err := NewTraining(m, sents, opts.Sigma2, opts.MaxIter, opts.Tol)
	if err != nil {
		return err
	}
	o := Options{Sigma2: opts.Sigma2, MaxIter: opts.MaxIter, Tol: opts.Tol, Workers: job.Workers, Training: tr}
	var log io.WriteCloser
	var elapsed float64
	switch {
	case job.RunDir != "":
		if log, elapsed, err = openRunDir(job, &o); err != nil {
			return err
		}
	case job.LogPath != "":
		if log, err = os.Create(job.LogPath); err != nil {
			return err
		}
	}
	if log != nil {
		defer log.Close()
	}
	origin := time.Now().Add(-time.Duration(elapsed * float64(time.Second)))
	o.Observe = func(it cesearch.Iteration) error {
		rec := Log(it, origin)
		if log != nil {
			if err := pipeline.WriteRecord(log, rec); err != nil {
				return err
			}
		}
		job.Progress.Iteration(rec)
		if job.SaveEvery > 0 && rec.Iter%job.SaveEvery == 0 {
			path := filepath.Join(job.SaveDir, fmt.Sprintf("iter-%04d.jsonl", rec.Iter))
			saved := o.Training.Model(it.X)
			return pipeline.WriteFile(path, nil, func(f *pipeline.Output) error { return saved.Write(f) })
		}
		return nil
	}
	res, err := Train(p, o)
	if err != nil {
		return err
	}
	if log != nil {
		if err := log.Close(); err != nil {
			return err
		}
	}
	job.Progress.Note("%s", cesearch.Summary(res.Converged, res.Status, res.Iters, res.Evals, res.Objective))
	if job.RunDir != "" {
		if err := pipeline.WriteFile(filepath.Join(job.RunDir, rundir.Model), nil, func(o *pipeline.Output) error { return m.Write(o) }); err != nil {
			return err
		}
	}
	return m.Write(w)
}

// setUp reads the sentences of src and builds Model U's problem over
// them: its features, every sentence's chain and neighbourhood.
func setUp(src pipeline.Source, job train.Job, opts RunOptions) ([]*format.Sentence, *Problem, error) {
	sents, err := pipeline.ReadSentences(src)
	if err != nil {
		return nil, nil, err
	}
	if len(sents) == 0 {
		return nil, nil, fmt.Errorf("%s: no sentences", pipeline.DescribeInputs(src.Names))
	}
	tags := corpusTags(sents)
	m := New(tags, opts.Spelling)
	m.Nbhd = opts.Kind
	p, err := NewProblem(m, sents, opts.Kind, job.Workers, job.MaxMemory)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
	}
	job.Progress.Note("Model U: %d sentences, %d tags, %d features (spelling %v), neighbourhood %s", len(sents), len(tags), len(m.Theta), opts.Spelling, opts.Kind)
	return sents, p, nil
}

// RunGrid is Run at each σ² of sigma2s, opts's other settings
// (train-ce --sigma2 A,B,…): the sentences are read and their chains and
// neighbourhoods built once (on UD Turkish ≤ 10 about a fifth of a plain
// run's CPU, an eighth of a spelling one's), then each σ² trained from
// weights 0 and its model given to write. Each model is the one Run
// writes at that σ².
func RunGrid(src pipeline.Source, job train.Job, opts RunOptions, sigma2s []float64, write func(i int, m *Model) error) error {
	defer job.Progress.Done()
	sents, p, err := setUp(src, job, opts)
	if err != nil {
		return err
	}
	for i, sigma2 := range sigma2s {
		clear(p.M.Theta)
		tr, err := NewTraining(p.M, sents, sigma2, opts.MaxIter, opts.Tol)
		if err != nil {
			return err
		}
		origin := time.Now()
		res, err := Train(p, Options{Sigma2: sigma2, MaxIter: opts.MaxIter, Tol: opts.Tol, Workers: job.Workers, Training: tr,
			Observe: func(it cesearch.Iteration) error { job.Progress.Iteration(Log(it, origin)); return nil }})
		if err != nil {
			return fmt.Errorf("σ² = %g: %w", sigma2, err)
		}
		job.Progress.Note("σ² = %g: %s", sigma2, cesearch.Summary(res.Converged, res.Status, res.Iters, res.Evals, res.Objective))
		if err := write(i, p.M); err != nil {
			return err
		}
	}
	return nil
}

// openRunDir opens the run directory's log and sets o to checkpoint the
// training there after every iteration; on resume, o goes on from the
// training's state. elapsed is the seconds the resumed run's log had
// reached.
func openRunDir(job train.Job, o *Options) (log *os.File, elapsed float64, err error) {
	dir := job.RunDir
	statePath := filepath.Join(dir, cesearch.StateFile)
	done := 0
	if job.Resume {
		c, err := rundir.Read[cesearch.Vector](dir, nil)
		if err != nil {
			return nil, 0, err
		}
		if c != nil {
			done = c.Done()
			if err := resume(job, o, statePath, done); err != nil {
				return nil, 0, err
			}
		}
	}
	// The checkpoint first: a kill between the two leaves the training one
	// iteration behind it, which the resumed run makes again without
	// logging it twice.
	o.Checkpoint = func(tr *Training) error {
		x, obj := tr.search.Last()
		c := rundir.State[cesearch.Vector]{Stage: 1, StageIters: tr.State.Iteration, Prev: obj, Model: x}
		if err := rundir.Write(dir, c); err != nil {
			return err
		}
		return tr.WriteState(statePath)
	}
	log, elapsed, err = rundir.OpenLog(dir, job.Resume, done)
	return log, elapsed, err
}

// resume sets o to go on from the training's state in statePath, which
// the checkpoint (at iteration done) holds the log of.
func resume(job train.Job, o *Options, statePath string, done int) error {
	tr, err := ReadState(statePath)
	if errors.Is(err, fs.ErrNotExist) {
		// Killed between the first checkpoint and the first state: the
		// training again from its start, which makes the same points,
		// logging only what the log lacks.
		o.Training.Logged = done
		job.Progress.Note("starting again (no %s yet), logging from iteration %d", cesearch.StateFile, done+1)
		return nil
	}
	if err != nil {
		return err
	}
	if err := tr.sameAs(o.Training); err != nil {
		return fmt.Errorf("%s: not the state of this run: %w", statePath, err)
	}
	if tr.State.Iteration > done {
		return fmt.Errorf("the training state is at iteration %d, the checkpoint at %d", tr.State.Iteration, done)
	}
	tr.Logged = done
	o.Training = tr
	job.Progress.Note("continuing at iteration %d (evaluation %d), where the run stopped", tr.State.Iteration, tr.State.Evaluations)
	return nil
}

// sameAs says whether a saved training is of the same model and settings
// as a new one (nil when it is).
func (tr *Training) sameAs(fresh *Training) error {
	a, b := tr.State, fresh.State
	switch {
	case a.Corpus != b.Corpus || a.Sentences != b.Sentences:
		return fmt.Errorf("of other sentences (corpus %s, not %s)", a.Corpus, b.Corpus)
	case a.Nbhd != b.Nbhd || a.Spelling != b.Spelling || !slices.Equal(a.Tags, b.Tags) || !slices.Equal(a.Affixes, b.Affixes) || !slices.Equal(a.Features, b.Features):
		return errors.New("of other features or another neighbourhood")
	case a.Sigma2 != b.Sigma2 || a.MaxIter != b.MaxIter || a.Tol != b.Tol:
		return errors.New("of other settings (--sigma2, --max-iter, --tol)")
	}
	return nil
}
