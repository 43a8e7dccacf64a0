package ccm

import (
	"cmp"
	"math/rand/v2"
	"slices"

	"github.com/grind-nlp/grind/pipeline"
)

// The CCM with several constituent classes (Klein 2005, §5.3.2): the
// bracketing B generates a labelling L of the spans, which generates the
// yields and contexts,
//
//	P(S, L, B) = P(B) · Π_{spans} P(L_ij | B_ij) · P(α_ij | L_ij) · P(x_ij | L_ij),
//
// with the distituent spans all labelled d (a label of their own) and each
// constituent span labelled uniformly among the L constituent classes. Summed
// over the labellings, a constituent span contributes Σ_l P(α|l)P(x|l)/L
// where the CCM has P(α|T)P(x|T), so the inside–outside program over
// bracketings is the CCM's with that φ; given its bracket posterior, a
// constituent span's label posterior is P(α|l)P(x|l) over the sum. With one
// constituent class (Klein's "2 classes") the model is the CCM.

// Class is one constituent class's yield and context multinomials.
type Class struct {
	Span, Context []float64
	// the probability of a yield or context interned after the M-step
	// (Grow), as the CCM's unseenSpan and unseenContext
	unseenSpan, unseenContext float64
}

// ClassCounts are one class's expected counts of each yield and context.
type ClassCounts struct {
	Span, Context []float64
}

// classFactor is Σ_l P(y|l)·P(x|l)/L over the L constituent classes: a
// constituent span's yield and context, its label summed out.
func (m *Model) classFactor(y, x int32) float64 {
	sum := 0.0
	for i := range m.Classes {
		sum += m.Classes[i].Span[y] * m.Classes[i].Context[x]
	}
	return sum / float64(len(m.Classes))
}

// classShares writes to w the label posterior of a constituent span of
// yield y and context x: P(y|l)·P(x|l) normalised over the classes.
func (m *Model) classShares(y, x int32, w []float64) {
	sum := 0.0
	for l := range m.Classes {
		w[l] = m.Classes[l].Span[y] * m.Classes[l].Context[x]
		sum += w[l]
	}
	for l := range w {
		w[l] /= sum
	}
}

// growClasses is Grow for the classes' tables.
func (m *Model) growClasses() {
	for l := range m.Classes {
		cl := &m.Classes[l]
		for len(cl.Span) < m.Sym.NumYields() {
			cl.Span = append(cl.Span, cl.unseenSpan)
		}
		for len(cl.Context) < m.Sym.NumContexts() {
			cl.Context = append(cl.Context, cl.unseenContext)
		}
	}
}

// classCounts splits the constituent posteriors in post among the classes
// into cnt.Classes: each yield's and each context's spans in corpus order,
// summed by whichever worker owns the id, as Corpus.sum does, so the counts
// do not depend on the number of workers (and with one class are SpanT
// and ContextT to the bit: each share is exactly 1).
func (m *Model) classCounts(c *Corpus, workers int, post []float64, cnt *Counts) {
	cnt.Classes = make([]ClassCounts, len(m.Classes))
	for l := range cnt.Classes {
		cnt.Classes[l] = ClassCounts{Span: make([]float64, c.Sym.NumYields()), Context: make([]float64, c.Sym.NumContexts())}
	}
	gather := func(ids *idSpans, context bool, from, to int) {
		w := make([]float64, len(m.Classes))
		for id := from; id < to; id++ {
			for _, k := range ids.of(id) {
				p := post[k]
				if p == 0 {
					continue
				}
				m.classShares(c.Yield[k], c.Context[k], w)
				for l, share := range w {
					if context {
						cnt.Classes[l].Context[id] += p * share
					} else {
						cnt.Classes[l].Span[id] += p * share
					}
				}
			}
		}
	}
	ny, nx := len(c.yieldN), len(c.contextN)
	pipeline.ForEachChunk(workers, workers, func(_, w int) {
		gather(&c.yieldSpans, false, ny*w/workers, ny*(w+1)/workers)
		gather(&c.contextSpans, true, nx*w/workers, nx*(w+1)/workers)
	})
}

// ClassStartCounts are StartCounts with each span's constituent
// posterior split among classes constituent classes. Klein does not say
// how his classes start apart; here every yield draws its own shares,
// uniform numbers normalised to 1 (from seed), and each of its spans —
// the yield and the span's context — goes to the classes in those shares.
// With one class the counts are StartCounts' to the bit.
func ClassStartCounts(c *Corpus, start Start, classes int, seed uint64) (*Counts, error) {
	post, err := startPosteriors(c, start)
	if err != nil {
		return nil, err
	}
	cnt := newCounts(c)
	c.sum(1, post, cnt)
	rng := rand.New(rand.NewPCG(seed, 0x636c6173736573)) // "classes"
	shares := make([]float64, c.Sym.NumYields()*classes)
	for y := range c.Sym.NumYields() {
		w := shares[y*classes : (y+1)*classes]
		sum := 0.0
		for l := range w {
			w[l] = rng.Float64()
			sum += w[l]
		}
		for l := range w {
			w[l] /= sum
		}
	}
	cnt.Classes = make([]ClassCounts, classes)
	for l := range cnt.Classes {
		cnt.Classes[l] = ClassCounts{Span: make([]float64, c.Sym.NumYields()), Context: make([]float64, c.Sym.NumContexts())}
	}
	for _, s := range c.Sentences {
		for i := 0; i < s.N; i++ {
			for j := i + 1; j <= s.N; j++ {
				k := s.Span(i, j)
				p := post[k]
				if p == 0 {
					continue
				}
				y, x := c.Yield[k], c.Context[k]
				for l, share := range shares[int(y)*classes : (int(y)+1)*classes] {
					cnt.Classes[l].Span[y] += p * share
					cnt.Classes[l].Context[x] += p * share
				}
			}
		}
	}
	return cnt, nil
}

// ClassMember is a yield's expected count in one class: class 0 is the
// distituent label d, 1 … L the constituent classes.
type ClassMember struct {
	Class int      `json:"class"`
	Yield []string `json:"yield"`
	Count float64  `json:"count"`
}

// TopYields lists each class's top yields of two tags or more by expected
// count in cnt (an E-step's counts; the CCM's have one constituent
// class), the most frequent first (ties by yield id), as Klein's Fig. 5.9
// lists the most frequent members of his classes.
func TopYields(cnt *Counts, sym *Symbols, top int) []ClassMember {
	var out []ClassMember
	for class := range max(len(cnt.Classes), 1) + 1 {
		count := func(y int) float64 {
			switch {
			case class == 0:
				return cnt.SpanCount(Distituent, y)
			case cnt.Classes == nil:
				return cnt.SpanCount(Constituent, y)
			}
			return cnt.Classes[class-1].Span[y]
		}
		var ys []int
		for y := range cnt.SpanT {
			if sym.YieldLen(y) >= 2 && count(y) > 0 {
				ys = append(ys, y)
			}
		}
		slices.SortStableFunc(ys, func(a, b int) int { return cmp.Compare(count(b), count(a)) })
		for _, y := range ys[:min(top, len(ys))] {
			out = append(out, ClassMember{Class: class, Yield: sym.Yield(y), Count: count(y)})
		}
	}
	return out
}
