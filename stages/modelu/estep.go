package modelu

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

// EStepOptions are estep's for a Model U model.
type EStepOptions struct {
	Model     string // the model file
	Workers   int
	MaxMemory int64     // refuses a lattice whose chart would need more bytes (≤ 0: no limit)
	Warn      io.Writer // hears of records left out (nil: none)
}

// EStep is estep -m on a Model U model: it reads sentences, or their
// neighbourhoods from nbhd (over tags; of tagged words, nbhd --spelling,
// for a model with spelling features), not both in one stream, and
// writes the expected count of every feature of the model over the trees
// of each sentence, or over the strings and trees of each lattice, then a
// stats record whose loglik is Σ log Z: the two halves of contrastive
// estimation's gradient, which train-ce --family modelu sums in process
// and ce-step takes from these counts. The sums go in train-ce's fixed
// chunks, so the counts do not depend on the number of workers. A record
// whose Z floating point cannot hold is left out and counted (stats
// left_out, and on opts.Warn).
func EStep(src pipeline.Source, w io.Writer, opts EStepOptions) error {
	m, err := Read(opts.Model)
	if err != nil {
		return err
	}
	where := pipeline.DescribeInputs(src.Names)
	sents, lats, err := nbhd.ReadSentencesOrLattices[format.SentenceOrLattice](src, func(s *format.Sentence, l *format.Lattice) error {
		switch {
		case l != nil && len(l.Tags) == 0:
			return errors.New("a lattice over words (nbhd --words, a log-linear HMM's): Model U reads lattices over tags, or of tagged words (nbhd --spelling)")
		case l != nil && m.Spelling && !l.TaggedWords():
			return fmt.Errorf("a lattice over tags, without words: the model %s has spelling features, which read the words: make the lattices with nbhd --spelling", opts.Model)
		case l != nil && !m.Spelling && l.TaggedWords():
			return fmt.Errorf("a lattice of tagged words (nbhd --spelling): the model %s has no spelling features; its neighbourhoods are over tags (nbhd without --spelling)", opts.Model)
		case l == nil:
			_, err := Symbols(m, s, false)
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Each record as a lattice over its own symbols, made when its
	// chunk's turn comes and let go after.
	n, stats, corpus := len(sents), &format.Stats{}, ""
	instance := func(i int) (*Instance, error) {
		x, _ := Symbols(m, sents[i], false)
		return NewInstance(m, dmv.ChainLattice(x.IDs), x.Sym), nil
	}
	if lats != nil {
		n = len(lats)
		for i, rec := range lats {
			for _, a := range rec.Arcs {
				if m.Tag(a.Tag) < 0 {
					return fmt.Errorf("%s: lattice %d (%s): tag %q is not in the model %s", where, i+1, rec.ID, a.Tag, opts.Model)
				}
			}
			if len(rec.Arcs) > MaxArcs {
				return fmt.Errorf("%s: lattice %d (%s) has %d arcs, more than Model U's chart takes (%d): leave long sentences out (filterlen)", where, i+1, rec.ID, len(rec.Arcs), MaxArcs)
			}
			if need := WorkBytes(len(rec.Arcs), rec.States); opts.MaxMemory > 0 && need > opts.MaxMemory {
				return fmt.Errorf("%s: lattice %d (%s): its chart needs about %d MiB, over --max-memory (%d MiB)", where, i+1, rec.ID, need>>20, opts.MaxMemory>>20)
			}
			stats.Tokens += len(rec.Tags)
		}
		corpus = eventio.LatticeHash(lats)
		instance = func(i int) (*Instance, error) { return latticeInstance(m, lats[i], opts.MaxMemory) }
	} else {
		for _, s := range sents {
			stats.Tokens += len(s.Tags)
		}
		corpus = eventio.CorpusHash(sents, m.Spelling)
	}
	stats.Sentences = n
	D := len(m.Theta)
	k := min(chunks, max(1, n))
	grads, logs, lost := make([][]float64, k), make([]float64, k), make([]int, k)
	errs := make([]error, n)
	pipeline.ForEachChunk(k, opts.Workers, func(_, c int) {
		g := make([]float64, D)
		left := map[int]bool{}
		for again := true; again; {
			again = false
			clear(g)
			logs[c] = 0
			for i := c * n / k; i < (c+1)*n/k; i++ {
				if left[i] {
					continue
				}
				in, err := instance(i)
				if errs[i] = err; err != nil {
					return
				}
				z := in.Expect(m.Theta, g, 1)
				if math.IsNaN(z) || math.IsInf(z, 0) {
					// Its counts are in g: the chunk again without it.
					left[i], again = true, true
					break
				}
				logs[c] += z
			}
		}
		grads[c], lost[c] = g, len(left)
	})
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("%s: record %d: %w", where, i+1, err)
		}
	}
	total := make([]float64, D)
	for c := 0; c < k; c++ {
		stats.Loglik += logs[c]
		stats.LeftOut += lost[c]
		for i, v := range grads[c] {
			total[i] += v
		}
	}
	switch {
	case stats.LeftOut == n:
		return fmt.Errorf("%s: every record left out: its weights span more than floating point can hold", where)
	case stats.LeftOut > 0 && opts.Warn != nil:
		fmt.Fprintf(opts.Warn, "estep: %d records left out: their weights span more than floating point can hold\n", stats.LeftOut)
	}
	return m.WriteCounts(w, total, m.Hash(), corpus, stats)
}

// latticeInstance is a lattice record as the chart's lattice over its own
// symbols: a tag, or a tag and its word's spelling; its shape is refused
// over limit bytes (newShape).
func latticeInstance(m *Model, rec *format.Lattice, limit int64) (*Instance, error) {
	labels := make([]string, len(rec.Arcs))
	for i, a := range rec.Arcs {
		labels[i] = a.Tag + "\x00" + a.Word
	}
	ts := dmv.SortedTagSet(labels)
	byLabel := *rec
	byLabel.Arcs = make([]format.Arc, len(rec.Arcs))
	sym := make([]Symbol, ts.Len())
	for i, a := range rec.Arcs {
		byLabel.Arcs[i] = format.Arc{From: a.From, To: a.To, Tag: labels[i]}
		id, _ := ts.Index(labels[i])
		sym[id] = m.Symbol(a.Tag, a.Word, false)
	}
	l, err := nbhd.FromRecord(&byLabel, ts)
	if err != nil {
		return nil, err
	}
	sh, err := newShape(l, limit)
	if err != nil {
		return nil, err
	}
	pt := newPairTable(sym)
	defer pt.done()
	return newInstance(m, chartOf(l, sh), pt), nil
}
