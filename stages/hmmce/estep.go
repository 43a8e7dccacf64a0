package hmmce

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/eventio"
	"github.com/grind-nlp/grind/stages/family"
	"github.com/grind-nlp/grind/stages/hmm"
	"github.com/grind-nlp/grind/stages/nbhd"
)

// Params is the model file of weights theta (hmm.WriteWeights): the
// transitions as they are, and each word's emission under each tag its
// local score — the emission weight plus its spelling features' — which
// is all the E-step, over sentences or neighbourhoods, needs of them.
func (m *Model) Params(theta []float64) (*hmm.Params, error) {
	s, err := hmm.NewSpace(1, m.K, m.V, m.Allowed)
	if err != nil {
		return nil, err
	}
	p := hmm.NewParams(s)
	copy(p.Trans, theta[:(m.K+1)*(m.K+1)])
	for w := 0; w < m.V; w++ {
		for t := 0; t < m.K; t++ {
			if m.Allowed == nil || m.Allowed[w*m.K+t] {
				p.Emit[w*m.K+t] = m.local(theta, t, w)
			}
		}
	}
	return p, nil
}

// WeightsHash is the model hash an E-step's counts under the log-linear
// HMM in model carry (unit "w" marked, so that a probability model of
// the same numbers hashes apart).
func WeightsHash(model *hmm.Model) string { return eventio.HashStrings("w", model.Hash()) }

// fromParams is the model and weights an E-step runs with: p's
// transitions and its emissions as weights, no spelling features.
func fromParams(p *hmm.Params) (*Model, []float64) {
	m := &Model{K: p.K, V: p.V, Allowed: p.Allowed}
	theta := make([]float64, m.Dim())
	copy(theta, p.Trans)
	theta[m.trans(m.K, m.K)] = 0 // no empty sentence: never a potential
	for w := 0; w < m.V; w++ {
		for t := 0; t < m.K; t++ {
			theta[m.emit(t, w)] = p.Emit[w*m.K+t]
		}
	}
	return m, theta
}

// EStep is estep -m on a log-linear HMM (family hmm, unit "w"; ce-step's
// model): it reads sentences (their words) or lattices over words (nbhd
// --words), not both in one stream, and writes the expected count of every
// transition and emission over the taggings of each sentence or of each
// string of each lattice, and a stats record whose loglik is Σ log Z —
// the two halves of contrastive estimation's gradient, as train-hmm
// --estimator ce sums them in process. A word the model does not know is
// an error. A record whose Z floating point cannot hold is left out and
// counted (stats left_out, and on opts.Warn).
func EStep(src pipeline.Source, w io.Writer, opts family.EStepOptions) error {
	switch {
	case opts.Hard || opts.Gold || opts.Reweight != nil || opts.Skew != "" || opts.Bound.On() || opts.PR.On() || opts.Dual != "":
		return fmt.Errorf("%s: a log-linear HMM's E-step sums over every tagging: --hard, --gold, --beta, --skew, --delta, --seg-beta, --max-depth and posterior regularization do not apply", opts.Model)
	}
	model, err := hmm.ReadWeights(opts.Model, opts.MaxMemory)
	if err != nil {
		return err
	}
	where := pipeline.DescribeInputs(src.Names)
	sents, lats, err := nbhd.ReadSentencesOrLattices[format.SentenceOrLattice](src, func(s *format.Sentence, l *format.Lattice) error {
		switch {
		case l != nil && l.TaggedWords():
			return errors.New("a lattice of tagged words (nbhd --spelling, Model U's): a log-linear HMM reads lattices over words (nbhd --words)")
		case l != nil && l.Words == nil:
			return errors.New("a lattice over tags: a log-linear HMM reads lattices over words (nbhd --words)")
		case l == nil:
			return hmm.CheckSentence(s)
		}
		return nil
	})
	if err != nil {
		return err
	}
	words := dmv.NewTagSet(model.Words...)
	var graphs []*dmv.Lattice
	stats := &format.Stats{}
	var corpus string
	if lats != nil {
		graphs = make([]*dmv.Lattice, len(lats))
		for i, rec := range lats {
			for _, a := range rec.Arcs {
				if _, ok := words.Index(a.Tag); !ok {
					return fmt.Errorf("%s: lattice %d (%s): the word %q is not in the model %s: a log-linear HMM knows only the words it was trained on", where, i+1, rec.ID, a.Tag, opts.Model)
				}
			}
			if graphs[i], err = nbhd.FromRecord(rec, words); err != nil {
				return fmt.Errorf("%s: lattice %d (%s): %w", where, i+1, rec.ID, err)
			}
			stats.Tokens += len(rec.Words)
		}
		corpus = eventio.LatticeHash(lats)
	} else {
		graphs = make([]*dmv.Lattice, len(sents))
		for i, s := range sents {
			x := make([]int, len(s.Words))
			for j, word := range s.Words {
				var ok bool
				if x[j], ok = words.Index(word); !ok {
					return fmt.Errorf("%s: sentence %d (%s): the word %q is not in the model %s: a log-linear HMM knows only the words it was trained on", where, i+1, s.ID, word, opts.Model)
				}
			}
			graphs[i] = dmv.ChainLattice(x)
			stats.Tokens += len(x)
		}
		corpus = eventio.CorpusHash(sents, true)
	}
	stats.Sentences = len(graphs)
	m, theta := fromParams(model.P)
	pot := m.potentials(theta)
	// The records in Objective's fixed chunks, whose sums are added in
	// order: the counts do not depend on the number of workers. A record
	// without Z (−Inf: floating point cannot hold it) adds no counts.
	logZ, lost := make([]float64, chunks), make([]int, chunks)
	parts := make([]*counts, chunks)
	pipeline.ForEachChunk(chunks, pipeline.Workers(opts.Workers), func(_, k int) {
		var lw lattice
		parts[k] = newCounts(m)
		for i := k * len(graphs) / chunks; i < (k+1)*len(graphs)/chunks; i++ {
			z := lw.logZ(pot, graphs[i], parts[k], 1)
			if math.IsNaN(z) || math.IsInf(z, 0) {
				lost[k]++
				continue
			}
			logZ[k] += z
		}
	})
	total := parts[0]
	for k := 0; k < chunks; k++ {
		stats.Loglik += logZ[k]
		stats.LeftOut += lost[k]
		if k > 0 {
			total.add(parts[k])
		}
	}
	switch {
	case stats.LeftOut == stats.Sentences:
		return fmt.Errorf("%s: every sentence left out: its weights span more than floating point can hold", where)
	case stats.LeftOut > 0 && opts.Warn != nil:
		fmt.Fprintf(opts.Warn, "estep: %d sentences left out: their weights span more than floating point can hold\n", stats.LeftOut)
	}
	out := hmm.NewParams(model.P.Space)
	for i, v := range total.trans {
		out.Trans[i] = v * pot.trans[i]
	}
	copy(out.Emit, total.emit)
	return hmm.WriteCounts(w, out, model.States, model.Words, WeightsHash(model), corpus, stats)
}

// add adds d's counts to c's.
func (c *counts) add(d *counts) {
	for i, v := range d.trans {
		c.trans[i] += v
	}
	for i, v := range d.emit {
		c.emit[i] += v
	}
}
