package train

import (
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/pipeline/progress"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/emloop"
	"github.com/grind-nlp/grind/stages/pr"
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
	// VBAlpha, when > 0, makes the run's M-steps (the initializer's
	// included) variational Bayes's with this Dirichlet hyperparameter,
	// and its models models of VB (dmv.VB).
	VBAlpha float64
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
	// Bound, when on, restricts every E-step to the trees within the
	// left-corner depth bound (dmv.BoundedChart); the models written
	// are plain DMVs.
	Bound dmv.DepthBound
	// Valence is the valence settings of the initializer's start (zero:
	// the plain DMV's, or a -m model's own); ChildBackoff the weight of
	// the child back-off in every M-step (dmv.MStepBackoff).
	Valence      dmv.Valence
	ChildBackoff float64
	// LearnBackoff, when not nil, learns the child back-off with this
	// prior (dmv.StartBackoff, dmv.MStepLearnedBackoff); a -m model that
	// does not learn it starts to.
	LearnBackoff *dmv.LearnedBackoff
}

// LearnedBackoff is the prior of the run's learned back-off: the job's, else
// the default (for a -m model that learns it).
func (j Job) LearnedBackoff() dmv.LearnedBackoff {
	if j.LearnBackoff != nil {
		return *j.LearnBackoff
	}
	return dmv.DefaultLearnedBackoff
}

// valence is the run's valence settings: the -m model's, else the job's,
// else the plain DMV's.
func (s *Session) valence() dmv.Valence { return runValence(s.start, s.Job) }

// runValence is Session.valence before there is a session.
func runValence(start *dmv.Table, job Job) dmv.Valence {
	if start != nil {
		return start.Params.V
	}
	return job.Valence.OrDMV()
}

// Session is one training run under way: the corpus, the log, and the
// observer every loop iteration reports to.
type Session struct {
	Job    Job
	Corpus *dmv.Corpus
	inputs string     // the corpus's files, for errors
	start  *dmv.Table // the -m model, when given
	// weights is θ⁽⁰⁾ when it is a weight table (zero), not a model:
	// iterations that run on it are logged but not saved as models.
	weights *dmv.Params
	// vb marks the model the next iteration runs on as a model of VB (nil:
	// normalised): θ⁽⁰⁾ as it came, then each VB M-step's with its bound.
	vb    *dmv.VB
	estep *dmv.EStepper
	log   *os.File
	iters int
	// crossEntropy is the last iteration's, when its objective has one.
	crossEntropy *format.Real
	resumed      *Checkpoint // the checkpoint a resumed run continues from
	elapsed      float64     // seconds the resumed run's log had reached
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
		if v := job.Valence; v != (dmv.Valence{}) && v != start.Params.V {
			return nil, fmt.Errorf("%s: a model with %s, not the %s asked for (-m sets the valences itself)", job.StartModel, start.Params.V, v)
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
		if err := dmv.CheckMemory(runValence(start, job), job.Bound, t, 0, workers, dmv.TrainTables(workers), job.MaxMemory); err != nil {
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
		if start.Unit == format.Prob && start.VB == nil && len(unseen) > 1 {
			p = dmv.Renormalise(p) // one class per unseen tag: a distribution again
		}
		start = &dmv.Table{Tags: ts, Params: p, Unit: start.Unit, Stats: start.Stats, VB: start.VB}
		return ts, nil
	}
	gold := job.Evaluate != nil && (job.LogPath != "" || job.RunDir != "")
	var corpus *dmv.Corpus
	var err error
	if job.Stream {
		corpus, err = dmv.OpenStream(src.Names, dmv.StreamOptions{Bad: src.Bad, Gold: gold, TagSet: tagSet})
	} else {
		corpus, err = ReadCorpus(src, dmv.CorpusOptions{Gold: gold, IDs: job.IDs}, tagSet)
	}
	if err != nil {
		return nil, err
	}
	if err := dmv.CheckMemory(runValence(start, job), job.Bound, corpus.Tags.Len(), corpus.MaxLen, workers, dmv.TrainTables(workers), job.MaxMemory); err != nil {
		return nil, fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
	}
	s := &Session{Job: job, Corpus: corpus, inputs: pipeline.DescribeInputs(src.Names), start: start, estep: dmv.NewEStepper(corpus)}
	if !corpus.HasGold() {
		s.Job.Evaluate = nil
	}
	switch {
	case job.RunDir != "":
		if job.Resume {
			if s.resumed, err = ReadCheckpoint(job.RunDir, corpus.Tags, s.unit(), s.valence(), job.VBAlpha > 0); err != nil {
				return nil, err
			}
		}
		done := 0
		if s.resumed != nil {
			done = s.resumed.Done()
			s.iters = done
			if job.VBAlpha > 0 { // the checkpoint's model: its bound is the last objective
				s.vb = &dmv.VB{Alpha: job.VBAlpha, Bound: &s.resumed.Prev}
			}
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
		if vb := s.start.VB; vb != nil && s.resumed == nil {
			s.vb = &dmv.VB{Alpha: vb.Alpha} // its bound was another run's
		}
		p := s.start.Params
		if s.Job.LearnBackoff != nil && p.Backoff == nil {
			if err := s.Job.LearnBackoff.CheckFor(p.V); err != nil {
				return dmv.Start{}, fmt.Errorf("%s: %w", s.Job.StartModel, err)
			}
			p = dmv.StartBackoff(p, *s.Job.LearnBackoff)
		}
		return dmv.Start{Params: p, VB: s.start.VB != nil}, nil
	}
	st, err := dmv.Initialize(s.Corpus, s.Job.Init, s.InitOptions(lambda))
	if err != nil {
		return dmv.Start{}, err
	}
	if st.Weights {
		s.weights = st.Params
	}
	if st.VB && s.resumed == nil {
		s.vb = &dmv.VB{Alpha: s.Job.VBAlpha}
	}
	return st, nil
}

// InitOptions are the initializer's settings for this run.
func (s *Session) InitOptions(lambda float64) dmv.InitOptions {
	c := s.Job.KleinConst
	if c == 0 {
		c = dmv.DefaultKleinConst
	}
	return dmv.InitOptions{Lambda: lambda, VBAlpha: s.Job.VBAlpha, Seed: s.Job.Seed, KleinConst: c, Workers: s.Job.Workers,
		Valence: s.valence(), ChildBackoff: s.Job.ChildBackoff, LearnBackoff: s.Job.LearnBackoff}
}

// Observe is the observer of every iteration: accuracy (when asked),
// the log line, progress, and the periodic save of the model.
func (s *Session) Observe(it format.Iteration, model *dmv.Params) error {
	s.iters++
	s.crossEntropy = it.CrossEntropy
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
	s.vb = nil // the model this iteration made
	if s.Job.VBAlpha > 0 {
		bound := float64(it.Objective)
		s.vb = &dmv.VB{Alpha: s.Job.VBAlpha, Bound: &bound}
	}
	return nil
}

// Save writes a model file atomically: the model the next iteration runs
// on, a model of VB when it is one.
func (s *Session) Save(path string, model *dmv.Params) error {
	return pipeline.WriteFile(path, nil, func(o *pipeline.Output) error { return s.write(o, model) })
}

func (s *Session) write(w io.Writer, model *dmv.Params) error {
	if s.vb != nil && s.unit() == format.Prob {
		return dmv.WriteVB(w, s.Corpus.Tags, model, *s.vb)
	}
	return dmv.WriteTable(w, s.Corpus.Tags, model, s.unit(), nil)
}

// Write writes the final model to w, and to the run directory: the
// model the last iteration made (a model of VB when it is one).
func (s *Session) Write(w io.Writer, model *dmv.Params) error {
	if s.Job.RunDir != "" {
		if err := s.Save(filepath.Join(s.Job.RunDir, RunModel), model); err != nil {
			return err
		}
	}
	return s.write(w, model)
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
	Stop        emloop.Rule // "": bits with Hard, relative otherwise
	Ties        dmv.Ties    // Hard's tie rule ("": dmv.TiesLeft), seeded by Job.Seed
	// PR, when it asks for a constraint, is EM for posterior
	// regularization (stages/pr).
	PR pr.Options
}

// RunEM trains by EM, MAP/EM, Viterbi EM or (job.VBAlpha) variational
// Bayes and writes the model to w.
func RunEM(src pipeline.Source, w io.Writer, job Job, opts EMOptions) error {
	s, start, err := Begin(src, job, opts.Lambda)
	if err != nil {
		return err
	}
	defer s.Close()
	em := &EM{
		Corpus:         s.Corpus,
		EStep:          dmv.EStepOptions{Hard: opts.Hard, Ties: opts.Ties, Seed: job.Seed, Workers: job.Workers, Bound: job.Bound},
		Lambda:         opts.Lambda,
		VBAlpha:        job.VBAlpha,
		Backoff:        job.ChildBackoff,
		LearnedBackoff: job.LearnedBackoff(),
		MaxIter:        opts.MaxIter,
		Tol:            opts.Tol,
		Stop:           opts.Stop,
		Observe:        s.Observe,
		Resume:         s.Resumed(),
		Start:          s.Origin(),
	}
	if job.RunDir != "" {
		em.Checkpoint = s.Checkpoint
	}
	if em.Projector, em.Checkpoint, err = s.Projector(opts.PR, em.Checkpoint); err != nil {
		return err
	}
	res, err := em.Run(start.Params)
	if err != nil {
		return err
	}
	model := res.Model
	if opts.FinalLambda >= 0 {
		model = dmv.MStepSmoothed(res.Counts, opts.FinalLambda, job.ChildBackoff, job.LearnedBackoff())
		s.vb = nil // normalised: under VB with λ = α, the posterior mean
	}
	s.report(res)
	return s.Write(w, model)
}

// Projector makes posterior regularization's projector for opts (nil
// when opts asks for no constraint) and, in a run directory, keeps its
// dual beside each checkpoint: checkpoint wrapped so that dual-NNNNNN.json
// of the checkpoint's iteration count is written before it and the older
// ones removed after it (a kill at any moment leaves the dual of the
// checkpoint there); a resumed run takes back the one of its checkpoint.
func (s *Session) Projector(opts pr.Options, checkpoint func(Checkpoint) error) (*pr.Projector, func(Checkpoint) error, error) {
	if !opts.On() {
		return nil, checkpoint, nil
	}
	workers := pipeline.Workers(s.Job.Workers)
	held := dmv.MemoryBytes(s.valence(), s.Job.Bound, s.Corpus.Tags.Len(), s.Corpus.MaxLen, workers, dmv.TrainTables(workers))
	if err := pr.CheckMemory(s.Corpus, opts, held, s.Job.MaxMemory); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", s.inputs, err)
	}
	proj, err := pr.New(s.Corpus, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", s.inputs, err)
	}
	dir := s.Job.RunDir
	if dir == "" {
		return proj, checkpoint, nil
	}
	name := func(done int) string { return filepath.Join(dir, fmt.Sprintf("dual-%06d.json", done)) }
	if r := s.Resumed(); r != nil {
		path := name(r.Done())
		state, err := pr.ReadState(path)
		if err != nil {
			return nil, nil, err
		}
		if err := proj.Restore(state, "", path); err != nil {
			return nil, nil, err
		}
	}
	return proj, func(c Checkpoint) error {
		state := proj.State("")
		state.Iterations = c.Done()
		if err := pr.WriteState(name(c.Done()), state); err != nil {
			return err
		}
		if err := checkpoint(c); err != nil {
			return err
		}
		old, _ := filepath.Glob(filepath.Join(dir, "dual-*.json"))
		for _, path := range old {
			if path != name(c.Done()) {
				os.Remove(path)
			}
		}
		return nil
	}, nil
}

func (s *Session) report(res *Result) {
	state := "converged"
	if !res.Converged {
		state = "stopped at the iteration limit"
	}
	if ce := s.crossEntropy; ce != nil { // the objective is the log-likelihood
		s.Job.Progress.Note("%s after %d iterations; objective %.10g (%.6f bits/token)", state, res.Iterations, res.Objective, float64(*ce))
	} else {
		s.Job.Progress.Note("%s after %d iterations; objective %.10g", state, res.Iterations, res.Objective)
	}
	if res.Unusable > 0 {
		s.Job.Progress.Note("%d sentences left out: their weights span more than floating point can hold", res.Unusable)
	}
	if res.ZeroWeight > 0 {
		s.Job.Progress.Note("%d sentences have probability 0 under the model", res.ZeroWeight)
	}
}

// ReadCorpus reads the sentences of src into a compact corpus, one
// record at a time, with the tag set tagSet chooses from the corpus's
// own tags (nil: the corpus's own tags, sorted).
func ReadCorpus(src pipeline.Source, opts dmv.CorpusOptions, tagSet func(names []string) (*dmv.TagSet, error)) (*dmv.Corpus, error) {
	b := dmv.NewCorpusBuilder(opts)
	// The builder copies what it keeps of each sentence (never its
	// words), so one record takes every line, read as estep reads its
	// corpus: without the words, the CoNLL-U fields checked for their
	// syntax alone (format.SentenceNoWords).
	err := pipeline.EachRecordReused(src, func(r *format.SentenceNoWords, _ *pipeline.Lines) error {
		s := r.Sentence
		if err := s.Validate(); err != nil {
			return pipeline.BadRecord(err)
		}
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
	if tagSet == nil {
		return b.Finish(nil)
	}
	ts, err := tagSet(b.Names())
	if err != nil {
		return nil, err
	}
	return b.Finish(ts)
}
