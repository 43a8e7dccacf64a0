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
// features of every pair of arcs that can stand in one string (kept once
// per pair of symbols).
type Instance struct {
	Lat   *dmv.Lattice
	Sym   []Symbol // by arc label
	Chart *Chart
	pair  []int32   // by E item (a pair of arcs): the pair of symbols, an index into feats
	feats [][]int32 // the features of each pair of symbols
}

// NewInstance prepares lattice l over symbols sym for model m, with a
// chart of its own shape.
func NewInstance(m *Model, l *dmv.Lattice, sym []Symbol) *Instance {
	return newInstance(m, NewChart(l), sym)
}

// newInstance prepares chart ch's lattice over symbols sym for model m.
func newInstance(m *Model, ch *Chart, sym []Symbol) *Instance {
	l := ch.l
	in := &Instance{Lat: l, Sym: sym, Chart: ch, pair: make([]int32, len(ch.sh.pairs))}
	index := map[[2]int]int32{}
	for i, p := range ch.sh.pairs {
		key := [2]int{l.Arcs[p[0]].Tag, l.Arcs[p[1]].Tag}
		k, ok := index[key]
		if !ok {
			k = int32(len(in.feats))
			index[key] = k
			in.feats = append(in.feats, m.Features(sym[key[0]], sym[key[1]], nil))
		}
		in.pair[i] = k
	}
	return in
}

// Load loads the chart with weights theta: each pair of symbols' score
// once, in the order of its features.
func (in *Instance) Load(theta []float64) {
	in.Chart.acquire()
	in.Chart.score = in.potentials(theta, in.Chart.score)
	in.Chart.loadPairs(in.pair, in.Chart.score)
}

// potentials is each pair of symbols' score at theta, in score resized.
func (in *Instance) potentials(theta, score []float64) []float64 {
	score = resize(score, len(in.feats))
	for k, fs := range in.feats {
		v := 0.0
		for _, f := range fs {
			v += theta[f]
		}
		score[k] = v
	}
	return score
}

// Expect runs inside and outside at theta, adds scale times the expected
// feature counts to grad, and returns log Z.
func (in *Instance) Expect(theta []float64, grad []float64, scale float64) float64 {
	in.Load(theta)
	ch := in.Chart
	z := ch.Inside(false)
	if ch.outside(z) {
		in.addPosteriors(ch.posteriors(), grad, scale)
	}
	ch.Release()
	return z
}

// addPosteriors adds scale times each E item's posterior, mu[i],
// to the counts of its pair's features in grad: by decreasing width, by
// E item within one (the order of the chart's outside pass, in which
// they have always been added). A posterior of 0 is left out: adding it
// would change no bit (no count is −0, every one starting at +0).
func (in *Instance) addPosteriors(mu []float64, grad []float64, scale float64) {
	sh := in.Chart.sh
	for w := sh.widths() - 1; w >= 0; w-- {
		for i := int(sh.eAt[w]); i < int(sh.eAt[w+1]); i++ {
			if mu[i] == 0 {
				continue
			}
			m := scale * mu[i]
			for _, f := range in.feats[in.pair[i]] {
				grad[f] += m
			}
		}
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
	// Objective's gradients by chunk and by length, kept between
	// evaluations: a spelling model's weights are tens of thousands.
	chunkGrads, lenGrads [][]float64
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
	const perPair = 4 // and each pair of symbols' features, at most n² lists
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
		var err error
		if p.Sents[i], err = shared.instance(m, dmv.ChainLattice(x.IDs), x.Sym); err == nil && lats[i] != nil {
			p.Nbhds[i], err = shared.instance(m, lats[i], x.Sym)
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
	// expect is instance in's log Z, scale times its counts added to g;
	// j is its place in p.at.
	expect := func(in *Instance, j int, g []float64, scale float64) float64 {
		return in.Expect(theta, g, scale)
	}
	if laneKernel != "" {
		// Every chart first, in units; the chunks then add up the same
		// numbers in the same order.
		if p.at == nil {
			p.units, p.at = units(append(slices.Clone(p.Sents), p.Nbhds...))
		}
		pipeline.ForEachChunk(len(p.units), workers, func(_, u int) { p.units[u].fill(theta) })
		expect = func(in *Instance, j int, g []float64, scale float64) float64 {
			if p.at[j].u == nil {
				return in.Expect(theta, g, scale)
			}
			p.at[j].addPosteriors(g, scale)
			return p.at[j].logZ()
		}
	}
	pipeline.ForEachChunk(k, workers, func(_, c int) {
		g := grow(grads[c], D)
		sum := 0.0
		for i := c * n / k; i < (c+1)*n/k; i++ {
			sum += expect(p.Sents[i], i, g, 1)
			if p.Nbhds[i] != nil {
				sum -= expect(p.Nbhds[i], n+i, g, -1)
			}
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
			for i, v := range grads[c] {
				grad[i] += v
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
