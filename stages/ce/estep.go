package ce

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/nbhd"
)

// ReadSentencesOrLattices reads every record of src: sentences, or
// lattices (nbhd's output), but not both in one stream — a record of the
// other kind than the first is an error at its line. An input without a
// record is an error.
func ReadSentencesOrLattices(src pipeline.Source) ([]*format.Sentence, []*format.Lattice, error) {
	var sents []*format.Sentence
	var lats []*format.Lattice
	err := pipeline.EachRecord(src, func(r *format.SentenceOrLattice, at *pipeline.Lines) error {
		if err := r.Validate(); err != nil {
			return pipeline.BadRecord(err)
		}
		switch {
		case r.Lattice != nil && len(sents) > 0:
			return pipeline.BadRecord(errors.New("a lattice among sentences: give estep one or the other"))
		case r.Sentence != nil && len(lats) > 0:
			return pipeline.BadRecord(errors.New("a sentence among lattices: give estep one or the other"))
		case r.Lattice != nil:
			lats = append(lats, r.Lattice)
		default:
			sents = append(sents, r.Sentence)
		}
		return nil
	})
	if err == nil && len(sents) == 0 && len(lats) == 0 {
		err = fmt.Errorf("%s: no sentences", pipeline.DescribeInputs(src.Names))
	}
	return sents, lats, err
}

// LatticeEStep writes the expected counts of every event over the
// strings and trees of each lattice under the chart potentials pot (over
// tags ts), with Model L's δ when not 0, then a stats record: sentences
// and tokens of the sentences the lattices came from, and loglik =
// Σ log Z(N(x)). These are the denominator counts of CE's gradient, for
// an E-step spread over processes: the gradient is the sentences' counts
// minus these (minus w/σ²). model is the hash of the model, for the count
// header (dmv.WriteCounts).
func LatticeEStep(w io.Writer, where string, recs []*format.Lattice, ts *dmv.TagSet, pot *dmv.Params, delta float64, workers int, model string) error {
	lats := make([]*dmv.Lattice, len(recs))
	tokens, depth := 0, 0
	for i, rec := range recs {
		l, err := nbhd.FromRecord(rec, ts)
		if err != nil {
			return fmt.Errorf("%s: lattice %d (%s): %w", where, i+1, rec.ID, err)
		}
		lats[i] = l
		tokens += len(rec.Tags)
		for _, d := range l.Depth {
			depth = max(depth, d)
		}
	}
	var dist []float64
	if delta != 0 {
		dist = make([]float64, depth+1)
		for d := range dist {
			dist[d] = math.Exp(delta * float64(d))
		}
	}
	workers = min(pipeline.Workers(workers), chunks)
	charts := make([]*dmv.LatticeChart, workers)
	for i := range charts {
		charts[i] = dmv.NewLatticeChart()
	}
	counts, logZ := make([]*dmv.Params, chunks), make([]float64, chunks)
	pipeline.ForEachChunk(chunks, workers, func(worker, k int) {
		counts[k] = dmv.NewParams(pot.T)
		lc := charts[worker]
		for i := k * len(lats) / chunks; i < (k+1)*len(lats)/chunks; i++ {
			lc.Load(lats[i], pot, dist)
			logZ[k] += lc.Inside()
			if lc.Outside() {
				lc.AddCounts(counts[k], 1)
			}
		}
	})
	total, stats := dmv.NewParams(pot.T), &format.Stats{Sentences: len(lats), Tokens: tokens}
	for k := 0; k < chunks; k++ {
		total.Add(counts[k])
		stats.Loglik += logZ[k]
	}
	return dmv.WriteCounts(w, ts, total, model, dmv.LatticeHash(recs), stats)
}
