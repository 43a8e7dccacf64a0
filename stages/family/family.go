// Package family is what a model family (the DMV, the CCM, …) provides
// to the stages written once for all of them: estep, sumcounts, mstep
// and decode read the family from the header record that opens every
// model and count stream ({"ev":"header","family":"dmv",...}) and look it
// up in a Registry, so `estep -m ccm.jsonl` needs no flag. The record
// plumbing common to all families — finding the header, the checks on the
// merged counts (--expect-sentences, --expect-corpus) — lives here; what a
// family knows (its records, its chart, its M-step, its decoder) lives
// behind the interfaces.
package family

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/pr"
)

// Family is one model family.
type Family interface {
	// Name is the family of its headers ("dmv", "ccm", "ccm2").
	Name() string
	// EStep reads the model opts.Model and the sentences of src and
	// writes one count shard: the header, the counts, the stats record.
	// Counts are the same for any opts.Workers.
	EStep(src pipeline.Source, w io.Writer, opts EStepOptions) error
	// ReadCounts reads and adds the count shards of src (a shard cut
	// short, repeated or of another model is refused), refusing tables
	// that would need more than limit bytes (≤ 0: no limit).
	ReadCounts(src pipeline.Source, limit int64) (Counts, error)
	// Decode reads the model opts.Model and writes each sentence of src
	// with the family's prediction (dmv: "pred"; ccm: "pred_spans").
	Decode(src pipeline.Source, w io.Writer, opts DecodeOptions) (DecodeReport, error)
}

// Counts are the added count shards of one family in dense form.
type Counts interface {
	// Stats is the summed stats record.
	Stats() format.Stats
	// Corpus is the order-free sum of the shards' corpus hashes, Shards
	// how many were added.
	Corpus() string
	Shards() int
	// WriteCounts writes the total as one shard (sumcounts).
	WriteCounts(w io.Writer) error
	// WriteMStep writes the model of one M-step on the counts: add-λ
	// smoothing, or the family's own (a family without λ refuses λ > 0).
	WriteMStep(w io.Writer, lambda float64) error
}

// VBCounts are the counts of a family with a variational-Bayes M-step
// (the DMV's).
type VBCounts interface {
	// WriteVB writes the model of VB's M-step with a symmetric
	// Dirichlet(alpha) prior; given model, the file of the model the
	// counts' E-step ran with (checked by its hash), the model carries the
	// variational bound too.
	WriteVB(w io.Writer, alpha float64, model string) error
}

// EStepOptions choose the model and the kind of counts. A family refuses
// the options it has no meaning for.
type EStepOptions struct {
	Model string // model file; may be empty with Gold
	Hard  bool   // counts of each sentence's Viterbi structure
	// Ties chooses among a sentence's best trees under Hard (the DMV's;
	// "" is dmv.TiesLeft), Seed seeding dmv.TiesRandom's draws.
	Ties dmv.Ties
	Seed uint64
	Gold bool // counts of the gold structures
	// Family, with Gold and no Model, is the family whose gold counts
	// are made ("": the DMV's); Trigram makes an HMM's gold counts those
	// of a trigram HMM (with a Model, the model's order must be it).
	Family  string
	Trigram bool
	Workers int
	// Reweight, when not nil, re-weights the E-step for annealing: β
	// (every family: p^β·skew^(1−β)), and the DMV's Model L δ and Model
	// S segments. Skew is the file of skewed DA's λ₀.
	Reweight *dmv.Reweighting
	Skew     string
	// SplitSkew skews DA toward the random-split tree distribution
	// instead of a model (the CCM's, Smith & Eisner 2004 §6; a family
	// without it refuses it).
	SplitSkew bool
	// Bound, when on, restricts the DMV's E-step to the trees within
	// the left-corner depth bound (a family without one refuses it).
	Bound dmv.DepthBound
	// Warn, when not nil, hears about what the E-step had to back off or
	// leave out.
	Warn io.Writer
	// PR, when it asks for a constraint, projects the DMV's posterior
	// (posterior regularization, stages/pr); Dual, when not "", is the
	// file its dual variables are read from (when it exists) and written
	// back to, so that a shell loop's projections start where the last
	// one ended, as the trainer's do.
	PR   pr.Options
	Dual string
	// MaxMemory refuses, before allocating, a model or a pass whose
	// tables and charts would need more bytes (--max-memory; ≤ 0: no
	// limit).
	MaxMemory int64
}

// DecodeOptions of the decoders.
type DecodeOptions struct {
	Model     string
	MBR       bool // minimum Bayes risk instead of Viterbi
	Workers   int
	MaxMemory int64 // as EStepOptions'
	// Bound, when on, makes the DMV's tree the best within the
	// left-corner depth bound (a family without one refuses it).
	Bound dmv.DepthBound
}

// DecodeReport says what decoding met, for stderr.
type DecodeReport struct {
	Sentences int
	Unknown   int // tokens whose tag the model does not know (backed off)
	// UnknownTags are the distinct tags the model does not know, sorted.
	UnknownTags []string
	FellBack    int // sentences of probability 0 under the model
}

// Registry is the one list of families, looked up by header name. The
// first is the default: what a stream without a header is read as (its
// reader then says what is wrong with it).
type Registry []Family

// Lookup finds the family called name.
func (r Registry) Lookup(name string) (Family, error) {
	for _, f := range r {
		if f.Name() == name {
			return f, nil
		}
	}
	names := make([]string, len(r))
	for i, f := range r {
		names[i] = strconv.Quote(f.Name())
	}
	return nil, fmt.Errorf("a model or counts of family %q; grind knows %s", name, strings.Join(names, ", "))
}

// ForFile is the family named by the header of the model or counts in
// file path; the default family when the file does not begin with a
// readable header (its reader refuses the file, with file and line). A
// family grind does not know is an error.
func (r Registry) ForFile(path string) (Family, error) {
	f, err := r.NamedIn(path)
	if f == nil && err == nil {
		f = r[0]
	}
	return f, err
}

// NamedIn is the family the header of the file path names; nil when the
// file cannot be read or does not begin with a readable header (a
// family's reader then says what is wrong with it).
func (r Registry) NamedIn(path string) (Family, error) {
	if path == "" || path == "-" {
		return nil, nil
	}
	in, err := pipeline.Open(path, nil)
	if err != nil {
		return nil, nil
	}
	defer in.Close()
	return r.forFirstLine(in)
}

// HeaderFamily is the family the first line of the file path names when
// it is a header ({"ev":"header","family":...}), known to a Registry or
// not (a class model's); "" when the file cannot be read or does not
// begin with a header.
func HeaderFamily(path string) string {
	if path == "" || path == "-" {
		return ""
	}
	in, err := pipeline.Open(path, nil)
	if err != nil {
		return ""
	}
	defer in.Close()
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() {
		return ""
	}
	var h struct{ Ev, Family string }
	if format.Unmarshal(sc.Bytes(), &h) != nil || h.Ev != format.EvHeader {
		return ""
	}
	return h.Family
}

// ForSource is the family of the first header of src, and src to read
// from again: of stdin only what finding the first line consumed is kept
// and read again, so a long count stream is not held in memory.
func (r Registry) ForSource(src pipeline.Source) (Family, pipeline.Source, error) {
	if len(src.Names) == 0 || src.Names[0] == "-" || src.Names[0] == "" {
		if src.Stdin == nil {
			return r[0], src, nil
		}
		var seen bytes.Buffer
		in, err := pipeline.Open("-", io.TeeReader(src.Stdin, &seen))
		var f Family
		if err == nil {
			f, err = r.forFirstLine(in)
			in.Close()
		} else {
			err = nil // the family's reader reports it
		}
		if f == nil && err == nil {
			f = r[0]
		}
		src.Stdin = io.MultiReader(&seen, src.Stdin)
		return f, src, err
	}
	f, err := r.ForFile(src.Names[0])
	return f, src, err
}

// forFirstLine is the family the first line of in names (nil: none).
func (r Registry) forFirstLine(in *pipeline.Input) (Family, error) {
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() {
		return nil, nil
	}
	var e format.Event
	family := ""
	if err := e.UnmarshalJSON(sc.Bytes()); err == nil && e.Ev == format.EvHeader {
		family = e.Header.Family
	} else {
		// A header of a kind that is no family's (a class model's) is
		// named for what it is, not read as a DMV model.
		var h struct{ Ev, Family string }
		if format.Unmarshal(sc.Bytes(), &h) != nil || h.Ev != format.EvHeader || h.Family == "" {
			return nil, nil
		}
		if _, err := r.Lookup(h.Family); err == nil {
			return nil, nil // a family's header with a fault: its reader says which
		}
		family = h.Family
	}
	f, err := r.Lookup(family)
	if err != nil {
		return nil, fmt.Errorf("%s:1: %w", in.Name, err)
	}
	return f, nil
}

// MStepOptions of the M-step stage.
type MStepOptions struct {
	Lambda float64
	// VBAlpha, when > 0, makes the M-step variational Bayes's with this
	// Dirichlet hyperparameter (VBCounts); Model is then the model the
	// counts' E-step ran with, for the bound ("": no bound).
	VBAlpha float64
	Model   string
	// ChildBackoff, when > 0, interpolates the DMV's child distributions
	// with a back-off that forgets the head (BackoffCounts); other
	// families refuse it.
	ChildBackoff float64
	// LearnedBackoff is the prior of the M-step of counts whose model
	// learns its child back-off (LearnedBackoffCounts); zero: the default,
	// dmv.DefaultLearnedBackoff.
	LearnedBackoff *dmv.LearnedBackoff
	// ExpectSentences, when ≥ 0, is the number of sentences the counts
	// must come from: a lost shard is caught even when every shard that
	// arrived is whole.
	ExpectSentences int
	// ExpectCorpus, when not "", is a corpus file the counts must come
	// from exactly: a lost whole shard is caught.
	ExpectCorpus string
	// MaxMemory refuses counts whose tables would need more bytes (≤ 0:
	// no limit).
	MaxMemory int64
}

// BackoffCounts are counts whose M-step can back their child
// distributions off (the DMV's, dmv.MStepBackoff).
type BackoffCounts interface {
	WriteMStepBackoff(w io.Writer, lambda, backoff float64) error
}

// LearnedBackoffCounts are counts that may carry the choices of a learned
// child back-off (the DMV's, dmv.MStepLearnedBackoff).
type LearnedBackoffCounts interface {
	LearnsBackoff() bool
	WriteMStepLearned(w io.Writer, lambda float64, prior dmv.LearnedBackoff) error
}

// CheckCounts applies the checks common to every family's merged counts.
// corpusHash computes the hash of a corpus file's sentences.
func CheckCounts(c Counts, where string, expectSentences int, expectCorpus string, corpusHash func(string) (string, error)) error {
	if expectSentences >= 0 && c.Stats().Sentences != expectSentences {
		return fmt.Errorf("%s: counts come from %d sentences, expected %d: a shard is missing or repeated",
			where, c.Stats().Sentences, expectSentences)
	}
	if expectCorpus != "" {
		want, err := corpusHash(expectCorpus)
		if err != nil {
			return err
		}
		if c.Corpus() != want {
			return fmt.Errorf("%s: the counts (%d shards, corpus %s) do not come from the sentences of %s (corpus %s): a shard is missing, repeated or of another corpus", where, c.Shards(), c.Corpus(), expectCorpus, want)
		}
	}
	return nil
}
