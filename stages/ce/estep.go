package ce

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/eventio"
	"github.com/grind-nlp/grind/stages/nbhd"
)

// ReadSentencesOrLattices reads the DMV's contrastive input (nbhd's
// reader): sentences, without their words, which the E-step never looks
// at (format.SentenceOrLatticeNoWords), or lattices over tags.
func ReadSentencesOrLattices(src pipeline.Source) ([]*format.Sentence, []*format.Lattice, error) {
	return nbhd.ReadSentencesOrLattices[format.SentenceOrLatticeNoWords](src, func(_ *format.Sentence, l *format.Lattice) error {
		if l != nil && l.TaggedWords() {
			return errors.New("a lattice of tagged words (nbhd --spelling, Model U's): the DMV reads lattices over tags")
		}
		return nil
	})
}

// LatticeEStep writes the expected counts of every event over the
// strings and trees of each lattice under the chart potentials pot (over
// tags ts), with Model L's δ when not 0, then a stats record: sentences
// and tokens of the sentences the lattices came from, and loglik =
// Σ log Z(N(x)). These are the denominator counts of CE's gradient, for
// an E-step spread over processes: the gradient is the sentences' counts
// minus these (minus w/σ²). model is the hash of the model, for the count
// header (dmv.WriteCounts). A lattice whose chart would need more than
// limit bytes (≤ 0: no limit) is an error naming it, and so are count
// tables (one per chunk) that would; each lattice's shape is let go once
// its counts are in, so memory is that of the largest, not the sum.
//
// A lattice whose weights span more than floating point holds (a large
// positive δ on a long sentence: Z out of range, or 0 by underflow) is
// left out of the counts and loglik,
// and counted on warn (nil: not reported); when every lattice is, it is
// an error.
func LatticeEStep(w io.Writer, where string, recs []*format.Lattice, ts *dmv.TagSet, pot *dmv.Params, delta float64, workers int, model string, warn io.Writer, limit int64) error {
	if err := dmv.CheckMemory(pot.V, dmv.DepthBound{}, pot.T, 0, 0, chunks+2, limit); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	// Tags are checked first; each lattice is brought to the chart's form
	// only when its turn comes, and let go after, so that memory is that
	// of a few lattices, not of all.
	tokens, depth := 0, 0
	for i, rec := range recs {
		for _, a := range rec.Arcs {
			if _, ok := ts.Index(a.Tag); !ok {
				return fmt.Errorf("%s: lattice %d (%s): tag %q is not in the model", where, i+1, rec.ID, a.Tag)
			}
		}
		tokens += len(rec.Tags)
		depth = max(depth, rec.States) // bounds every string's length
	}
	dist := dmv.DistanceFactors(delta, depth)
	workers = min(pipeline.Workers(workers), chunks)
	charts := make([]*dmv.LatticeChart, workers)
	for i := range charts {
		charts[i] = dmv.NewLatticeChart()
	}
	counts, logZ, lost := make([]*dmv.Params, chunks), make([]float64, chunks), make([]int, chunks)
	errs := make([]error, len(recs))
	pipeline.ForEachChunk(chunks, workers, func(worker, k int) {
		counts[k] = dmv.NewParams(pot.T)
		lc := charts[worker]
		for i := k * len(recs) / chunks; i < (k+1)*len(recs)/chunks; i++ {
			l, err := nbhd.FromRecord(recs[i], ts)
			if err == nil {
				err = l.Prepare(limit)
			}
			if errs[i] = err; err != nil {
				return
			}
			lc.Load(l, pot, dist)
			z := lc.Inside()
			if math.IsNaN(z) || delta > 0 && math.IsInf(z, -1) { // with δ > 0, a zero is underflow
				lost[k]++
				continue
			}
			logZ[k] += z
			if lc.Outside() {
				lc.AddCounts(counts[k], 1)
			}
		}
	})
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("%s: lattice %d (%s), of %d words, is too big: %w; leave long sentences out (filterlen)", where, i+1, recs[i].ID, len(recs[i].Tags), err)
		}
	}
	total, stats := dmv.NewParams(pot.T), &format.Stats{Sentences: len(recs), Tokens: tokens}
	left := 0
	for k := 0; k < chunks; k++ {
		total.Add(counts[k])
		stats.Loglik += logZ[k]
		left += lost[k]
	}
	switch {
	case left == len(recs):
		return fmt.Errorf("%s: every lattice left out: their weights span more than floating point can hold (a large positive --delta?)", where)
	case left > 0 && warn != nil:
		fmt.Fprintf(warn, "estep: %d lattices left out: their weights span more than floating point can hold\n", left)
	}
	stats.LeftOut = left
	return dmv.WriteCounts(w, ts, total, model, eventio.LatticeHash(recs), stats)
}
