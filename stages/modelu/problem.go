package modelu

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/modelu/affix"
	"github.com/grind-nlp/grind/stages/nbhd"
)

// Instance is a lattice whose arcs read symbols, with its chart and the
// pairs of symbols its pairs of arcs read (a table it may share with
// another lattice over the same symbols: pairTable).
type Instance struct {
	Lat   *dmv.Lattice
	Chart *Chart
	pairs *pairTable // its symbols (by arc label) and their pairs
	pair  []int32    // by E item (a pair of arcs): its pair of symbols, an index into pairs
}

// NewInstance prepares lattice l over symbols sym for model m, with a
// chart of its own shape and a table of pairs of its own.
func NewInstance(m *Model, l *dmv.Lattice, sym []Symbol) *Instance {
	pt := newPairTable(sym)
	defer pt.done()
	return newInstance(m, NewChart(l), pt)
}

// newInstance prepares chart ch's lattice, over pt's symbols, for model
// m, its pairs of symbols added to pt.
func newInstance(m *Model, ch *Chart, pt *pairTable) *Instance {
	l := ch.l
	in := &Instance{Lat: l, Chart: ch, pairs: pt, pair: make([]int32, len(ch.sh.pairs))}
	for i, p := range ch.sh.pairs {
		in.pair[i] = pt.id(m, l.Arcs[p[0]].Tag, l.Arcs[p[1]].Tag)
	}
	return in
}

// Load loads the chart with weights theta (its table of pairs too).
func (in *Instance) Load(theta []float64) {
	in.pairs.load(theta)
	in.Chart.loadPairs(in.pair, in.pairs)
}

// Expect runs inside and outside at theta, adds scale times the expected
// feature counts to grad, and returns log Z.
func (in *Instance) Expect(theta []float64, grad []float64, scale float64) float64 {
	in.pairs.load(theta)
	sums := make([]float64, in.pairs.len())
	z := in.expectPairs(sums, 1)
	in.pairs.addCounts(in.pairs.feat, sums, grad, scale)
	return z
}

// expectPairs runs inside and outside at the weights its table of pairs
// was last loaded with, adds sign (±1) times the expected count of each
// of its pairs of symbols to sums, and returns log Z. A Z out of range
// adds nothing.
func (in *Instance) expectPairs(sums []float64, sign float64) float64 {
	ch := in.Chart
	ch.loadPairs(in.pair, in.pairs)
	z := ch.Inside(false)
	if ch.outside(z) {
		in.sumPosteriors(ch.posteriors(), sums, sign)
	}
	ch.Release()
	return z
}

// sumPosteriors adds sign (±1) times each E item's posterior, mu[i], to
// its pair's count in sums, in E item order.
func (in *Instance) sumPosteriors(mu, sums []float64, sign float64) {
	for i, k := range in.pair {
		sums[k] += sign * mu[i]
	}
}

// Sentence is a training or test sentence as the model's symbols: its
// local symbols and the chain over them.
type Sentence struct {
	IDs []int    // local symbol id of each word
	Sym []Symbol // local symbols
}

// Symbols interns sentence s's tokens for m (add: new affixes get ids).
// With spelling the sentence needs its words.
func Symbols(m *Model, s *format.Sentence, add bool) (Sentence, error) {
	if len(s.Tags) == 0 {
		return Sentence{}, errors.New("no tags: Model U reads tags")
	}
	if m.Spelling && len(s.Words) != len(s.Tags) {
		return Sentence{}, errors.New("no words: Model U's spelling features read the words")
	}
	var out Sentence
	seen := map[string]int{}
	for i, t := range s.Tags {
		key := t
		word := ""
		if m.Spelling {
			// A token is its tag and spelling, as nbhd --spelling's
			// lattices spell it (affix.Token).
			word = s.Words[i]
			key = affix.Token(t, word)
		}
		id, ok := seen[key]
		if !ok {
			id = len(out.Sym)
			seen[key] = id
			out.Sym = append(out.Sym, m.Symbol(t, word, add))
		}
		out.IDs = append(out.IDs, id)
	}
	return out, nil
}

// Features interns the sentences for m and represents the features of
// every pair of words of every sentence (Smith's footnote 17), in the
// order they are met: what a training's weights are.
func Features(m *Model, sents []*format.Sentence) ([]Sentence, error) {
	ss := make([]Sentence, len(sents))
	for i, s := range sents {
		var err error
		if ss[i], err = Symbols(m, s, true); err != nil {
			return nil, fmt.Errorf("sentence %d%s: %w", i+1, idOf(s), err)
		}
		for a := range ss[i].IDs {
			for b := a + 1; b < len(ss[i].IDs); b++ {
				m.AddFeatures(ss[i].Sym[ss[i].IDs[a]], ss[i].Sym[ss[i].IDs[b]])
			}
		}
	}
	return ss, nil
}

// Problem is the CE objective of Model U on a corpus.
type Problem struct {
	M      *Model
	Sents  []*Instance // each sentence's chain
	Nbhds  []*Instance // its neighbourhood (nil entries for length: see byLen)
	byLen  map[int]*Instance
	perLen map[int]int
	Kind   string
	// Objective's counts by chunk (of the chunk's features: chunkFeats)
	// and by length, kept between evaluations: a spelling model's
	// weights are tens of thousands.
	chunkGrads, lenGrads [][]float64
	chunkFeats           [][]int32
	// With lanes (laneKernel), the instances' units and where each
	// instance's results are (lanes.go; at[i] sentence i's, at[n + i] its
	// neighbourhood's), made at the first evaluation.
	units []*unit
	at    []posted
}

// MaxArcs bounds a neighbourhood's arcs: Model U's chart is quadratic
// in them.
const MaxArcs = 4000

// NewProblem interns the corpus, represents the features of every pair
// of words of every sentence (Smith's footnote 17), and builds each
// neighbourhood. Length's neighbourhood is over tags and takes no
// spelling (every tag string with every word's spelling: Smith does not
// use it for Model U). The charts are refused, before they are made,
// when they would need more than maxMemory bytes (≤ 0: no limit).
func NewProblem(m *Model, sents []*format.Sentence, kind string, workers int, maxMemory int64) (*Problem, error) {
	if !nbhd.Known(kind) {
		return nil, fmt.Errorf("unknown neighbourhood %q (want one of %v)", kind, nbhd.Kinds)
	}
	if kind == nbhd.Length && m.Spelling {
		return nil, fmt.Errorf("Model U's spelling features need the words, and the length neighbourhood has every tag string without them: use another --nbhd")
	}
	p := &Problem{M: m, Kind: kind}
	ss, err := Features(m, sents)
	if err != nil {
		return nil, err
	}
	p.Sents = make([]*Instance, len(sents))
	p.Nbhds = make([]*Instance, len(sents))
	lats := make([]*dmv.Lattice, len(sents))
	errs := make([]error, len(sents))
	if kind != nbhd.Length {
		pipeline.ForEachChunk(len(sents), workers, func(_, i int) {
			x := ss[i]
			l, err := nbhd.Build(kind, x.IDs, len(x.Sym))
			if err == nil && len(l.Arcs) > MaxArcs {
				err = fmt.Errorf("its %s neighbourhood has %d arcs, more than Model U's chart takes (%d): leave long sentences out (filterlen)", kind, len(l.Arcs), MaxArcs)
			}
			if err != nil {
				errs[i] = fmt.Errorf("sentence %d%s: %w", i+1, idOf(sents[i]), err)
			}
			lats[i] = l
		})
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
	}
	// Memory: every chart's shape and pair features are kept (a shape
	// counted for each lattice, though lattices of one shape share it,
	// and each shape refused alone over maxMemory: newShape); a worker's
	// work tables are made for one chart at a time. With lanes, every
	// chart's posteriors are kept too (one per pair of arcs at most) and
	// a worker's tables hold eight charts.
	// A pair of arcs' index of its pair of symbols, and at most one pair
	// of symbols each, whose potential is kept (its features' lists, at
	// most n² for the sentence, are not counted).
	const perPair = 4 + 8
	perPost, charts := int64(0), int64(1)
	if laneKernel != "" {
		perPost, charts = 8, lanes
	}
	var keep, work int64
	for i, s := range sents {
		n := int64(len(s.Tags))
		keep += ShapeBytes(len(s.Tags), len(s.Tags)+1) + n*n*(perPair+perPost)
		if l := lats[i]; l != nil {
			a := int64(len(l.Arcs))
			keep += ShapeBytes(len(l.Arcs), l.States()) + a*a*(perPair+perPost)
			work = max(work, charts*WorkBytes(len(l.Arcs), l.States()))
		}
	}
	if kind == nbhd.Length {
		maxLen := 0
		for _, s := range sents {
			maxLen = max(maxLen, len(s.Tags))
		}
		a := maxLen * len(m.Tags)
		keep += int64(maxLen) * (ShapeBytes(a, maxLen+1) + int64(a)*int64(a)*perPair)
		work = WorkBytes(a, maxLen+1)
	}
	if need := keep + int64(pipeline.Workers(workers))*work; maxMemory > 0 && need > maxMemory {
		return nil, fmt.Errorf("Model U's charts for these %d sentences and their %s neighbourhoods need about %d MiB, over --max-memory (%d MiB): leave long sentences out (filterlen) or raise --max-memory", len(sents), kind, need>>20, maxMemory>>20)
	}
	// The lattices of one shape share it (every chain of one length,
	// most neighbourhoods of one length).
	shared := newShapes(maxMemory)
	pipeline.ForEachChunk(len(sents), workers, func(_, i int) {
		x := ss[i]
		pt := newPairTable(x.Sym)
		defer pt.done()
		var err error
		if p.Sents[i], err = shared.instance(m, dmv.ChainLattice(x.IDs), pt); err == nil && lats[i] != nil {
			p.Nbhds[i], err = shared.instance(m, lats[i], pt)
		}
		if err != nil {
			errs[i] = fmt.Errorf("sentence %d%s: %w", i+1, idOf(sents[i]), err)
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if kind == nbhd.Length {
		p.byLen, p.perLen = map[int]*Instance{}, map[int]int{}
		tags := make([]Symbol, len(m.Tags))
		for t := range tags {
			tags[t] = Symbol{Tag: t}
		}
		for i, s := range sents {
			n := len(s.Tags)
			p.perLen[n]++
			if p.byLen[n] == nil {
				l := nbhd.LengthLattice(n, len(m.Tags))
				if len(l.Arcs) > MaxArcs {
					return nil, fmt.Errorf("sentence %d%s: its length neighbourhood has %d arcs, more than Model U's chart takes (%d): leave long sentences out (filterlen)", i+1, idOf(s), len(l.Arcs), MaxArcs)
				}
				p.byLen[n] = NewInstance(m, l, tags)
			}
		}
	}
	return p, nil
}

func idOf(s *format.Sentence) string {
	if s.ID == "" {
		return ""
	}
	return " (" + s.ID + ")"
}

// chunks fixes the order of the sums whatever the workers.
const chunks = 64

// Objective is Σ log Z(x) − log Z(N(x)) − Σ θ²/(2σ²) at theta, and its
// gradient in grad (when not nil). −Inf when some Z is out of range. It
// works in the problem's buffers: one evaluation at a time.
func (p *Problem) Objective(theta []float64, sigma2 float64, workers int, grad []float64) float64 {
	D := len(theta)
	n := len(p.Sents)
	k := min(chunks, max(1, n))
	p.chunkGrads = slices.Grow(p.chunkGrads[:0], k)[:k]
	grads := p.chunkGrads
	logs := make([]float64, k)
	// Each sentence's pairs of symbols at theta, for its chain and its
	// neighbourhood.
	pipeline.ForEachChunk(n, workers, func(_, i int) { p.Sents[i].pairs.load(theta) })
	// expect is instance in's log Z, sign (±1) times the counts of its
	// pairs of symbols added to sums; j is its place in p.at.
	expect := func(in *Instance, j int, sums []float64, sign float64) float64 {
		return in.expectPairs(sums, sign)
	}
	if laneKernel != "" {
		// Every chart first, in units; the chunks then add up the same
		// numbers in the same order.
		if p.at == nil {
			p.units, p.at = units(append(slices.Clone(p.Sents), p.Nbhds...))
		}
		pipeline.ForEachChunk(len(p.units), workers, func(_, u int) { p.units[u].fill() })
		expect = func(in *Instance, j int, sums []float64, sign float64) float64 {
			if p.at[j].u == nil {
				return in.expectPairs(sums, sign)
			}
			p.at[j].sumPosteriors(sums, sign)
			return p.at[j].logZ()
		}
	}
	if p.chunkFeats == nil {
		p.chunkFeats = make([][]int32, k)
		slots := make([][]int32, min(pipeline.Workers(workers), k)) // a worker's, by feature
		pipeline.ForEachChunk(k, workers, func(worker, c int) {
			if slots[worker] == nil {
				slots[worker] = slices.Repeat([]int32{-1}, D)
			}
			tables := make([]*pairTable, 0, (c+1)*n/k-c*n/k)
			for _, in := range p.Sents[c*n/k : (c+1)*n/k] {
				tables = append(tables, in.pairs)
			}
			p.chunkFeats[c] = chunkFeatures(tables, slots[worker])
		})
	}
	pipeline.ForEachChunk(k, workers, func(_, c int) {
		g := grow(grads[c], len(p.chunkFeats[c]))
		var sums []float64
		sum := 0.0
		for i := c * n / k; i < (c+1)*n/k; i++ {
			// The chain's counts less the neighbourhood's, by pair of
			// symbols, reach the features once.
			pt := p.Sents[i].pairs
			sums = resize(sums, pt.len())
			clear(sums)
			sum += expect(p.Sents[i], i, sums, 1)
			if p.Nbhds[i] != nil {
				sum -= expect(p.Nbhds[i], n+i, sums, -1)
			}
			pt.addCounts(pt.local, sums, g, 1)
		}
		grads[c], logs[c] = g, sum
	})
	obj := 0.0
	if grad != nil {
		clear(grad)
	}
	for c := 0; c < k; c++ {
		obj += logs[c]
		if grad != nil {
			for j, f := range p.chunkFeats[c] {
				grad[f] += grads[c][j]
			}
		}
	}
	if p.byLen != nil {
		lens := make([]int, 0, len(p.byLen))
		for n := range p.byLen {
			lens = append(lens, n)
		}
		sortInts(lens)
		p.lenGrads = slices.Grow(p.lenGrads[:0], len(lens))[:len(lens)]
		gs := p.lenGrads
		zs := make([]float64, len(lens))
		pipeline.ForEachChunk(len(lens), workers, func(_, j int) {
			gs[j] = grow(gs[j], D)
			zs[j] = p.byLen[lens[j]].Expect(theta, gs[j], -float64(p.perLen[lens[j]]))
		})
		for j, n := range lens {
			obj -= float64(p.perLen[n]) * zs[j]
			if grad != nil {
				for i, v := range gs[j] {
					grad[i] += v
				}
			}
		}
	}
	if sigma2 > 0 && !math.IsInf(sigma2, 1) {
		for i, w := range theta {
			obj -= w * w / (2 * sigma2)
			if grad != nil {
				grad[i] -= w / sigma2
			}
		}
	}
	if math.IsNaN(obj) || math.IsInf(obj, 0) {
		return math.Inf(-1)
	}
	if grad != nil {
		for _, v := range grad {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return math.Inf(-1)
			}
		}
	}
	return obj
}

func sortInts(s []int) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// Parse is the best tree of a sentence under theta: 1-based heads, 0 for
// the root, which is the first word (Model U's trees are undirected; the
// chart orients them from the first word, as Smith's program does).
func (m *Model) Parse(theta []float64, x Sentence) []int {
	in := NewInstance(m, dmv.ChainLattice(x.IDs), x.Sym)
	in.Load(theta)
	in.Chart.Inside(true)
	arcs, heads := in.Chart.Best()
	out := make([]int, len(x.IDs))
	for i, a := range arcs {
		out[a] = heads[i] + 1 // arc a of a chain is word a; −1 → 0
	}
	return out
}
