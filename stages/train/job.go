package train

import (
	"fmt"
	"io"
	"iter"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/pipeline/progress"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/rundir"
)

// Job is what the training programs share: where the start comes from,
// where logs and intermediate models go, and who hears about progress.
type Job struct {
	Init       string // initializer name, when StartModel is empty
	StartModel string // a model file to start from instead
	Seed       uint64
	KleinConst float64 // klein's constant (dmv.InitOptions)
	Workers    int
	LogPath    string // one format.Iteration per line ("" for none)
	SaveEvery  int    // save the model every SaveEvery iterations (0: never)
	SaveDir    string
	Progress   *progress.Reporter
	// Evaluate scores Viterbi parses of the training data against its
	// gold heads, for the log: directed and undirected accuracy. It
	// sees each sentence's gold and predicted heads in turn and must not
	// keep them (a corpus of millions is parsed a batch at a time). Nil
	// skips evaluation.
	Evaluate func(pairs iter.Seq2[[]int, []int]) (directed, undirected float64)
	// Unit is what the run's models hold: probabilities (format.Prob, the
	// default) or log-linear weights (format.Weight, CE), which are saved
	// as "w" and decoded with potentials exp(w).
	Unit format.Unit
	// RunDir, when not "", receives the log (RunLog), a checkpoint after
	// every iteration and the final model (RunModel); with Resume the run
	// continues from the checkpoint there instead of from the start.
	RunDir string
	Resume bool
	// Stream reads the corpus again from its files on every pass instead
	// of holding it (dmv.OpenStream): memory independent of its size.
	Stream bool
	// IDs keeps the sentences' ids, for the error messages of loops
	// that name sentences (CE).
	IDs bool
	// MaxMemory refuses, before they are made, tables and charts that
	// would need more bytes (dmv.CheckMemory; --max-memory; ≤ 0: no
	// limit).
	MaxMemory int64
}

// Session is one training run under way: the corpus, the log, and the
// observer every loop iteration reports to.
type Session struct {
	Job    Job
	Corpus *dmv.Corpus
	start  *dmv.Table // the -m model, when given
	// weights is θ⁽⁰⁾ when it is a weight table (zero), not a model:
	// iterations that run on it are logged but not saved as models.
	weights *dmv.Params
	estep   *dmv.EStepper
	log     *os.File
	iters   int
	resumed *Checkpoint // the checkpoint a resumed run continues from
	elapsed float64     // seconds the resumed run's log had reached
}

// Open reads the corpus of src and opens the log. The corpus is read
// into a compact store (dmv.Corpus), record by record, or with Stream
// only indexed and read again on every pass.
func Open(src pipeline.Source, job Job) (*Session, error) {
	var start *dmv.Table
	if job.StartModel != "" {
		var err error
		if start, err = dmv.ReadModel(job.StartModel); err != nil {
			return nil, err
		}
	}
	// The tag set: the corpus's own, sorted; or with a start model, its
	// tags and then the corpus's tags it has not seen, which begin as its
	// average tag (dmv.Table.Extend) and are trained from there.
	workers := pipeline.Workers(job.Workers)
	tagSet := func(names []string) (*dmv.TagSet, error) {
		// The tables, before any is made (with a start model, over its
		// tags and the corpus's; the charts once the lengths are known).
		t := len(names)
		if start != nil {
			t += start.Tags.Len()
		}
		if err := dmv.CheckMemory(t, 0, workers, dmv.TrainTables(workers), job.MaxMemory); err != nil {
			return nil, fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
		}
		if start == nil {
			return dmv.SortedTagSet(names), nil
		}
		ts, p, unseen, err := start.Extend(names)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
		}
		if len(unseen) > 0 && job.Progress != nil {
			job.Progress.Note("%d tags unknown to %s start as its average tag: %s\n", len(unseen), job.StartModel, strings.Join(unseen, " "))
		}
		if start.Unit == format.Prob && len(unseen) > 1 {
			p = dmv.MStep(p, 0) // one class per unseen tag: a distribution again
		}
		start = &dmv.Table{Tags: ts, Params: p, Unit: start.Unit, Stats: start.Stats}
		return ts, nil
	}
	gold := job.Evaluate != nil && (job.LogPath != "" || job.RunDir != "")
	var corpus *dmv.Corpus
	var err error
	if job.Stream {
		corpus, err = dmv.OpenStream(src.Names, dmv.StreamOptions{Bad: src.Bad, Gold: gold, TagSet: tagSet})
	} else {
		corpus, err = readCorpus(src, dmv.CorpusOptions{Gold: gold, IDs: job.IDs}, tagSet)
	}
	if err != nil {
		return nil, err
	}
	if err := dmv.CheckMemory(corpus.Tags.Len(), corpus.MaxLen, workers, dmv.TrainTables(workers), job.MaxMemory); err != nil {
		return nil, fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
	}
	s := &Session{Job: job, Corpus: corpus, start: start, estep: dmv.NewEStepper(corpus)}
	if !corpus.HasGold() {
		s.Job.Evaluate = nil
	}
	switch {
	case job.RunDir != "":
		if job.Resume {
			if s.resumed, err = ReadCheckpoint(job.RunDir, corpus.Tags, s.unit()); err != nil {
				return nil, err
			}
		}
		done := 0
		if s.resumed != nil {
			done = s.resumed.Done()
			s.iters = done
		}
		if s.log, s.elapsed, err = rundir.OpenLog(job.RunDir, job.Resume, done); err != nil {
			return nil, err
		}
	case job.LogPath != "":
		if s.log, err = os.Create(job.LogPath); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Close closes the log.
func (s *Session) Close() error {
	s.Job.Progress.Done()
	if s.log != nil {
		return s.log.Close()
	}
	return nil
}

// Start is θ⁽⁰⁾ (DESIGN.md §5.2): the -m model, or the initializer's
// start with the run's λ in its M-step.
func (s *Session) Start(lambda float64) (dmv.Start, error) {
	if s.start != nil {
		if s.start.Unit != format.Prob {
			return dmv.Start{}, fmt.Errorf("%s: not a probability model", s.Job.StartModel)
		}
		return dmv.Start{Params: s.start.Params}, nil
	}
	st, err := dmv.Initialize(s.Corpus, s.Job.Init, s.InitOptions(lambda))
	if err != nil {
		return dmv.Start{}, err
	}
	if st.Weights {
		s.weights = st.Params
	}
	return st, nil
}

// InitOptions are the initializer's settings for this run.
func (s *Session) InitOptions(lambda float64) dmv.InitOptions {
	c := s.Job.KleinConst
	if c == 0 {
		c = dmv.DefaultKleinConst
	}
	return dmv.InitOptions{Lambda: lambda, Seed: s.Job.Seed, KleinConst: c, Workers: s.Job.Workers}
}

// Observe is the observer of every iteration: accuracy (when asked),
// the log line, progress, and the periodic save of the model.
func (s *Session) Observe(it format.Iteration, model *dmv.Params) error {
	s.iters++
	if s.Job.Evaluate != nil && s.log != nil {
		pot := model
		if s.unit() == format.Weight {
			pot = dmv.ExpWeights(model)
		}
		var err error
		d, u := s.Job.Evaluate(func(yield func(gold, pred []int) bool) {
			more := true
			err = s.estep.DecodeEach(s.Corpus.Tags, pot, s.Job.Workers, func(_ int, gold, pred []int) {
				more = more && yield(gold, pred)
			})
		})
		if err != nil {
			return err
		}
		it.Directed, it.Undirected = &d, &u
	}
	if s.log != nil {
		if err := pipeline.WriteRecord(s.log, it); err != nil {
			return err
		}
	}
	s.Job.Progress.Iteration(it)
	if s.Job.SaveEvery > 0 && s.iters%s.Job.SaveEvery == 0 && model != s.weights {
		path := filepath.Join(s.Job.SaveDir, fmt.Sprintf("iter-%04d.jsonl", it.Iter))
		if err := s.Save(path, model); err != nil {
			return err
		}
	}
	return nil
}

// Save writes a model file atomically.
func (s *Session) Save(path string, model *dmv.Params) error {
	return pipeline.WriteFile(path, nil, func(o *pipeline.Output) error {
		return dmv.WriteTable(o, s.Corpus.Tags, model, s.unit(), nil)
	})
}

// Write writes the final model to w, and to the run directory.
func (s *Session) Write(w io.Writer, model *dmv.Params) error {
	if s.Job.RunDir != "" {
		if err := s.Save(filepath.Join(s.Job.RunDir, RunModel), model); err != nil {
			return err
		}
	}
	return dmv.WriteTable(w, s.Corpus.Tags, model, s.unit(), nil)
}

// Origin is where the log's seconds count from: now, or for a resumed
// run as many seconds ago as its log had reached (the time it was down
// not counted).
func (s *Session) Origin() time.Time {
	return time.Now().Add(-time.Duration(s.elapsed * float64(time.Second)))
}

// Resumed is the checkpoint a resumed run continues from (nil: from the
// start).
func (s *Session) Resumed() *Checkpoint { return s.resumed }

// Checkpoint saves c in the run directory (none: nothing).
func (s *Session) Checkpoint(c Checkpoint) error {
	if s.Job.RunDir == "" {
		return nil
	}
	return WriteCheckpoint(s.Job.RunDir, c)
}

func (s *Session) unit() format.Unit {
	if s.Job.Unit == 0 {
		return format.Prob
	}
	return s.Job.Unit
}

// StartTable is the model given with -m (nil without one), for loops
// whose start is not a probability model.
func (s *Session) StartTable() *dmv.Table { return s.start }

// Begin opens a session and makes θ⁽⁰⁾, the start its training's first
// E-step runs on (the -m model, or the initializer's with the run's λ).
func Begin(src pipeline.Source, job Job, lambda float64) (*Session, dmv.Start, error) {
	s, err := Open(src, job)
	if err != nil {
		return nil, dmv.Start{}, err
	}
	start, err := s.Start(lambda)
	if err != nil {
		s.Close()
		return nil, dmv.Start{}, err
	}
	return s, start, nil
}

// EMOptions are train-em's own settings.
type EMOptions struct {
	Lambda      float64
	FinalLambda float64 // < 0: no final smoothing
	Hard        bool
	MaxIter     int
	Tol         float64
}

// RunEM trains by EM, MAP/EM or Viterbi EM and writes the model to w.
func RunEM(src pipeline.Source, w io.Writer, job Job, opts EMOptions) error {
	s, start, err := Begin(src, job, opts.Lambda)
	if err != nil {
		return err
	}
	defer s.Close()
	em := &EM{
		Corpus:  s.Corpus,
		EStep:   dmv.EStepOptions{Hard: opts.Hard, Workers: job.Workers},
		Lambda:  opts.Lambda,
		MaxIter: opts.MaxIter,
		Tol:     opts.Tol,
		Observe: s.Observe,
		Resume:  s.Resumed(),
		Start:   s.Origin(),
	}
	if job.RunDir != "" {
		em.Checkpoint = s.Checkpoint
	}
	res, err := em.Run(start.Params)
	if err != nil {
		return err
	}
	model := res.Model
	if opts.FinalLambda >= 0 {
		model = dmv.MStep(res.Counts, opts.FinalLambda)
	}
	s.report(res)
	return s.Write(w, model)
}

func (s *Session) report(res *Result) {
	state := "converged"
	if !res.Converged {
		state = "stopped at the iteration limit"
	}
	s.Job.Progress.Note("%s after %d iterations; objective %.10g (%.6f bits/token)", state, res.Iterations,
		res.Objective, -res.Objective/float64(s.Corpus.Tokens)/math.Ln2)
	if res.Unusable > 0 {
		s.Job.Progress.Note("%d sentences left out: their weights span more than floating point can hold", res.Unusable)
	}
	if res.ZeroWeight > 0 {
		s.Job.Progress.Note("%d sentences have probability 0 under the model", res.ZeroWeight)
	}
}

// readCorpus reads the sentences of src into a compact corpus, one
// record at a time, with the tag set tagSet chooses from the corpus's
// own tags.
func readCorpus(src pipeline.Source, opts dmv.CorpusOptions, tagSet func(names []string) (*dmv.TagSet, error)) (*dmv.Corpus, error) {
	b := dmv.NewCorpusBuilder(opts)
	err := pipeline.EachSentence(src, func(s *format.Sentence) error {
		if err := b.Add(s); err != nil {
			return pipeline.BadRecord(err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if b.Len() == 0 {
		return nil, fmt.Errorf("%s: no sentences", pipeline.DescribeInputs(src.Names))
	}
	ts, err := tagSet(b.Names())
	if err != nil {
		return nil, err
	}
	return b.Finish(ts)
}
