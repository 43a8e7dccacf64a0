// Package estep is the E-step as a stage: sentences and a model in,
// expected counts and the closing stats record out. Counts of shards add
// up (sumcounts) to the counts of the whole, so the E-step can be spread
// over processes or machines.
package estep

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/ce"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/eventio"
	"github.com/grind-nlp/grind/stages/family"
	"github.com/grind-nlp/grind/stages/pr"
)

// Options choose the model and the kind of counts (family.EStepOptions:
// this package is the DMV family's E-step).
type Options = family.EStepOptions

// estepWorkers are the charts of an E-step (dmv.EStepper: at most one a
// chunk).
func estepWorkers(workers int) int { return min(pipeline.Workers(workers), 64) }

// estepTables is how many tables of the model's size an E-step holds: the
// model, its extension and potentials, the counts, and the chunks'
// counts folded in order.
func estepTables(workers int) int { return 4 + 2*estepWorkers(workers) }

// Run reads the sentences of src and writes their counts under the model.
func Run(src pipeline.Source, w io.Writer, opts Options) error {
	if opts.Hard && opts.Gold {
		return fmt.Errorf("--hard and --gold exclude each other")
	}
	if opts.Model == "" && !opts.Gold {
		return fmt.Errorf("a model is needed (-m MODEL); only --gold counts go without")
	}
	if opts.SplitSkew {
		return fmt.Errorf("--split-skew is the CCM's (its bracketings' random-split distribution): a DMV model takes --skew MODEL")
	}
	if err := checkBound(opts); err != nil {
		return err
	}
	// The models and the corpus are read side by side (one step of a
	// shell loop is mostly reading), and the model hashed meanwhile; a bad
	// model is reported before a bad corpus, and a bad skew model after
	// it, as if read in that order. The skew model is read once: its hash
	// marks the counts, its weights the E-step.
	var model, skew *dmv.Table
	var modelErr, skewErr error
	modelHash := eventio.ModelNone
	readModels := func() {
		if opts.Skew != "" {
			skew, skewErr = dmv.ReadModel(opts.Skew)
		}
		if opts.Model == "" {
			return
		}
		m, err := dmv.ReadModel(opts.Model)
		if err == nil {
			if _, err = m.Potentials(); err != nil {
				err = fmt.Errorf("%s: %w", opts.Model, err)
			}
		}
		model, modelErr = m, err
		if modelErr == nil && skewErr == nil {
			modelHash = ModelHash(model, opts.Reweight, skew, opts.Bound)
		}
	}
	in, err := readInput(src, opts.Gold, opts.Workers, readModels)
	if modelErr != nil {
		return modelErr
	}
	if err != nil {
		return err
	}
	if skewErr != nil {
		return skewErr
	}
	if skew != nil && model != nil && skew.Params.V != model.Params.V {
		return fmt.Errorf("%s: the skew model has %s, the model (%s) %s: skewed DA mixes two models of the same valences", opts.Skew, skew.Params.V, opts.Model, model.Params.V)
	}
	lattices := in.lattices
	for i, l := range lattices {
		if l.TaggedWords() {
			return fmt.Errorf("%s: lattice %d (%s) is of tagged words (nbhd --spelling), which Model U's E-step with spelling features counts, not the DMV's", pipeline.DescribeInputs(src.Names), i+1, l.ID)
		}
		if l.Words != nil {
			return fmt.Errorf("%s: lattice %d (%s) is over words (nbhd --words), which a log-linear HMM's E-step counts (a model of ce-step --states), not the DMV's", pipeline.DescribeInputs(src.Names), i+1, l.ID)
		}
	}
	var tags *dmv.TagSet
	var weights *dmv.Params
	if model != nil {
		// Shards whose ties were broken differently do not mix either.
		if opts.Ties != "" && opts.Ties != dmv.TiesLeft {
			modelHash = eventio.HashStrings(modelHash, fmt.Sprintf("ties=%s seed=%d", opts.Ties, opts.Seed))
		}
		// Tags the model has not seen back off to its average tag.
		names := in.corpus.Names()
		if lattices != nil {
			var seqs [][]string
			for _, l := range lattices {
				seqs = append(seqs, l.Tags, latticeTags(l))
			}
			names = dmv.CorpusTags(seqs)
		}
		if err := dmv.CheckMemory(model.Params.V, opts.Bound, model.Tags.Len()+len(names), in.corpus.MaxLen(), estepWorkers(opts.Workers), estepTables(opts.Workers), opts.MaxMemory); err != nil {
			return fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
		}
		ts, p, unseen, err := model.Extend(names)
		if err != nil {
			return fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
		}
		if len(unseen) > 0 && opts.Warn != nil {
			fmt.Fprintf(opts.Warn, "estep: %d tags unknown to the model backed off to its average tag: %s\n", len(unseen), strings.Join(unseen, " "))
		}
		tags = ts
		if weights, err = (&dmv.Table{Tags: ts, Params: p, Unit: model.Unit}).Potentials(); err != nil {
			return err
		}
	}
	if lattices != nil {
		if weights != nil {
			if err := dmv.RefuseValence(weights.V, "contrastive estimation (lattices)"); err != nil {
				return fmt.Errorf("%s: %w", opts.Model, err)
			}
		}
		return latticeCounts(src, w, opts, lattices, tags, weights, modelHash)
	}
	if opts.Gold && in.noGold > 0 {
		return fmt.Errorf("%s: sentence %d (%s) has no gold heads", pipeline.DescribeInputs(src.Names), in.noGold, in.noGoldID)
	}
	if in.addErr != nil {
		return fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), in.addErr)
	}
	if model == nil { // gold counts: the corpus's tags
		if err := dmv.CheckMemory(dmv.DMVValence, opts.Bound, len(in.corpus.Names()), in.corpus.MaxLen(), estepWorkers(opts.Workers), estepTables(opts.Workers), opts.MaxMemory); err != nil {
			return fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
		}
	}
	corpus, err := in.corpus.Finish(tags)
	if err != nil {
		return fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
	}
	if opts.Gold {
		multi := corpus.SingleRootGold()
		if multi > 0 && opts.Warn != nil {
			fmt.Fprintf(opts.Warn, "estep: %d gold trees of more than one root: each counted with its leftmost root as the root and the other roots as its dependents\n", multi)
		}
	}
	if weights == nil { // gold counts without a model: the log-likelihood is left out
		weights = dmv.NewParams(corpus.Tags.Len())
		weights.Fill(1)
	}
	r, err := reweighting(opts, skew, corpus.Tags)
	if err != nil {
		return err
	}
	if r.Segmented {
		if err := dmv.RefuseValence(weights.V, "Model S (--seg-beta)"); err != nil {
			return fmt.Errorf("%s: %w", opts.Model, err)
		}
	}
	corpusHash := eventio.CorpusSum(in.hash)
	eOpts := r.EStep(dmv.EStepOptions{Hard: opts.Hard, Ties: opts.Ties, Seed: opts.Seed, Gold: opts.Gold, Workers: opts.Workers, Bound: opts.Bound})
	var res dmv.EStepResult
	var proj *pr.Projector
	if opts.PR.On() {
		if res, proj, err = projectedEStep(corpus, corpusHash, r.Weights(weights), eOpts, opts); err != nil {
			return fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
		}
		modelHash = eventio.HashStrings(modelHash, opts.PR.Describe())
	} else {
		res = dmv.NewEStepper(corpus).Run(r.Weights(weights), eOpts)
	}
	if res.Err != nil {
		return res.Err
	}
	if res.Unusable > 0 && res.Unusable == corpus.Len() {
		return fmt.Errorf("%s: every sentence left out: their weights span more than floating point can hold (a large positive --delta?)", pipeline.DescribeInputs(src.Names))
	}
	if res.Unusable > 0 && opts.Warn != nil {
		fmt.Fprintf(opts.Warn, "estep: %d sentences left out: their weights span more than floating point can hold\n", res.Unusable)
	}
	stats := &format.Stats{Sentences: corpus.Len(), Tokens: corpus.Tokens, Loglik: res.LogLik, LeftOut: res.Unusable}
	if err := dmv.WriteCounts(w, corpus.Tags, res.Counts, modelHash, corpusHash, stats); err != nil {
		return err
	}
	if proj != nil && opts.Dual != "" { // once the counts are out
		return pr.WriteState(opts.Dual, proj.State(corpusHash))
	}
	return nil
}

// ModelHash is the model hash in the header of an E-step's counts under
// model (nil r: no re-weighting; nil skew: none): the model's, and the
// E-step's re-weighting when there is one — shards of different β, δ,
// segment weights, skew models or depth bounds do not mix.
func ModelHash(model *dmv.Table, r *dmv.Reweighting, skew *dmv.Table, bound dmv.DepthBound) string {
	h := model.Hash()
	if r != nil && !r.IsPlain() || skew != nil || bound.On() {
		rw, skewHash := dmv.Plain(), ""
		if r != nil {
			rw = *r
		}
		if skew != nil {
			skewHash = skew.Hash()
		}
		rs := fmt.Sprintf("beta=%v delta=%v seg=%v/%v", rw.Beta, rw.Delta, rw.Segmented, rw.SegBeta)
		if bound.On() {
			rs += " " + bound.String()
		}
		h = eventio.HashStrings(h, rs, skewHash)
	}
	return h
}

// projectedEStep is posterior regularization's E-step (stages/pr) over
// the whole corpus, its dual started from opts.Dual when that file
// exists; LogLik is the PR objective, what the stats record then holds.
func projectedEStep(corpus *dmv.Corpus, corpusHash string, w *dmv.Params, eOpts dmv.EStepOptions, opts Options) (dmv.EStepResult, *pr.Projector, error) {
	if opts.Gold || opts.Hard {
		return dmv.EStepResult{}, nil, errors.New("posterior regularization (--rules, --sparsity) projects the posterior over trees: not with --hard or --gold")
	}
	held := dmv.MemoryBytes(w.V, opts.Bound, corpus.Tags.Len(), corpus.MaxLen, estepWorkers(opts.Workers), estepTables(opts.Workers))
	if err := pr.CheckMemory(corpus, opts.PR, held, opts.MaxMemory); err != nil {
		return dmv.EStepResult{}, nil, err
	}
	proj, err := pr.New(corpus, opts.PR)
	if err != nil {
		return dmv.EStepResult{}, nil, err
	}
	if opts.Dual != "" {
		if _, statErr := os.Stat(opts.Dual); statErr == nil {
			state, err := pr.ReadState(opts.Dual)
			if err != nil {
				return dmv.EStepResult{}, nil, err
			}
			if err := proj.Restore(state, corpusHash, opts.Dual); err != nil {
				return dmv.EStepResult{}, nil, err
			}
		}
	}
	res, err := proj.EStep(dmv.NewEStepper(corpus), w, eOpts)
	if err != nil {
		return dmv.EStepResult{}, nil, err
	}
	res.EStepResult.LogLik = res.Value
	return res.EStepResult, proj, nil
}

// input is what estep reads: sentences, or lattices (nbhd's output).
// Sentences go straight into a compact corpus as they are read, their
// tags numbered as first seen until the model's tag set is known, and
// the corpus hash is summed as they go: no record is kept.
type input struct {
	corpus   *dmv.CorpusBuilder
	hash     uint64 // the sum of eventio.SentenceHash
	noGold   int    // the first sentence without gold heads, 1-based (0: none)
	noGoldID string
	addErr   error // the first sentence the corpus could not take
	lattices []*format.Lattice
}

// readInput reads the records of src, keeping gold heads when gold
// says, and runs side (the model's reading) meanwhile: a plain file in
// parts side by side with side (readParts), else in sequence with side
// on a goroutine of its own. A sentence the corpus cannot take (too
// long) is reported after the model's errors and the records', as if the
// corpus were built after reading.
func readInput(src pipeline.Source, gold bool, workers int, side func()) (*input, error) {
	if w := pipeline.Workers(workers); w >= 2 { // one goroutine reads parts no faster than the whole
		if parts, ok := src.SplitFile(w*partsPerWorker, minPart); ok {
			var bad pipeline.BadRecords
			if src.Bad != nil {
				bad = *src.Bad
			}
			in, err := readParts(src, parts, gold, workers, side)
			parts.Close()
			if err != pipeline.ErrInSequence {
				return in, err
			}
			if src.Bad != nil {
				*src.Bad = bad // counted again in sequence
			}
			side = nil // it has run
		}
	}
	if side == nil {
		return readSequence(src, gold)
	}
	done := make(chan struct{})
	var panicked any
	go func() {
		defer close(done)
		// A panic here would end the process with no one to catch it:
		// it is carried to the caller's goroutine.
		defer func() { panicked = recover() }()
		side()
	}()
	in, err := readSequence(src, gold)
	<-done
	if panicked != nil {
		panic(panicked)
	}
	return in, err
}

// The parts of a corpus: a few per worker, so that the model, read by
// one of the workers meanwhile, does not leave the other core with the
// last parts to read alone; none so small that setting it up costs more
// than reading it.
const partsPerWorker = 4

var minPart int64 = 32 << 10 // a variable for the tests

// readSequence reads src in sequence.
func readSequence(src pipeline.Source, gold bool) (*input, error) {
	// Only --gold looks at the heads; the E-step never at the ids.
	p := part{corpus: dmv.NewCorpusBuilder(dmv.CorpusOptions{Gold: gold})}
	var lattices []*format.Lattice
	err := pipeline.EachRecordReused(src, func(r *format.SentenceOrLatticeNoWords, at *pipeline.Lines) error {
		if err := r.Validate(); err != nil {
			return pipeline.BadRecord(err)
		}
		switch {
		case r.Lattice != nil && p.n > 0:
			return pipeline.BadRecord(errors.New("a lattice among sentences: give estep one or the other"))
		case r.Sentence != nil && len(lattices) > 0:
			return pipeline.BadRecord(errors.New("a sentence among lattices: give estep one or the other"))
		case r.Lattice != nil:
			lattices = append(lattices, r.Lattice) // a new value on every line
			return nil
		}
		p.add(r.Sentence)
		return nil
	})
	if err == nil && p.n == 0 && len(lattices) == 0 {
		err = fmt.Errorf("%s: no sentences", pipeline.DescribeInputs(src.Names))
	}
	return &input{corpus: p.corpus, hash: p.hash, noGold: p.noGold, noGoldID: p.noGoldID, addErr: p.refused(0), lattices: lattices}, err
}

// part is what estep keeps of a run of sentences, the whole corpus
// (readSequence) or one part of it (readParts), its sentences numbered
// from 1 in the run.
type part struct {
	corpus   *dmv.CorpusBuilder
	hash     uint64
	n        int
	noGold   int
	noGoldID string
	addAt    int // the first sentence Add refused (0: none), its id and error
	addID    string
	addErr   error
	hasher   eventio.SentenceHasher
}

// add keeps sentence s: into the corpus, its hash into the sum. After a
// sentence the corpus refused, the others are only counted.
func (p *part) add(s *format.Sentence) {
	p.n++
	if s.Heads == nil && p.noGold == 0 {
		p.noGold, p.noGoldID = p.n, s.ID
	}
	if p.addErr != nil {
		return
	}
	if err := p.corpus.Add(s); err != nil {
		p.addAt, p.addID, p.addErr = p.n, s.ID, err
		return
	}
	p.hash += p.hasher.Hash(s.ID, s.Tags, s.Heads)
}

// refused is the error of the sentence the corpus refused, numbered as
// if the run began after before sentences (nil: none refused).
func (p *part) refused(before int) error {
	if p.addErr == nil {
		return nil
	}
	return fmt.Errorf("sentence %d (%s): %w", before+p.addAt, p.addID, p.addErr)
}

// readParts reads the parts of a plain file side by side and joins them
// in file order: the same input as readSequence's, down to the tags'
// order of first sight. Lattices, whose checks look at the records before
// them, send the file back to readSequence (pipeline.ErrInSequence).
func readParts(src pipeline.Source, parts *pipeline.FileParts, gold bool, workers int, side func()) (*input, error) {
	ps := make([]part, parts.Len())
	err := pipeline.EachRecordReusedInParts(src, parts, workers, side, func(k int, r *format.SentenceOrLatticeNoWords, at *pipeline.Lines) error {
		if err := r.Validate(); err != nil {
			return pipeline.BadRecord(err)
		}
		if r.Lattice != nil {
			return pipeline.ErrInSequence
		}
		p := &ps[k]
		if p.corpus == nil {
			p.corpus = dmv.NewCorpusBuilder(dmv.CorpusOptions{Gold: gold})
			// Room for the part's tokens at once: sentences as grind
			// writes them take 20 bytes a token or more.
			p.corpus.Reserve(int(parts.Size(k)/64)+1, int(parts.Size(k)/20)+1)
		}
		p.add(r.Sentence)
		return nil
	})
	if err == pipeline.ErrInSequence {
		return nil, err
	}
	in := &input{}
	if err != nil {
		return in, err
	}
	n := 0
	for k := range ps {
		p := &ps[k]
		if p.noGold > 0 && in.noGold == 0 {
			in.noGold, in.noGoldID = n+p.noGold, p.noGoldID
		}
		if in.addErr == nil {
			in.addErr = p.refused(n)
		}
		n += p.n
		switch {
		case in.addErr != nil || p.corpus == nil:
			continue
		case in.corpus == nil:
			in.corpus, in.hash = p.corpus, p.hash
			sents, tokens := 0, 0
			for _, q := range ps[k+1:] {
				if q.corpus != nil {
					sents, tokens = sents+q.n, tokens+q.corpus.Tokens()
				}
			}
			in.corpus.Reserve(sents, tokens) // the parts joined to it, at once
			continue
		}
		if err := in.corpus.Join(p.corpus); err != nil {
			return nil, pipeline.ErrInSequence // the sentence that crossed the limit is readSequence's to name
		}
		in.hash += p.hash
	}
	if in.corpus == nil { // no sentence, or the first refused
		in.corpus = dmv.NewCorpusBuilder(dmv.CorpusOptions{Gold: gold})
	}
	if n == 0 {
		return in, fmt.Errorf("%s: no sentences", pipeline.DescribeInputs(src.Names))
	}
	return in, nil
}

// checkBound refuses a depth bound where it has no meaning.
func checkBound(opts Options) error {
	b := opts.Bound
	switch {
	case !b.On():
		return nil
	case opts.Gold:
		return fmt.Errorf("--gold counts the gold trees: --max-depth does not apply")
	case opts.Reweight != nil && opts.Reweight.Segmented:
		return fmt.Errorf("--max-depth and --seg-beta do not combine: Model S's segments are not trees of the bounded chart")
	}
	return b.Check()
}

// reweighting is the annealing E-step asked for, its skew model (nil:
// none) indexed by the model's tags.
func reweighting(opts Options, skew *dmv.Table, tags *dmv.TagSet) (dmv.Reweighting, error) {
	r := dmv.Plain()
	if opts.Reweight != nil {
		r = *opts.Reweight
	}
	if skew != nil {
		var err error
		if skew.Unit != format.Prob {
			return r, fmt.Errorf("%s: a skew model holds probabilities (\"p\")", opts.Skew)
		}
		if r.Skew, err = dmv.AlignTags(tags, skew.Tags, skew.Params); err != nil {
			return r, fmt.Errorf("%s: %w", opts.Skew, err)
		}
	}
	if r.IsPlain() {
		return r, nil
	}
	if opts.Gold {
		return r, fmt.Errorf("--gold counts the gold trees: β, --skew, --delta and --seg-beta do not apply")
	}
	return r, r.Check()
}

// latticeCounts is the E-step over lattice records (nbhd's output): the
// expected counts over each neighbourhood's strings, for CE. Of the
// re-weightings only Model L's δ applies.
func latticeCounts(src pipeline.Source, w io.Writer, opts Options, lattices []*format.Lattice, tags *dmv.TagSet, pot *dmv.Params, modelHash string) error {
	r := dmv.Plain()
	if opts.Reweight != nil {
		r = *opts.Reweight
	}
	switch {
	case opts.Hard || opts.Gold:
		return fmt.Errorf("lattices have no gold or Viterbi trees: --hard and --gold take sentences")
	case opts.Bound.On():
		return fmt.Errorf("--max-depth takes sentences: the lattice chart has no left-corner depth bound")
	case r.Beta != 1 || r.Segmented || opts.Skew != "":
		return fmt.Errorf("of --beta, --skew, --delta and --seg-beta only --delta applies to lattices")
	}
	return ce.LatticeEStep(w, pipeline.DescribeInputs(src.Names), lattices, tags, pot, r.Delta, opts.Workers, modelHash, opts.Warn, opts.MaxMemory)
}

// latticeTags are the tags of a lattice's arcs.
func latticeTags(l *format.Lattice) []string {
	tags := make([]string, len(l.Arcs))
	for i, a := range l.Arcs {
		tags[i] = a.Tag
	}
	return tags
}

// CorpusHash is the corpus hash the count header of an E-step over src
// (sentences or lattices) carries, and that the shards of src merged
// carry however src was cut: mstep and sumcounts --expect-corpus compare
// it with theirs. words: the family reads words (family.ReadsWords).
func CorpusHash(src pipeline.Source, words bool) (string, error) {
	if words { // the HMM: sentences, or (a log-linear HMM's) lattices over words
		var sents []*format.Sentence
		var lattices []*format.Lattice
		err := pipeline.EachRecord(src, func(r *format.SentenceOrLattice, _ *pipeline.Lines) error {
			if err := r.Validate(); err != nil {
				return pipeline.BadRecord(err)
			}
			if r.Lattice != nil {
				lattices = append(lattices, r.Lattice)
			} else {
				sents = append(sents, r.Sentence)
			}
			return nil
		})
		switch {
		case err != nil:
			return "", err
		case lattices != nil && sents != nil:
			return "", fmt.Errorf("%s: sentences and lattices in one stream", pipeline.DescribeInputs(src.Names))
		case lattices != nil:
			return eventio.LatticeHash(lattices), nil
		}
		return eventio.CorpusHash(sents, true), nil
	}
	sents, lattices, err := ce.ReadSentencesOrLattices(src)
	if err != nil {
		return "", err
	}
	if lattices != nil {
		return eventio.LatticeHash(lattices), nil
	}
	return eventio.CorpusHash(sents, false), nil
}
