package commands

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/pipeline/progress"
	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/dmvccm"
	"github.com/grind-nlp/grind/stages/emloop"
	"github.com/grind-nlp/grind/stages/memory"
	"github.com/grind-nlp/grind/stages/rundir"
	"github.com/grind-nlp/grind/stages/schedule"
)

func init() { program.Register("train-ccm", WithRunDir(trainCCMApp)) }

// train-ccm trains in-process and writes predictions; --save-model writes
// the model (ccm, ccm2, dmvccm) for the family stages.
func trainCCMApp() *cli.App {
	return &cli.App{
		Usage:     "train a CCM, CCM2 or DMV+CCM and bracket the sentences (--save-model: the model too)",
		UsageText: "train-ccm [options] [FILE...]",
		Description: `Trains on the "tags" of the input sentences in memory, then writes the
sentences again with "pred_spans" (binary bracketings, 0-based half-open, the
whole sentence included; none for one-word sentences) and, for --model
dmvccm, "pred" (heads). With --test FILE the sentences of FILE are decoded
and written instead (held-out evaluation); their unseen yields and contexts
get the smoothed probability of a zero count; under dmvccm a tag the DMV never
saw is the DMV's average tag, as decode -m does (named on stderr unless --quiet).

Models:
   ccm      Klein's Constituent-Context Model (Klein 2005, ch. 5)
   ccm2     Smith & Eisner's (2004) model 2: yields conditioned on length
   dmvccm   Klein's product of the DMV and the CCM (§6.3)

Estimators: em; da, whose E-step reads every probability raised to β, β
from --beta0 times --gamma per stage up to 1 (each stage EM to
convergence; Smith & Eisner's CCM schedule, β₀ = 0.01, γ = 1.5, is the
default); sda, skewed DA, whose E-step's posterior is P(B|s)^β·p̀(B)^(1−β)
renormalised, leaning toward a skew p̀ while β is small (--skew):
   split  Smith & Eisner's (2004 §6) skew for the CCM: the random-split tree
          distribution, P(B) = Π 1/(l−1) over B's constituents of l ≥ 2
          words, the trees whose bracket posteriors are --init split's
          (the default for ccm and ccm2; estep --split-skew)
   start  grind's own: every probability p^β·p₀^(1−β), p₀ the model of
          --init's M-step (dmvccm: both halves', the start pair of --init
          and --dmv-init; its only skew; estep --skew START-MODEL)
The CCM is smoothed as Klein's (2 constituent and 8 distituent pseudo-counts
per yield and context).

Classes (--classes K, ccm and em only): Klein's (2005 §5.3.2) multi-class
CCM, in which the bracketing generates a label for every span — the
distituent label d for every distituent, one of K − 1 constituent classes,
uniformly, for every constituent — and each label its own yields and
contexts. K = 2 is the CCM (the same numbers by the multi-class code);
Klein compared 2 and 12. The classes start apart by random shares of each
yield's start counts (--seed), and share the CCM's constituent
pseudo-counts (2/(K − 1) each per yield and context). --dump-classes FILE
writes each class's most frequent yields of two tags or more, {"class",
"yield", "count"} (expected counts over the training sentences; class 0 is
d; for the CCM itself class 1 is its constituent label), as Klein's
Fig. 5.9. --save-model, --save-every and --run-dir write the multi-class
model (family ccm-classes; K = 2 writes the CCM's own ccm file), which
estep | mstep trains further and decode -m decodes, as the CCM's.

Decoding: the Viterbi bracketing (ties to the leftmost split), or with --mbr
the binary bracketing with the largest sum of bracket posteriors (CCM only).

--log writes one JSON line per E-step (iter, stage, beta, objective: the
log-likelihood plus the smoothing's log prior, tempered under DA; seconds),
which plotcurve draws. Under dmvccm the objective is the product's
log-likelihood (under DA (1/β)·log Σ p^β, the tempered E-step's), and with gold "heads" on every training sentence each line
has the directed and undirected accuracy (root counted) of that E-step's
Viterbi parses of the training sentences.

--run-dir DIR records the run (run.json, iterations.jsonl, a checkpoint
after every iteration, model.jsonl; not with --head-choice, which a model
file does not carry); --resume DIR continues a killed run to the same
sentences and model, byte for byte.

Examples:
   train-ccm wsj10.jsonl | score
   train-ccm --model ccm2 --estimator sda train.jsonl --test test.jsonl | score
   train-ccm --model dmvccm --log dmvccm.log wsj10.jsonl -o dmvccm.jsonl
   train-ccm --classes 12 --dump-classes classes.jsonl wsj10.jsonl | score --analysis labels
   train-ccm --classes 3 --max-iter 0 --save-model m0.jsonl wsj10.jsonl >/dev/null   # for estep -m m0.jsonl | mstep
   train-ccm --model dmvccm --max-memory 4G wsj40.jsonl -o dmvccm40.jsonl   # long sentences

--max-memory SIZE (default 1G) refuses, before the sentences are interned, a
run whose spans, yields and charts (dmvccm: (n+1)²·n items a table) would
need more.

` + ProgressHelp,
		Flags: slices.Concat([]cli.Flag{
			&cli.StringFlag{Name: "model", Value: "ccm", Usage: "`ccm`, ccm2 or dmvccm"},
			&cli.StringFlag{Name: "estimator", Value: "em", Usage: "`em`, da or sda"},
			&cli.StringFlag{Name: "init", Value: "split", Usage: "the CCM's start: `split` (uniform split points), tree (uniform trees) or bracket"},
			&cli.IntFlag{Name: "max-iter", Value: 100, Usage: "`N` E-steps at most (per stage under da and sda); 0: the start model (--init's M-step; dmvccm: and --dmv-init's), for the shell loop"},
			&cli.Float64Flag{Name: "tol", DefaultText: "1e-6; 1e-5 for dmvccm; under --stop bits 2^-20", Usage: "stop (end a stage) when the objective changes by less than `T`, relatively (under --stop bits, in bits per token); 0 runs to --max-iter"},
			stopFlag("relative"),
			&cli.BoolFlag{Name: "mbr", Usage: "decode the maximum expected-recall bracketing instead of the Viterbi one (ccm, ccm2)"},
			&cli.IntFlag{Name: "classes", Value: 2, Usage: "ccm: `K` classes, the distituent label one of them (Klein §5.3.2; 2 is the CCM); em only"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed `S` of the classes' start (--classes)"},
			&cli.StringFlag{Name: "dump-classes", TakesFile: true, Usage: "write each class's 10 most frequent yields (expected counts) to `FILE` (--classes)"},
			&cli.StringFlag{Name: "test", TakesFile: true, Usage: "decode the sentences of `FILE` instead of the training sentences"},
			program.WorkersFlag(), program.MaxMemoryFlag(),
			&cli.StringFlag{Name: "log", Usage: "write one JSON line per E-step to `FILE`"},
			&cli.StringFlag{Name: "save-model", Usage: "write the trained model to `FILE`, for estep -m, decode -m"},
			&cli.IntFlag{Name: "save-every", Usage: "save the model every `K` iterations (iter-NNNN.jsonl in --save-dir)"},
			&cli.StringFlag{Name: "save-dir", Value: ".", Usage: "the `DIR` --save-every writes to (made if missing)"},
			program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		}, program.InCategory("Annealing (--estimator da, sda)",
			&cli.Float64Flag{Name: "beta0", Value: 0.01, Usage: "`β₀` of the first stage of da and sda, in (0, 1]"},
			&cli.Float64Flag{Name: "gamma", Value: 1.5, Usage: "β ← min(1, `γ`·β) after each stage; γ > 1"},
			&cli.StringFlag{Name: "skew", DefaultText: "split; dmvccm: start", Usage: "sda's skew `SKEW`: split (the random-split trees, Smith & Eisner §6) or start (grind's: the start model's probabilities)"},
		), program.InCategory("The DMV half (--model dmvccm)",
			&cli.StringFlag{Name: "dmv-init", Value: dmv.InitKM, Usage: "the DMV's initializer `NAME` under dmvccm (as train-em's --init)"},
			&cli.BoolFlag{Name: "head-choice", Usage: "dmvccm: multiply Klein's head-choice factor 1/(j−i) into each sealed span"},
			&cli.BoolFlag{Name: "right-first", Usage: "dmvccm: keep the DMV's order (right dependents before left ones: one bracketing per tree); its model's family is dmvccm-right-first"},
			&cli.StringFlag{Name: "order", Value: "released", Usage: "dmvccm: the heads' order `ORDER`: released (every interleaving of sides), right-first (as --right-first), mixture (Klein's DMV: each head right-first or left-first, ½ each) or footnote8 (Klein's footnote 8: before each dependent stop entirely, else choose a side); the model's family is dmvccm, dmvccm-right-first, dmvccm-mixture or dmvccm-footnote8"},
			&cli.BoolFlag{Name: "flat-ccm", Usage: "dmvccm: hold the CCM flat (φ ≡ 1): the DMV half alone under --order; in-process EM only"},
		), RunDirFlags()),
		Action: trainCCM,
	}
}

func trainCCM(c *cli.Context) error {
	if err := program.CheckWorkers(c); err != nil {
		return err
	}
	limit, err := program.MaxMemory(c)
	if err != nil {
		return err
	}
	model := c.String("model")
	if model != "ccm" && model != "ccm2" && model != "dmvccm" {
		return program.Usagef("--model must be ccm, ccm2 or dmvccm, not %q", model)
	}
	est, err := ccm.ParseEstimator(c.String("estimator"))
	if err != nil {
		return program.Usagef("%v", err)
	}
	stop, err := stopRule(c)
	if err != nil {
		return err
	}
	betas, err := schedule.DA(c.Float64("beta0"), c.Float64("gamma"))
	if err != nil {
		return program.Usagef("%v", err)
	}
	start, err := ccm.ParseStart(c.String("init"))
	if err != nil {
		return program.Usagef("%v", err)
	}
	skew := ccm.SkewSplit
	if model == "dmvccm" {
		skew = ccm.SkewStart
	}
	if c.IsSet("skew") {
		if est != ccm.SDA {
			return program.Usagef("--skew is sda's (--estimator sda)")
		}
		if skew, err = ccm.ParseSkew(c.String("skew")); err != nil {
			return program.Usagef("--skew: %v", err)
		}
		if model == "dmvccm" && skew != ccm.SkewStart {
			return program.Usagef("--skew %s is the CCM's (a distribution over its bracketings): dmvccm's sda skews toward its start pair (--skew start)", skew)
		}
	}
	if c.IsSet("classes") || c.IsSet("seed") || c.IsSet("dump-classes") {
		if c.Int("classes") < 2 {
			return program.Usagef("--classes must be at least 2 (the distituent label and a constituent class), not %d", c.Int("classes"))
		}
		if model != "ccm" || est != ccm.EM {
			return program.Usagef("--classes, --seed and --dump-classes are for --model ccm with --estimator em")
		}
	}
	if c.Int("max-iter") < 0 {
		return program.Usagef("--max-iter must be at least 0 (0: the start model itself)")
	}
	if err := program.First(program.CheckFloat(c, "tol", program.NonNegative, "a finite number ≥ 0"), program.CheckInt(c, "save-every", 0)); err != nil {
		return err
	}
	if model == "dmvccm" {
		setUsedTol(c, dmvccm.DefaultTol)
	} else {
		setUsedTol(c, ccm.DefaultTol)
	}
	if model == "dmvccm" {
		if c.Bool("mbr") {
			return program.Usagef("--mbr is for ccm and ccm2")
		}
		if !validInit(c.String("dmv-init")) {
			return program.Usagef("unknown --dmv-init %q", c.String("dmv-init"))
		}
		if c.IsSet("save-model") && c.Bool("head-choice") {
			return program.Usagef("--save-model and --head-choice: a dmvccm model file does not carry the head-choice factor")
		}
	} else if c.IsSet("dmv-init") || c.IsSet("head-choice") || c.IsSet("right-first") {
		return program.Usagef("--dmv-init, --head-choice and --right-first are for --model dmvccm")
	} else if c.IsSet("order") || c.IsSet("flat-ccm") {
		return program.Usagef("--order and --flat-ccm are for --model dmvccm")
	}
	order, ok := dmvccm.ParseOrder(c.String("order"))
	if !ok {
		return program.Usagef("--order must be released, right-first, mixture or footnote8, not %q", c.String("order"))
	}
	if c.Bool("right-first") && c.IsSet("order") && order != dmvccm.RightFirstOrder {
		return program.Usagef("--right-first is --order right-first, not %s", order)
	}
	if c.Bool("flat-ccm") {
		for _, f := range []string{"save-model", "save-every", "run-dir", "resume"} {
			if c.IsSet(f) {
				return program.Usagef("--%s: --flat-ccm trains in-process only (no model file)", f)
			}
		}
		if est != ccm.EM {
			return program.Usagef("--flat-ccm runs EM only, not --estimator %s", est)
		}
	}
	if model == "dmvccm" && c.Bool("head-choice") && (c.IsSet("run-dir") || c.IsSet("resume") || c.Int("save-every") > 0) {
		return program.Usagef("--run-dir, --resume, --save-every and --head-choice: a dmvccm model file does not carry the head-choice factor")
	}
	if c.Int("save-every") > 0 {
		if err := checkSaveDir(c, c.String("save-dir")); err != nil {
			return err
		}
	}
	// The run directory stores a checkpoint in its family's form: run is
	// whichever of rd and rdPair there is (nil without --run-dir).
	var (
		rd     *trainerRun[ccm.Snapshot]
		rdPair *trainerRun[dmvccm.Snapshot]
		run    runFiles
	)
	if model == "dmvccm" {
		if rdPair, err = openTrainerRun[dmvccm.Snapshot](c); rdPair != nil {
			run = rdPair
		}
	} else if rd, err = openTrainerRun[ccm.Snapshot](c); rd != nil {
		run = rd
	}
	if err != nil {
		return err
	}
	if run != nil {
		defer run.close()
	}
	logOut, modelOut, err := trainerOutputs(c)
	if err != nil {
		return err
	}
	src := program.Source(c)
	train, err := readTagged(src)
	if err != nil {
		return err
	}
	out := train
	if c.IsSet("test") {
		tsrc := pipeline.Source{Names: []string{c.String("test")}, Bad: src.Bad}
		if out, err = readTagged(tsrc); err != nil {
			return err
		}
	}
	if err := checkCCMMemory(c, model, train, out, limit); err != nil {
		return err
	}
	var logw io.Writer
	if logOut != nil {
		logw = logOut
	}
	began := time.Now()
	if run != nil {
		logw, began = run.logFile(), run.origin()
	}
	// The CCM's objectives are not cross-entropies (README, Conventions).
	plan := progress.Plan{MaxIter: c.Int("max-iter"), NoCrossEntropy: true}
	if est != ccm.EM {
		plan.Stages = len(betas)
	}
	prog := newProgress(c, plan)
	var logErr error
	report := func(it format.Iteration) {
		it.Seconds = time.Since(began).Seconds()
		prog.Iteration(it)
		if logw != nil && logErr == nil {
			logErr = pipeline.WriteRecord(logw, it)
		}
	}
	// saved is the model file, made before decoding --test (which interns
	// the test sentences' yields and contexts in the model's symbols).
	var saved *bytes.Buffer
	if model == "dmvccm" {
		saved, err = trainDMVCCM(c, est, stop, train, out, start, report, rdPair)
	} else {
		saved, err = trainCCMAlone(c, model, est, skew, stop, start, train, out, report, rd)
	}
	prog.Done()
	if err == nil {
		err = logErr
	}
	if err != nil {
		return err
	}
	if run != nil {
		if err := run.saveModel(func(w io.Writer) error {
			_, err := w.Write(saved.Bytes())
			return err
		}); err != nil {
			return err
		}
	}
	if modelOut != nil {
		if _, err := modelOut.Write(saved.Bytes()); err != nil {
			return err
		}
	}
	return program.WriteOutput(c, src, func(w io.Writer) error {
		for _, s := range out {
			if err := pipeline.WriteRecord(w, s); err != nil {
				return err
			}
		}
		return nil
	})
}

// runFiles is a trainerRun of either snapshot type.
type runFiles interface {
	logFile() io.Writer
	origin() time.Time
	saveModel(write func(io.Writer) error) error
	close() error
}

func (r *trainerRun[S]) logFile() io.Writer { return r.log }

// outName names the sentences being decoded, for errors.
func outName(c *cli.Context) string {
	if c.IsSet("test") {
		return c.String("test")
	}
	return pipeline.DescribeInputs(c.Args().Slice())
}

func validInit(name string) bool {
	for _, n := range dmv.Initializers {
		if n == name {
			return true
		}
	}
	return false
}

// readTagged reads a corpus the CCM can read: no tag is its boundary
// tag (ccm.CheckSentence).
func readTagged(src pipeline.Source) ([]*format.Sentence, error) {
	return pipeline.ReadSentencesChecked(src, ccm.CheckSentence)
}

func tagsOf(sents []*format.Sentence) [][]string {
	tags := make([][]string, len(sents))
	for i, s := range sents {
		tags[i] = s.Tags
	}
	return tags
}

func trainCCMAlone(c *cli.Context, model string, est ccm.Estimator, skew ccm.Skew, stop emloop.Rule, start ccm.Start, train, out []*format.Sentence, report func(format.Iteration), rd *trainerRun[ccm.Snapshot]) (*bytes.Buffer, error) {
	corpus, err := ccm.NewCorpus(tagsOf(train), nil)
	if err != nil {
		return nil, err
	}
	v := ccm.Model1
	if model == "ccm2" {
		v = ccm.Model2
	}
	fit := ccm.Train
	if c.Int("max-iter") == 0 { // the start: the M-step of --init's counts
		fit = func(corpus *ccm.Corpus, opts ccm.Options) (*ccm.Model, int, error) {
			start, _, err := ccm.NewLoop(corpus, opts)
			return start, 0, err
		}
	}
	opts := ccm.Options{
		Variant: v, Start: start, Estimator: est, Skew: skew, Beta0: c.Float64("beta0"), Gamma: c.Float64("gamma"),
		MaxIter: c.Int("max-iter"), Tol: givenTol(c), Stop: stop, Workers: c.Int("workers"),
		Classes: classesOf(c), Seed: c.Uint64("seed"),
		Observe: emloop.Every(c.Int("save-every"), func(it format.Iteration, _ *ccm.Model) error {
			report(it)
			return nil
		}, func(iter int, m *ccm.Model) error {
			return pipeline.WriteFile(savedModelPath(c.String("save-dir"), iter), nil, func(o *pipeline.Output) error { return ccm.WriteModel(o, m) })
		}),
	}
	if rd != nil {
		opts.Checkpoint = func(st rundir.State[*ccm.Model]) error {
			return rd.checkpoint(rundir.Map(st, (*ccm.Model).Snapshot))
		}
		if r := rd.resumed; r != nil {
			m, err := r.Model.Model(corpus.Sym)
			if err == nil && (m.Variant != v || max(len(m.Classes), 1) != max(classesOf(c)-1, 1)) {
				err = fmt.Errorf("a %s checkpoint of %d constituent classes, not of --model %s --classes %d", m.Family(), max(len(m.Classes), 1), model, max(classesOf(c), 2))
			}
			if err != nil {
				return nil, rundir.Bad(rd.dir, err)
			}
			opts.Resume = &rundir.State[*ccm.Model]{Stage: r.Stage, StageIters: r.StageIters, Before: r.Before, Prev: r.Prev, Model: m}
		}
	}
	m, _, err := fit(corpus, opts)
	if err != nil {
		return nil, err
	}
	var saved *bytes.Buffer
	if c.IsSet("save-model") || rd != nil {
		saved = new(bytes.Buffer)
		if err := ccm.WriteModel(saved, m); err != nil {
			return nil, err
		}
	}
	if c.IsSet("dump-classes") {
		if err := dumpClasses(c.String("dump-classes"), m, corpus, c.Int("workers")); err != nil {
			return nil, err
		}
	}
	dec := ccm.Viterbi
	if c.Bool("mbr") {
		dec = ccm.MBR
	}
	oc := corpus
	if c.IsSet("test") {
		if oc, err = ccm.NewCorpus(tagsOf(out), corpus.Sym); err != nil {
			return nil, err
		}
	}
	fellBack := 0
	for k, s := range out {
		var fell bool
		if s.PredSpans, _, fell = m.Parse(oc, k, dec); fell {
			fellBack++
		}
	}
	noteFellBack(c, fellBack)
	return saved, nil
}

// classesOf is ccm.Options' Classes: --classes when given, else 0 (the
// CCM's own code).
func classesOf(c *cli.Context) int {
	if c.IsSet("classes") {
		return c.Int("classes")
	}
	return 0
}

// dumpClasses writes each class's ten most frequent yields of two tags or
// more (expected counts under m over the training sentences; class 0 the
// distituent label) to path, one JSON line each.
func dumpClasses(path string, m *ccm.Model, corpus *ccm.Corpus, workers int) error {
	members := ccm.TopYields(m.EStep(corpus, workers), corpus.Sym, 10)
	return pipeline.WriteFile(path, nil, func(o *pipeline.Output) error {
		for _, mb := range members {
			if err := pipeline.WriteRecord(o, mb); err != nil {
				return err
			}
		}
		return nil
	})
}

// noteFellBack says on stderr how many sentences of probability 0 the
// decoder's fallback parsed (the DMV's rule).
func noteFellBack(c *cli.Context, n int) {
	if n > 0 && !c.Bool("quiet") {
		fmt.Fprintf(c.App.ErrWriter, "%s: %s: %d sentences of probability 0 under the model parsed by the fallback (every impossible event at 1e-300)\n", c.App.Name, outName(c), n)
	}
}

// checkCCMMemory refuses, before the corpora are interned, a run whose
// memory (its sentences' spans, yields and charts; for dmvccm the
// product's charts and the DMV's tables) would be over limit bytes.
func checkCCMMemory(c *cli.Context, model string, train, out []*format.Sentence, limit int64) error {
	workers := pipeline.Workers(c.Int("workers"))
	job := ccm.Job{Lengths: ccm.LengthsOf(tagsOf(train)), TagBytes: ccm.TagBytes(tagsOf(train)), Workers: workers, Train: true,
		Text: c.IsSet("save-model") || c.IsSet("run-dir") || c.IsSet("resume"), Classes: max(classesOf(c)-1, 0)}
	var need int64
	if model == "dmvccm" {
		tags := map[string]bool{}
		for _, s := range slices.Concat(train, out) {
			for _, t := range s.Tags {
				tags[t] = true
			}
		}
		need = dmvccm.Job{CCM: job, Tags: len(tags), Orders: orderTables(c)}.Bytes()
	} else {
		need = job.Bytes()
	}
	if c.IsSet("test") { // decoded after training, over the training symbols
		test := ccm.Job{Lengths: ccm.LengthsOf(tagsOf(out)), Workers: 1, Decode: true}
		if model == "dmvccm" {
			need = memory.Add(need, dmvccm.Job{CCM: test, Orders: orderTables(c)}.Bytes())
		} else {
			need = memory.Add(need, test.Bytes())
		}
	}
	sents := train
	if c.IsSet("test") {
		sents = slices.Concat(train, out)
	}
	longest := 0
	for _, s := range sents {
		longest = max(longest, len(s.Tags))
	}
	return memory.Check(need, limit, func() string {
		return fmt.Sprintf("%s: a %s of %d sentences, the longest %d words,", outName(c), model, len(sents), longest)
	}, "leave long sentences out (filterlen)")
}

func trainDMVCCM(c *cli.Context, est ccm.Estimator, stop emloop.Rule, train, out []*format.Sentence, start ccm.Start, report func(format.Iteration), rd *trainerRun[dmvccm.Snapshot]) (*bytes.Buffer, error) {
	// With gold heads on every training sentence, the log carries the
	// attachment accuracy (root counted) of each E-step's Viterbi parses.
	gold := c.String("log") != "" || rd != nil
	for _, s := range train {
		gold = gold && len(s.Heads) == len(s.Tags)
	}
	observe := func(it format.Iteration, m *dmvccm.Model) error {
		if gold {
			dir, undir, total := 0, 0, 0
			for k, s := range train {
				for i, h := range m.Parse(k).Heads {
					g := s.Heads[i]
					switch {
					case h == g:
						dir++
						undir++
					case h > 0 && s.Heads[h-1] == i+1:
						undir++
					}
					total++
				}
			}
			d, u := float64(dir)/float64(total), float64(undir)/float64(total)
			it.Directed, it.Undirected = &d, &u
		}
		report(it)
		return nil
	}
	opts := dmvccm.Options{
		DMVInit: c.String("dmv-init"), CCMStart: start, HeadChoice: c.Bool("head-choice"), RightFirst: c.Bool("right-first"),
		Order: dmvccmOrder(c), FlatCCM: c.Bool("flat-ccm"),
		Estimator: est, Beta0: c.Float64("beta0"), Gamma: c.Float64("gamma"),
		MaxIter: c.Int("max-iter"), Tol: givenTol(c), Stop: stop, Workers: c.Int("workers"),
		Observe: emloop.Every(c.Int("save-every"), observe, func(iter int, m *dmvccm.Model) error {
			return pipeline.WriteFile(savedModelPath(c.String("save-dir"), iter), nil, func(o *pipeline.Output) error { return dmvccm.WriteModel(o, m) })
		}),
	}
	if rd != nil {
		opts.Checkpoint = func(st rundir.State[*dmvccm.Model]) error {
			return rd.checkpoint(rundir.Map(st, (*dmvccm.Model).Snapshot))
		}
	}
	m, loop, err := dmvccm.NewLoop(train, opts)
	if err != nil {
		return nil, err
	}
	if rd != nil && rd.resumed != nil {
		r := rd.resumed
		from, err := m.FromSnapshot(r.Model)
		if err != nil {
			return nil, rundir.Bad(rd.dir, err)
		}
		loop.Resume = &rundir.State[*dmvccm.Model]{Stage: r.Stage, StageIters: r.StageIters, Before: r.Before, Prev: r.Prev, Model: from}
	}
	if c.Int("max-iter") > 0 { // 0: the start, each half's initial model
		res, err := loop.Run(m)
		if err != nil {
			return nil, err
		}
		m = res.Model
	}
	var saved *bytes.Buffer
	if c.IsSet("save-model") || rd != nil {
		saved = new(bytes.Buffer)
		if err := dmvccm.WriteModel(saved, m); err != nil {
			return nil, err
		}
	}
	parses, err := m.ParseAll(out)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", outName(c), err)
	}
	if unseen := parses.Unseen; len(unseen) > 0 && !c.Bool("quiet") {
		fmt.Fprintf(c.App.ErrWriter, "%s: %s: %d tags the DMV never saw backed off to its average tag: %s\n", c.App.Name, outName(c), len(unseen), strings.Join(unseen, " "))
	}
	noteFellBack(c, parses.FellBack)
	for k, s := range out {
		s.Pred, s.PredSpans = parses.Parses[k].Heads, parses.Parses[k].Spans
	}
	return saved, nil
}

// dmvccmOrder is --order's head order (right-first also by --right-first).
func dmvccmOrder(c *cli.Context) dmvccm.Order {
	o, _ := dmvccm.ParseOrder(c.String("order"))
	return o
}

// orderTables is the general program's number of open tables under
// --order and --flat-ccm (0: the product's own chart).
func orderTables(c *cli.Context) int {
	switch o := dmvccmOrder(c); {
	case o == dmvccm.Mixture:
		return 2
	case o == dmvccm.Footnote8 || c.Bool("flat-ccm"):
		return 1
	}
	return 0
}
