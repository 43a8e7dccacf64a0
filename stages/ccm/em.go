package ccm

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/grind-nlp/grind/pipeline"
)

// Counts are expected counts: Constituent[y] is the expected number of
// times yield y is a constituent, and Occurrences[y] how often it occurs
// at all (its distituent count is the difference); likewise for contexts.
type Counts struct {
	SpanT, SpanN       []float64 // constituent count, occurrences
	ContextT, ContextN []float64
	LogLik             float64 // Σ log P(s)
	Sentences, Tokens  int
	// Zero counts the sentences the model gives probability 0 (only a
	// model with zeros, which grind's smoothing never writes, does):
	// left out of the counts, their log-likelihood −Inf.
	Zero int
	// Classes are the expected counts of each constituent class of a
	// multi-class model (classes.go); an E-step's SpanT and ContextT are
	// their sums. Counts of two classes or more read from a file (ReadCounts)
	// hold in SpanN and ContextN the distituent counts as written, SpanT
	// and ContextT 0, so that SpanCount(Distituent, y) is the file's
	// number to the bit (not a sum of occurrences less a sum that rounds).
	Classes []ClassCounts
}

// SpanCount is the expected count of yield y as b.
func (c *Counts) SpanCount(b, y int) float64 {
	if b == Constituent {
		return c.SpanT[y]
	}
	return max(c.SpanN[y]-c.SpanT[y], 0)
}

// ContextCount is the expected count of context x as b.
func (c *Counts) ContextCount(b, x int) float64 {
	if b == Constituent {
		return c.ContextT[x]
	}
	return max(c.ContextN[x]-c.ContextT[x], 0)
}

// chunkSize fixes the E-step's unit of work, so that its results do not
// depend on the number of workers.
const chunkSize = 128

// EStep computes the bracket posteriors of every sentence of c under m and
// sums them into expected counts, with workers goroutines (0: one per
// CPU). The sums run in corpus order, so the result is the same for any
// number of workers.
// A Corpus serves one E-step at a time: the posteriors go to its buffer.
func (m *Model) EStep(c *Corpus, workers int) *Counts {
	m.Grow()
	if len(c.post) != len(c.Yield) {
		c.post = make([]float64, len(c.Yield))
	}
	return m.estep(c, workers, c.post)
}

func (m *Model) estep(c *Corpus, workers int, post []float64) *Counts {
	logP := make([]float64, len(c.Sentences))
	chunks := (len(c.Sentences) + chunkSize - 1) / chunkSize
	workers = min(pipeline.Workers(workers), max(chunks, 1))
	laidOut := false
	if kernel != "" {
		laidOut = m.batchesLogProb(c, workers, post, logP)
	} else {
		charts := make([]chart, workers)
		pipeline.ForEachChunk(chunks, workers, func(w, k int) {
			for i := k * chunkSize; i < min((k+1)*chunkSize, len(c.Sentences)); i++ {
				s := c.Sentences[i]
				logP[i] = m.sentence(c, s, &charts[w], post[s.Off:s.Off+(s.N+1)*(s.N+1)])
			}
		})
	}
	// Summed chunk by chunk in corpus order, however the sentences ran.
	logLik := make([]float64, chunks)
	var zero []int
	for k := range logLik {
		sum := 0.0
		for i := k * chunkSize; i < min((k+1)*chunkSize, len(c.Sentences)); i++ {
			if math.IsInf(logP[i], -1) {
				zero = append(zero, i)
			}
			sum += logP[i]
		}
		logLik[k] = sum
	}
	cnt := newCounts(c)
	for _, l := range logLik {
		cnt.LogLik += l
	}
	if laidOut {
		c.sumLanes(workers, cnt)
	} else {
		c.sum(workers, post, cnt)
	}
	for _, i := range zero {
		c.leaveOut(c.Sentences[i], cnt)
	}
	if m.Classes != nil {
		m.classCounts(c, workers, post, cnt)
	}
	return cnt
}

// newCounts are counts over c's symbols with c's occurrences and no
// constituents, for sum.
func newCounts(c *Corpus) *Counts {
	cnt := &Counts{Sentences: len(c.Sentences), Tokens: c.Tokens}
	cnt.SpanT, cnt.SpanN = make([]float64, c.Sym.NumYields()), occurrences(c.yieldN, c.Sym.NumYields())
	cnt.ContextT, cnt.ContextN = make([]float64, c.Sym.NumContexts()), occurrences(c.contextN, c.Sym.NumContexts())
	return cnt
}

// occurrences is a copy of occ, 0 beyond it up to size (the ids interned
// after c, by a later corpus, do not occur in it). Appended, not made and
// copied into: append does not clear what it copies over.
func occurrences(occ []float64, size int) []float64 {
	out := append([]float64(nil), occ...)
	return append(out, make([]float64, size-len(occ))...)
}

// leaveOut takes sentence s's spans out of the occurrences of cnt: a
// sentence of probability 0 adds no counts (its posteriors are 0).
func (c *Corpus) leaveOut(s Sentence, cnt *Counts) {
	for i := 0; i <= s.N; i++ {
		for j := i; j <= s.N; j++ {
			k := s.Span(i, j)
			cnt.SpanN[c.Yield[k]]--
			cnt.ContextN[c.Context[k]]--
		}
	}
	cnt.Zero++
}

// sum adds the posteriors into cnt (newCounts): each yield's and each
// context's occurrences are listed once, in corpus order, and summed in
// that order by whichever worker owns the id, so the result does not
// depend on the number of workers.
func (c *Corpus) sum(workers int, post []float64, cnt *Counts) {
	gather := func(ix *idSpans, out []float64, from, to int) {
		for id := from; id < to; id++ {
			sum := 0.0
			for _, k := range ix.of(id) {
				sum += post[k]
			}
			out[id] = sum
		}
	}
	// Ids interned after c (by a later corpus) do not occur in it.
	ny, nx := len(c.yieldN), len(c.contextN)
	pipeline.ForEachChunk(workers, workers, func(_, w int) {
		gather(&c.yieldSpans, cnt.SpanT, ny*w/workers, ny*(w+1)/workers)
		gather(&c.contextSpans, cnt.ContextT, nx*w/workers, nx*(w+1)/workers)
	})
}

// sumLanes is sum of the batched E-step's posteriors, c.lanePost, read at
// the places laneSpans gave the spans there: the same sums in the same
// order.
func (c *Corpus) sumLanes(workers int, cnt *Counts) {
	pipeline.ForEachChunk(workers, workers, func(_, w int) {
		c.yieldSpans.lane.sum(&c.yieldSpans, c.lanePost, cnt.SpanT, w, workers)
		c.contextSpans.lane.sum(&c.contextSpans, c.lanePost, cnt.ContextT, w, workers)
	})
}

// idSpans lists the non-empty spans of every id of a table (yields or
// contexts) in corpus order, spans[start[id]:start[id+1]] (empty spans
// are never constituents), and, once the batched E-step has laid out
// the corpus (laneSpans), their places in the lanes' posteriors.
type idSpans struct {
	start, spans []int32
	lane         lanePlaces
}

// of is id's spans.
func (ix *idSpans) of(id int) []int32 { return ix.spans[ix.start[id]:ix.start[id+1]] }

// lanePlaces are the places of an idSpans's spans in the lanes'
// posteriors: at[r] that of spans[r]. single holds the ids with exactly
// one span, each with its place, in the order of the places (read front
// to back), and multi the ids with more: sum copies the first without a
// loop an id (on the Chinese sample ≤ 10, 43,232 of the 50,905 yields
// occur once; a loop of varying length per id cost a mispredicted branch
// each).
type lanePlaces struct {
	at     []int32
	single [][2]int32 // id, place
	multi  []int32
}

// lanePlaces is ix's places, given the place of every span of the
// corpus.
func (ix *idSpans) lanePlaces(place []int32) lanePlaces {
	p := lanePlaces{at: make([]int32, len(ix.spans))}
	for r, k := range ix.spans {
		p.at[r] = place[k]
	}
	for id := range len(ix.start) - 1 {
		switch ix.start[id+1] - ix.start[id] {
		case 0:
		case 1:
			p.single = append(p.single, [2]int32{int32(id), p.at[ix.start[id]]})
		default:
			p.multi = append(p.multi, int32(id))
		}
	}
	slices.SortFunc(p.single, func(a, b [2]int32) int { return cmp.Compare(a[1], b[1]) })
	return p
}

// sum writes into out (zero) the sum of each of ix's ids' posteriors in
// corpus order, post read at p: part of workers of the ids. An id
// without spans keeps its 0.
func (p *lanePlaces) sum(ix *idSpans, post, out []float64, part, workers int) {
	for _, is := range p.single[len(p.single)*part/workers : len(p.single)*(part+1)/workers] {
		out[is[0]] = post[is[1]]
	}
	for _, id := range p.multi[len(p.multi)*part/workers : len(p.multi)*(part+1)/workers] {
		sum := 0.0
		for _, k := range p.at[ix.start[id]:ix.start[id+1]] {
			sum += post[k]
		}
		out[id] = sum
	}
}

// index lists the non-empty spans of every yield and context in corpus
// order, counts every yield's and context's occurrences, empty spans
// included, and makes the batched E-step's batches.
func (c *Corpus) index() {
	c.yieldN, c.contextN = make([]float64, c.Sym.NumYields()), make([]float64, c.Sym.NumContexts())
	c.yieldSpans = c.listSpans(c.Yield, c.Sym.NumYields(), c.yieldN)
	c.contextSpans = c.listSpans(c.Context, c.Sym.NumContexts(), c.contextN)
	c.batches()
}

func (c *Corpus) listSpans(ids []int32, size int, occ []float64) idSpans {
	starts := make([]int32, size+1)
	each := func(fn func(k int)) {
		for _, s := range c.Sentences {
			for i := 0; i <= s.N; i++ {
				for j := i; j <= s.N; j++ {
					fn(s.Span(i, j))
				}
			}
		}
	}
	each(func(k int) {
		occ[ids[k]]++
		if c.Yield[k] != EmptyYield {
			starts[ids[k]+1]++
		}
	})
	for i := range size {
		starts[i+1] += starts[i]
	}
	spans := make([]int32, starts[size])
	next := append([]int32(nil), starts[:size]...)
	each(func(k int) {
		if c.Yield[k] != EmptyYield {
			spans[next[ids[k]]] = int32(k)
			next[ids[k]]++
		}
	})
	return idSpans{start: starts, spans: spans}
}

// Smoothing is Klein's: every yield and every context gets Constituent +
// Distituent pseudo-counts (2 and 8), split between the two bracket values.
type Smoothing struct {
	Constituent, Distituent float64
}

// KleinSmoothing is the smoothing of Klein's thesis (§5.3).
var KleinSmoothing = Smoothing{Constituent: 2, Distituent: 8}

func (sm Smoothing) of(b int) float64 {
	if b == Constituent {
		return sm.Constituent
	}
	return sm.Distituent
}

// perClass is the pseudo-count of each of a multi-class model's classes
// per yield and context: the CCM's constituent pseudo-count shared among
// them, so that the classes together carry the constituent label's prior
// (each with the CCM's 2 would drown a class's share of the counts in
// pseudo-counts: 12 classes of the PTB sample ≤ 10 then made almost no
// brackets, F1 28).
func (sm Smoothing) perClass(classes int) float64 { return sm.Constituent / float64(classes) }

// MStep normalises counts plus pseudo-counts into a model: per bracket
// value (and, under Model2, per yield length) for yields, per bracket
// value for contexts; with cnt.Classes, the multi-class model, whose
// classes take the place of the constituent value. A group with no mass
// at all is left uniform.
func MStep(cnt *Counts, sym *Symbols, v Variant, sm Smoothing) (*Model, error) {
	if v != Model1 && v != Model2 {
		return nil, fmt.Errorf("unknown CCM variant %d", v)
	}
	if len(cnt.SpanT) != sym.NumYields() || len(cnt.ContextT) != sym.NumContexts() {
		return nil, fmt.Errorf("counts have %d yields and %d contexts, the symbols %d and %d",
			len(cnt.SpanT), len(cnt.ContextT), sym.NumYields(), sym.NumContexts())
	}
	if cnt.Classes != nil && v != Model1 {
		return nil, fmt.Errorf("the multi-class CCM is Klein's model 1 only, not %s", FamilyOf(v))
	}
	m := &Model{Variant: v, Sym: sym}
	ny, nx := sym.NumYields(), sym.NumContexts()
	groups := 1
	if v == Model2 {
		groups = int(slices.Max(sym.yieldLen)) + 1
	}
	group := func(y int) int {
		if v == Model2 {
			return int(sym.yieldLen[y])
		}
		return 0
	}
	// fit normalises one label's counts plus pseudo-counts, and gives the
	// probabilities of the yields (by group) and contexts it never saw.
	fit := func(label string, spanCount, ctxCount func(int) float64, pseudo float64) (span, ctx, unseenSpan []float64, unseenCtx float64, err error) {
		span = make([]float64, ny)
		for y := range span {
			span[y] = spanCount(y) + pseudo
		}
		ctx = make([]float64, nx)
		for x := range ctx {
			ctx[x] = ctxCount(x) + pseudo
		}
		totals := normalize(span, groups, group)
		ctxTotal := normalize(ctx, 1, func(int) int { return 0 })[0]
		for g, t := range append(totals, ctxTotal) {
			if math.IsInf(t, 0) || math.IsNaN(t) {
				what := fmt.Sprintf("%s contexts", label)
				if g < len(totals) {
					what = fmt.Sprintf("%s yields", label)
					if v == Model2 {
						what += fmt.Sprintf(" of length %d", g)
					}
				}
				return nil, nil, nil, 0, fmt.Errorf("M-step overflow: the counts of the %s add up to %v, beyond floating point", what, t)
			}
		}
		unseenSpan = make([]float64, groups)
		for g, t := range totals {
			unseenSpan[g] = pseudo / (t + pseudo)
		}
		return span, ctx, unseenSpan, pseudo / (ctxTotal + pseudo), nil
	}
	for b := range 2 {
		if b == Constituent && cnt.Classes != nil {
			continue
		}
		var err error
		m.Span[b], m.Context[b], m.unseenSpan[b], m.unseenContext[b], err = fit(bracketName[b],
			func(y int) float64 { return cnt.SpanCount(b, y) }, func(x int) float64 { return cnt.ContextCount(b, x) }, sm.of(b))
		if err != nil {
			return nil, err
		}
	}
	for l, cc := range cnt.Classes {
		span, ctx, unseenSpan, unseenCtx, err := fit(fmt.Sprintf("class %d", l+1),
			func(y int) float64 { return cc.Span[y] }, func(x int) float64 { return cc.Context[x] }, sm.perClass(len(cnt.Classes)))
		if err != nil {
			return nil, err
		}
		m.Classes = append(m.Classes, Class{Span: span, Context: ctx, unseenSpan: unseenSpan[0], unseenContext: unseenCtx})
	}
	return m, nil
}

// normalize divides every weight by the total of its group, which it
// returns; a group with no mass becomes uniform. It divides: multiplying
// by 1/total, a subnormal number when the total passes 2^1022, gave
// probabilities above 1 (1.0000000000000002), refused as a model not
// valid.
func normalize(p []float64, groups int, group func(int) int) []float64 {
	totals := make([]float64, groups)
	members := make([]int, groups)
	for i, w := range p {
		totals[group(i)] += w
		members[group(i)]++
	}
	for i := range p {
		g := group(i)
		if totals[g] > 0 {
			p[i] /= totals[g]
		} else {
			p[i] = 1 / float64(members[g])
		}
	}
	return totals
}

// LogPrior is Σ pseudo-count · log p over the model's four tables: the
// smoothed M-step maximises log-likelihood + LogPrior (MAP with a Dirichlet
// prior), which EM therefore never lowers.
func (m *Model) LogPrior(sm Smoothing) float64 {
	sum := 0.0
	add := func(pseudo float64, tables ...[]float64) {
		for _, t := range tables {
			for _, p := range t {
				sum += pseudo * math.Log(p)
			}
		}
	}
	for b := range 2 {
		add(sm.of(b), m.Span[b], m.Context[b])
	}
	for _, cl := range m.Classes {
		add(sm.perClass(len(m.Classes)), cl.Span, cl.Context)
	}
	return sum
}

// NewPosteriors is a corpus-wide bracket-posterior buffer for
// CountsFrom: the posterior of span [i, j) of sentence k (j − i ≥ 1) goes
// at c.Sentences[k].Span(i, j). A product model (DMV+CCM) fills it from
// its own chart.
func (c *Corpus) NewPosteriors() []float64 { return make([]float64, len(c.Yield)) }

// CountsFrom sums a posterior buffer into expected counts, as EStep does
// (logLik is the caller's).
func (c *Corpus) CountsFrom(post []float64, logLik float64, workers int) *Counts {
	cnt := newCounts(c)
	cnt.LogLik = logLik
	c.sum(max(pipeline.Workers(workers), 1), post, cnt)
	return cnt
}
