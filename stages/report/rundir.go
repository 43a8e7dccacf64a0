package report

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/dmvccm"
	"github.com/grind-nlp/grind/stages/families"
	"github.com/grind-nlp/grind/stages/family"
	"github.com/grind-nlp/grind/stages/hmm"
	"github.com/grind-nlp/grind/stages/plotcurve"
	"github.com/grind-nlp/grind/stages/rundir"
	"github.com/grind-nlp/grind/stages/score"
	"github.com/grind-nlp/grind/stages/tageval"
)

// DirSpec names a run directory and the corpus its model is scored on.
type DirSpec struct {
	Name, Dir, Test string
	// TestHash is rundir.HashFile(Test), hashed once by the caller for
	// every run scored on it.
	TestHash string
	Workers  int // decoding goroutines (0: every core)
	// MaxMemory refuses a model and test corpus whose decoding would
	// need more bytes (the family's estimate; ≤ 0: no limit).
	MaxMemory int64
}

// Provenance is what a run directory says about where a run came from,
// and what the report did with it.
type Provenance struct {
	Dir        string
	Info       rundir.Record
	ModelHash  string // SHA-256 of model.jsonl
	Test       string // the corpus decoded
	TestHash   string
	UnknownTag int // test tokens whose tag the model does not know
}

// LoadDir reads a finished run directory: the learning curve from its
// iterations.jsonl, the run record from run.json, and the parses of
// spec.Test decoded in-process with its model.jsonl through the family
// registry: a DMV's heads (and DMV+CCM's) are scored as the page scores them, a CCM's
// brackets and an HMM's tags as score and score-tags do. A run without
// model.jsonl has not finished and is refused.
func LoadDir(spec DirSpec, bad *pipeline.BadRecords) (*Run, error) {
	dir := spec.Dir
	if fi, err := os.Stat(dir); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("run directory %s: %w", dir, err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a folder: a run directory is what a trainer's --run-dir writes", dir)
	}
	info, err := rundir.ReadRecord(dir)
	if errors.Is(err, rundir.ErrNoRecord) {
		return nil, fmt.Errorf("%s: no %s: not a run directory (a trainer's --run-dir writes one)", dir, rundir.RecordFile)
	}
	if err != nil {
		return nil, err
	}
	r := &Run{Name: spec.Name}
	logPath := filepath.Join(dir, rundir.Log)
	if _, err := os.Stat(logPath); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: no %s: the run directory has no iteration log", dir, rundir.Log)
	}
	if err := r.readLog(logPath, nil, bad); err != nil {
		return nil, err
	}

	model := filepath.Join(dir, rundir.Model)
	if _, err := os.Stat(model); errors.Is(err, fs.ErrNotExist) {
		return nil, noModel(dir, info, r.Log)
	}
	fam, err := families.All.ForFile(model) // its error names the file
	if err != nil {
		return nil, err
	}
	var read func(*pipeline.Input, *pipeline.BadRecords) error
	r.Family = fam.Name()
	switch fam.Name() {
	case dmv.Family, dmvccm.Family, dmvccm.FamilyRightFirst, dmvccm.FamilyMixture, dmvccm.FamilyFootnote8: // DMV+CCM's heads, as the DMV's
		read = r.readParsed
	case ccm.Family, ccm.Family2, ccm.FamilyClasses:
		r.Kind, read = Brackets, r.readBrackets
	case hmm.Family:
		r.Kind, read = Tags, r.readTags
	default:
		return nil, fmt.Errorf("%s: a model of family %q, which report does not score", model, fam.Name())
	}
	var parsed bytes.Buffer
	rep, err := fam.Decode(pipeline.Source{Names: []string{spec.Test}, Bad: bad}, &parsed,
		family.DecodeOptions{Model: model, Workers: spec.Workers, MaxMemory: spec.MaxMemory})
	if err != nil {
		return nil, err
	}
	// Decode writes one line per sentence it read, so the lines of its
	// output are the test corpus's and errors are named after it.
	r.Parsed = spec.Test
	if err := read(&pipeline.Input{Name: spec.Test, Reader: &parsed}, bad); err != nil {
		return nil, err
	}
	p := &Provenance{Dir: dir, Info: *info, Test: spec.Test, TestHash: spec.TestHash, UnknownTag: rep.Unknown}
	if p.ModelHash, err = rundir.HashFile(model); err != nil {
		return nil, err
	}
	r.From = p
	return r, nil
}

// noModel says why run directory dir has no model.jsonl: a Gibbs run
// keeps samples, not a model, and has none to decode with even when
// finished; any other run has not finished, and says the command that
// continues it (or that none can: it read stdin).
func noModel(dir string, info *rundir.Record, log *plotcurve.Series) error {
	resume := resumeHint(dir, info)
	if info.Program == "train-hmm" && info.Flags["estimator"] == "gibbs" {
		sweeps, _ := strconv.Atoi(info.Flags["max-iter"])
		done := 0
		if log != nil {
			done = len(log.Iterations)
		}
		unfinished := ""
		if done < sweeps {
			unfinished = fmt.Sprintf("; it has also not finished, %d of %d sweeps (%s)", done, sweeps, resume)
		}
		return fmt.Errorf("%s: a train-hmm --estimator gibbs run keeps samples, not a model: it has no %s to decode --test with (score its tagged output with score-tags)%s",
			dir, rundir.Model, unfinished)
	}
	return fmt.Errorf("%s: no %s: the run has not finished (%s); report scores finished runs only", dir, rundir.Model, resume)
}

// resumeHint is how the unfinished run of dir continues: its program's
// --resume DIR alone, which takes the rest from run.json (an older
// grind's record names its inputs relative to the folder the run was
// started in).
func resumeHint(dir string, info *rundir.Record) string {
	if info.NotResumable != "" {
		return "it cannot be resumed: " + info.NotResumable
	}
	hint := "continue it with " + shellQuote([]string{info.Program, "--resume", dir})
	if info.Old() {
		hint += ", from the folder it was started in"
	}
	return hint
}

// readBrackets scores the brackets of a constituent model's parses
// (pred_spans) against the gold trees, as score does.
func (r *Run) readBrackets(in *pipeline.Input, bad *pipeline.BadRecords) error {
	var t score.BracketTally
	a := score.NewAnalyzer()
	err := pipeline.EachRecordIn(in, bad, func(s *format.Sentence, _ *pipeline.Lines) error {
		if s.Tree == "" {
			return pipeline.BadRecord(errors.New(`sentence has no gold "tree" to score brackets against`))
		}
		gold, n, err := score.GoldBrackets(s.Tree)
		if err != nil {
			return pipeline.BadRecord(fmt.Errorf("tree: %w", err))
		}
		if n != s.Len() {
			return pipeline.BadRecord(fmt.Errorf("tree has %d tokens but the sentence %d", n, s.Len()))
		}
		if s.PredSpans == nil && n > 1 {
			return pipeline.BadRecord(errors.New(`sentence has no "pred_spans" to score`))
		}
		t.Add(gold, s.PredSpans, n)
		if err := a.AddBrackets(s.Tags, s.Tree, s.PredSpans); err != nil {
			return pipeline.BadRecord(err)
		}
		r.Scored, r.Tokens = r.Scored+1, r.Tokens+n
		return nil
	})
	if err != nil {
		return err
	}
	if t.Sentences == 0 {
		return fmt.Errorf("%s: no sentence of two or more words to score brackets on", in.Name)
	}
	b := t.Report("pred_spans")
	r.Brackets = &b
	r.Analyses = &score.Report{}
	a.Fill(r.Analyses, 0)
	return nil
}

// readTags scores a tagger's induced tags against the gold ones, as
// score-tags does.
func (r *Run) readTags(in *pipeline.Input, bad *pipeline.BadRecords) error {
	var sents []*format.Sentence
	err := pipeline.EachRecordIn(in, bad, func(s *format.Sentence, _ *pipeline.Lines) error {
		if len(s.GoldTags) != s.Len() || len(s.Tags) != s.Len() {
			return pipeline.BadRecord(errors.New("sentence has no gold tags to score the induced tags against"))
		}
		sents = append(sents, s)
		return nil
	})
	if err != nil {
		return err
	}
	if len(sents) == 0 {
		return fmt.Errorf("%s: no sentences to score", in.Name)
	}
	// Every analysis, as score-tags --analysis all computes them.
	t, err := tageval.Score(sents, tageval.Options{Analyses: tageval.Analyses, AllAnalyses: true, Words: tageval.DefaultWords})
	if err != nil {
		return fmt.Errorf("%s: %w", in.Name, err)
	}
	if t.Tokens == 0 {
		return fmt.Errorf("%s: no token to score", in.Name)
	}
	r.TagScores, r.Scored, r.Tokens = &t, len(sents), t.Tokens
	return nil
}

// lineAt is the 1-based line of byte offset off in b.
func lineAt(b []byte, off int64) int {
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	return 1 + bytes.Count(b[:off], []byte{'\n'})
}
