// Package ce is contrastive estimation for the DMV (Smith & Eisner 2005;
// Smith 2006; DESIGN.md §5.6): a log-linear DMV, one real weight per DMV
// event and a tree scored exp(Σ weights of its events), trained to make
// each sentence x likely against its neighbourhood N(x) — strings made by
// swapping or deleting its tags — rather than against every string:
//
//	objective = Σᵢ [log Z(xᵢ) − log Z(N(xᵢ))] − Σ w²/(2σ²)
//	gradient  = expected counts on the sentences − expected counts on
//	            their neighbourhoods − w/σ²
//
// Z(x) and Z(N(x)) come from the lattice chart of package dmv (the
// sentence as a chain lattice: on it the lattice chart is the sentence
// chart, and its scaling holds the extreme weights a line search may
// try), loaded with potentials exp(w); the neighbourhoods are package
// nbhd's. The optimiser, gonum's L-BFGS, is in package lbfgs.
package ce

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/memory"
	"github.com/grind-nlp/grind/stages/nbhd"
)

// MinWeight is the weight of an event whose probability is 0 in the
// model training starts from: log 0 = −∞ cannot be optimised, so it is
// clamped here (e^−50 ≈ 2·10⁻²², as good as impossible).
const MinWeight = -50

// LogWeights is the log-linear model equal to the probability model p:
// w = log p, clamped below at MinWeight.
func LogWeights(p *dmv.Params) *dmv.Params {
	w := p.Clone()
	for _, tab := range w.Tables() {
		for i, v := range tab {
			tab[i] = math.Max(math.Log(v), MinWeight)
		}
	}
	return w
}

// chunks is how many pieces the corpus is cut into, fixed so that sums
// taken piece by piece do not depend on the number of workers.
const chunks = 64

// Problem is the CE objective over one corpus and neighbourhood: the
// lattices are built once, and the workspaces kept between evaluations.
type Problem struct {
	Corpus *dmv.Corpus
	// Sents are the corpus's tag numbers at hand (CE visits them in its
	// own order, and its lattices already cost far more).
	Sents [][]int
	Kind  string
	// Lattices holds each sentence's neighbourhood; nil for length,
	// whose lattice depends on the sentence's length alone. Where the
	// neighbourhood has templates (nbhd.HasTemplate), the lattices of one
	// length are instances of one template and run side by side in the
	// lanes of a chart.
	Lattices []*dmv.Lattice
	// order lists the sentences in the order the chunks take them: by
	// length when lattices share templates, so that a chunk's lattices of
	// one length fill lanes (nil: the corpus's order).
	order []int
	// own is, per sentence length, the final state of the template where
	// the sentence's own path ends alone, so that the lattice gives Z(x)
	// too; −1 (or no entry) where the sentence chart does.
	own []int
	// lengths lists the sentence lengths present and counts how many
	// sentences have each (length only).
	lengths, perLength []int

	// apart runs the sentences' own Z and counts where the lattices do
	// not give them (length; dynasearch, whose edits come back to the
	// sentence's states; the neighbourhoods without templates): the DMV's
	// E-step over the whole corpus, which batches the sentences of one
	// length on its lanes. Nil when every lattice gives its sentence's.
	apart *dmv.EStepper

	// Workspaces per worker: the sentence chart for a sentence's own Z
	// where its lattice could not hold it beside Z(N(x)), and a lattice
	// chart for its neighbourhood's.
	sent           []*dmv.Chart
	lat            []*dmv.LatticeChart
	chunkGrad      []*dmv.Params
	chunkLogZ      []float64 // Σ log Z(x) of the chunk's sentences
	chunkLogZN     []float64 // Σ log Z(N(x))
	lengthLogZ     []float64
	lengthCount    []*dmv.Params
	lengthLattices []*dmv.Lattice
}

// DefaultMaxMemory bounds the memory of the chart of one neighbourhood
// (one lane, and what the chart keeps with the lattice): a lattice that
// would need more is refused before its chart is made. Neighbourhoods
// linear in the sentence's length need memory quadratic in it (a
// 150-word sentence's del1ortrans1 about 30 MiB); length, trans2,
// del1ortrans2 and del1subseq much more.
const DefaultMaxMemory = 1 << 30

// NewProblem builds the neighbourhood of every sentence of c, in
// parallel, each within DefaultMaxMemory.
func NewProblem(c *dmv.Corpus, kind string, workers int) (*Problem, error) {
	return NewProblemWithin(c, kind, workers, DefaultMaxMemory)
}

// tooBig says which sentence's neighbourhood needs more memory than
// allowed.
func tooBig(p *Problem, i int, kind string, err error) error {
	id := ""
	if x := p.Corpus.ID(i); x != "" {
		id = " (" + x + ")"
	}
	return fmt.Errorf("sentence %d%s, %d words: its %s neighbourhood is too big: %w; raise --max-memory or leave long sentences out (filterlen)", i+1, id, len(p.Sents[i]), kind, err)
}

// NewProblemWithin is NewProblem with the memory of each neighbourhood's
// chart bounded by maxMemory bytes (≤ 0: no bound): a sentence whose
// neighbourhood would need more is an error naming it, before its chart
// is allocated.
func NewProblemWithin(c *dmv.Corpus, kind string, workers int, maxMemory int64) (*Problem, error) {
	if !nbhd.Known(kind) {
		return nil, fmt.Errorf("unknown neighbourhood %q (want one of %v)", kind, nbhd.Kinds)
	}
	p, err := newProblem(c, kind, workers, maxMemory)
	if err != nil {
		return nil, err
	}
	if slices.ContainsFunc(p.Sents, func(x []int) bool { return p.ownFinal(x) < 0 }) {
		p.apart = dmv.NewEStepper(c)
	}
	return p, nil
}

// newProblem is NewProblemWithin but for the sentences' own terms.
func newProblem(c *dmv.Corpus, kind string, workers int, maxMemory int64) (*Problem, error) {
	p := &Problem{Corpus: c, Sents: c.Sentences(), Kind: kind}
	if kind == nbhd.Length {
		count := make([]int, c.MaxLen+1)
		for _, s := range p.Sents {
			count[len(s)]++
		}
		for n, k := range count {
			if k > 0 {
				p.lengths, p.perLength = append(p.lengths, n), append(p.perLength, k)
				first := slices.IndexFunc(p.Sents, func(x []int) bool { return len(x) == n })
				if err := nbhd.CheckMemory(kind, first+1, c.ID(first), n, c.Tags.Len(), 0, maxMemory); err != nil {
					return nil, err
				}
				l := nbhd.LengthLattice(n, c.Tags.Len())
				if err := l.Prepare(maxMemory); err != nil {
					return nil, tooBig(p, first, kind, err)
				}
				p.lengthLattices = append(p.lengthLattices, l)
			}
		}
		return p, nil
	}
	p.Lattices = make([]*dmv.Lattice, len(p.Sents))
	if nbhd.HasTemplate(kind) {
		templates := make([]*nbhd.Template, c.MaxLen+1)
		p.own = make([]int, c.MaxLen+1)
		for i, x := range p.Sents {
			n := len(x)
			if n == 0 {
				return nil, fmt.Errorf("sentence %d: the neighbourhood of an empty sentence", i+1)
			}
			if templates[n] == nil {
				templates[n] = nbhd.NewTemplate(kind, n)
				p.own[n] = templates[n].Sentence
				if err := templates[n].Lattice.Prepare(maxMemory); err != nil {
					return nil, tooBig(p, i, kind, err)
				}
			}
			p.Lattices[i] = templates[n].Instance(x)
			p.order = append(p.order, i)
		}
		slices.SortStableFunc(p.order, func(i, j int) int { return len(p.Sents[i]) - len(p.Sents[j]) })
		return p, nil
	}
	// Each lattice is refused before it is built when building it would
	// pass the limit, and so are they all once what the built ones keep
	// does: each keeps more than its sentence's length times a constant
	// (its chart's program), del1subseq's more than its square, so a
	// corpus of long sentences can hold far more than its text.
	errs := make([]error, len(p.Sents))
	var kept, built atomic.Int64
	over := func() bool { return maxMemory > 0 && kept.Load() > maxMemory }
	pipeline.ForEachChunk(chunks, workers, func(_, k int) {
		lo, hi := p.bounds(k)
		for i := lo; i < hi && !over(); i++ {
			if errs[i] = nbhd.CheckMemory(kind, i+1, c.ID(i), len(p.Sents[i]), c.Tags.Len(), 0, maxMemory); errs[i] != nil {
				return
			}
			p.Lattices[i], errs[i] = nbhd.Build(kind, p.Sents[i], c.Tags.Len())
			if errs[i] == nil {
				if err := p.Lattices[i].Prepare(maxMemory); err != nil {
					errs[i] = tooBig(p, i, kind, err)
				}
				kept.Add(latticeBytes(p.Lattices[i]))
				built.Add(1)
			}
		}
	})
	for i, err := range errs {
		var big *memory.Error
		var chart *dmv.MemoryError
		switch {
		case errors.As(err, &big) || errors.As(err, &chart):
			return nil, err
		case err != nil:
			return nil, fmt.Errorf("sentence %d: %w", i+1, err)
		}
	}
	if over() {
		return nil, fmt.Errorf("the %s neighbourhoods of %d sentences (the longest %d words) need more than the limit of %s (--max-memory): the first %d built hold %s; raise --max-memory, leave long sentences out (filterlen) or take a smaller --nbhd",
			kind, len(p.Sents), c.MaxLen, memory.Size(maxMemory), built.Load(), memory.Size(kept.Load()))
	}
	return p, nil
}

// latticeBytes is what a built, prepared lattice keeps.
func latticeBytes(l *dmv.Lattice) int64 {
	return int64(len(l.Arcs))*int64(unsafe.Sizeof(dmv.LatticeArc{})) + int64(l.States())*9 + int64(l.ShapeBytes())
}

// bounds are the positions in the chunks' order of chunk k's sentences.
func (p *Problem) bounds(k int) (lo, hi int) {
	n := len(p.Sents)
	return k * n / chunks, (k + 1) * n / chunks
}

// sentence is the sentence at position j of the chunks' order.
func (p *Problem) sentence(j int) int {
	if p.order == nil {
		return j
	}
	return p.order[j]
}

// ownFinal is the final state of x's lattice where x's own path ends
// alone, or −1 when x's Z comes from the sentence chart.
func (p *Problem) ownFinal(x []int) int {
	if len(x) >= len(p.own) {
		return -1
	}
	return p.own[len(x)]
}

// A run of lattices that share a shape fills as many of a chart's lanes
// as maxLaneBytes of tables hold, at most maxLanes (one for long
// sentences). More lanes spread the program's cost over more sentences;
// fewer keep the tables in cache.
const (
	maxLanes     = 32
	maxLaneBytes = 8 << 20
)

// lanes appends to dst the lattices of positions j, j+1, … (before hi)
// that share the first one's shape, as many as one chart runs at once.
func (p *Problem) lanes(j, hi int, dst []*dmv.Lattice) []*dmv.Lattice {
	first := p.Lattices[p.sentence(j)]
	n := max(1, min(maxLanes, maxLaneBytes/int(max(1, first.LaneBytes()))))
	for ; j < hi && len(dst) < n; j++ {
		l := p.Lattices[p.sentence(j)]
		if !l.SharesShape(first) {
			break
		}
		dst = append(dst, l)
	}
	return dst
}

// Settings are the parts of the objective that are not the model.
type Settings struct {
	// Sigma2 is the variance of the Gaussian prior on every weight; 0 or
	// +Inf is no prior.
	Sigma2 float64
	// Delta is Model L's locality bias: every edge of length d is
	// multiplied by e^{δ·d}, in the sentence and in its neighbourhood
	// alike (d is the distance in the string that holds both words).
	Delta   float64
	Workers int
}

// Value is one evaluation of the objective.
type Value struct {
	// Objective is Σ [log Z(x) − log Z(N(x))] − prior; −Inf (and the
	// gradient meaningless) when the weights are too extreme for the
	// charts to hold some Z.
	Objective float64
	LogZ      float64 // Σ log Z(x)
	LogZN     float64 // Σ log Z(N(x))
	Prior     float64 // Σ w²/(2σ²)
	Gradient  *dmv.Params
}

// Evaluate computes the objective and its gradient at weights w.
func (p *Problem) Evaluate(w *dmv.Params, s Settings) Value {
	c := p.Corpus
	pot := dmv.ExpWeights(w)
	dist := dmv.DistanceFactors(s.Delta, c.MaxLen)
	workers := min(pipeline.Workers(s.Workers), chunks)
	v := Value{Gradient: dmv.NewParams(w.T)}
	lost := false
	if p.apart != nil {
		lost = p.ownTerms(pot, dist, s.Workers, &v)
	}
	if p.Lattices != nil {
		p.neighbourhoodTerms(pot, dist, workers, &v)
	} else {
		p.lengthTerms(pot, dist, workers, &v)
	}
	v.finish(w, s.Sigma2, lost)
	return v
}

// ownTerms adds the sentences' own log Z and counts, where no lattice
// gives them, from the DMV's E-step at potentials pot: what estep -m
// computes in the shell loop. It says whether a sentence was left out,
// its weights beyond floating point, which leaves the objective without
// value (as a sentence of Z 0 does through its log Z).
func (p *Problem) ownTerms(pot *dmv.Params, dist []float64, workers int, v *Value) bool {
	opts := dmv.EStepOptions{Workers: workers}
	if dist != nil {
		opts.Dist = func(d int) float64 { return dist[d] }
	}
	own := p.apart.Run(pot, opts)
	if own.Err != nil { // only a streamed corpus's read fails, and CE holds its corpus
		panic("ce: " + own.Err.Error())
	}
	v.LogZ += own.LogLik
	v.Gradient.Add(own.Counts)
	return own.Unusable > 0
}

// latticeCharts makes sure each worker has its lattice chart.
func (p *Problem) latticeCharts(workers int) {
	for len(p.lat) < workers {
		p.lat = append(p.lat, dmv.NewLatticeChart())
	}
}

// neighbourhoodTerms adds the lattices' terms: log Z(N(x)) and its
// counts, and where the lattice gives it beside them, log Z(x) and its.
func (p *Problem) neighbourhoodTerms(pot *dmv.Params, dist []float64, workers int, v *Value) {
	if p.apart == nil { // the sentence charts of the fallback below
		for len(p.sent) < workers {
			p.sent = append(p.sent, dmv.NewChart(p.Corpus.MaxLen))
		}
	}
	p.latticeCharts(workers)
	if len(p.chunkGrad) != chunks {
		p.chunkGrad = make([]*dmv.Params, chunks)
		for k := range p.chunkGrad {
			p.chunkGrad[k] = dmv.NewParams(pot.T)
		}
		p.chunkLogZ, p.chunkLogZN = make([]float64, chunks), make([]float64, chunks)
	}
	pipeline.ForEachChunk(chunks, workers, func(worker, k int) {
		grad, lc := p.chunkGrad[k], p.lat[worker]
		grad.Zero()
		logZ, logZN := 0.0, 0.0
		lo, hi := p.bounds(k)
		// A lane with Z = 0 or NaN has no counts, and makes the
		// objective −Inf or NaN.
		var lanes []*dmv.Lattice
		for j := lo; j < hi; j += len(lanes) {
			lanes = p.lanes(j, hi, lanes[:0])
			lc.LoadLanes(lanes, pot, dist)
			logZN += lc.Inside()
			if p.apart != nil {
				lc.Outside() // the sentences' own terms are ownTerms'
			} else if zx, ok := lc.OutsideContrast(p.ownFinal(p.Sents[p.sentence(j)])); ok {
				logZ += zx // and the counts are those over x less those over N(x)
			} else { // Z(x) out of the lattice's range beside Z(N(x)): the sentence chart has it
				lc.Outside()
				sc := p.sent[worker]
				for m := range lanes {
					x := p.Sents[p.sentence(j+m)]
					sc.Load(x, pot, dist)
					logZ += sc.Inside()
					if sc.Outside() {
						sc.AddCounts(x, grad, 1)
					}
				}
			}
			lc.AddCounts(grad, -1)
		}
		p.chunkLogZ[k], p.chunkLogZN[k] = logZ, logZN
	})
	for k := 0; k < chunks; k++ {
		v.Gradient.Add(p.chunkGrad[k])
		v.LogZ += p.chunkLogZ[k]
		v.LogZN += p.chunkLogZN[k]
	}
}

// FromCounts is the objective and its gradient at weights w from the two
// E-steps that make it, run apart (estep -m w over the sentences, and
// over their neighbourhoods from nbhd): Σ log Z(x) and the expected counts
// over the sentences, Σ log Z(N(x)) and those over the neighbourhoods.
// leftOut (a sentence or lattice the E-steps left out, their charts unable
// to hold it) makes it without value, as a chart that cannot hold some Z
// makes Evaluate's.
func FromCounts(w *dmv.Params, logZ float64, num *dmv.Params, logZN float64, den *dmv.Params, leftOut bool, sigma2 float64) Value {
	v := Value{LogZ: logZ, LogZN: logZN, Gradient: num.Clone()}
	g, d := v.Gradient.Tables(), den.Tables()
	for k := range g {
		for i := range g[k] {
			g[k][i] -= d[k][i]
		}
	}
	v.finish(w, sigma2, leftOut)
	return v
}

// finish sets the objective from the sums, −Inf where a chart could not
// hold Z at these weights (extreme ones, as a line search may try: no
// usable value here), and takes the prior off.
func (v *Value) finish(w *dmv.Params, sigma2 float64, lost bool) {
	v.Objective = v.LogZ - v.LogZN
	if lost || math.IsNaN(v.Objective) || math.IsInf(v.Objective, 0) || !finite(v.Gradient) {
		v.Objective = math.Inf(-1)
	}
	if sigma2 > 0 && !math.IsInf(sigma2, 1) {
		g, ws := v.Gradient.Tables(), w.Tables()
		for k := range g {
			for i, x := range ws[k] {
				v.Prior += x * x / (2 * sigma2)
				g[k][i] -= x / sigma2
			}
		}
		v.Objective -= v.Prior
	}
}

// lengthTerms adds length's denominators: Z(N(x)) is the same for every
// sentence of one length, so each length's lattice is run once and its
// log Z and counts weighted by the number of sentences of that length.
func (p *Problem) lengthTerms(pot *dmv.Params, dist []float64, workers int, v *Value) {
	n := len(p.lengths)
	p.latticeCharts(workers)
	if len(p.lengthCount) != n || p.lengthCount[0].T != pot.T {
		p.lengthLogZ, p.lengthCount = make([]float64, n), make([]*dmv.Params, n)
		for k := range p.lengthCount {
			p.lengthCount[k] = dmv.NewParams(pot.T)
			if len(p.lengthLattices[k].Arcs) != p.lengths[k]*pot.T { // weights over other tags than the corpus's
				p.lengthLattices[k] = nbhd.LengthLattice(p.lengths[k], pot.T)
			}
		}
	}
	pipeline.ForEachChunk(n, workers, func(worker, k int) {
		lc, counts := p.lat[worker], p.lengthCount[k]
		counts.Zero()
		lc.Load(p.lengthLattices[k], pot, dist)
		p.lengthLogZ[k] = lc.Inside()
		if lc.Outside() {
			lc.AddCounts(counts, -float64(p.perLength[k]))
		}
	})
	for k := 0; k < n; k++ {
		v.LogZN += float64(p.perLength[k]) * p.lengthLogZ[k]
		v.Gradient.Add(p.lengthCount[k])
	}
}

// Vector lays the four tables of p end to end in dst, or in a new slice
// when dst is nil: the weights as an optimiser sees them.
func Vector(p *dmv.Params, dst []float64) []float64 {
	if dst == nil {
		for _, tab := range p.Tables() {
			dst = append(dst, tab...)
		}
		return dst
	}
	n := 0
	for _, tab := range p.Tables() {
		n += copy(dst[n:], tab)
	}
	return dst
}

// FromVector is the inverse of Vector.
func FromVector(x []float64, p *dmv.Params) {
	for _, tab := range p.Tables() {
		x = x[copy(tab, x):]
	}
}

// finite says whether every entry of p is a finite number.
func finite(p *dmv.Params) bool {
	for _, tab := range p.Tables() {
		for _, v := range tab {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
}

// Lost counts the sentences whose own Z or whose neighbourhood's Z the
// charts cannot hold at weights w (a weight of 0, or weights beyond
// floating point: a large positive δ on a long sentence), and returns
// the position of the first (−1: none). It runs each sentence alone, to
// say why an evaluation had no value.
func (p *Problem) Lost(w *dmv.Params, s Settings) (n, first int) {
	c := p.Corpus
	pot := dmv.ExpWeights(w)
	dist := dmv.DistanceFactors(s.Delta, c.MaxLen)
	sc, lc := dmv.NewChart(c.MaxLen), dmv.NewLatticeChart()
	first = -1
	for i, x := range p.Sents {
		sc.Load(x, pot, dist)
		z := sc.Inside()
		if ok := !math.IsNaN(z) && !math.IsInf(z, 0); ok {
			var l *dmv.Lattice
			if p.Lattices != nil {
				l = p.Lattices[i]
			} else {
				l = p.lengthLattices[slices.Index(p.lengths, len(x))]
			}
			lc.Load(l, pot, dist)
			z = lc.Inside()
		}
		if math.IsNaN(z) || math.IsInf(z, 0) {
			n++
			if first < 0 {
				first = i
			}
		}
	}
	return n, first
}
