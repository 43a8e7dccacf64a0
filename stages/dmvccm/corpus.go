package dmvccm

import (
	"math"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/dmv"
)

// Corpus is sentences to run a model's E-step or decoder on (training or
// held-out ones): their tags interned in the model's tags, and the CCM's
// yields and contexts in its symbols. A tag the DMV never saw backs off to
// the DMV's average tag, as estep and decode do for the DMV
// (dmv.Table.Extend); a yield or context the CCM never saw gets its
// smoothed zero-count probability.
type Corpus struct {
	// Tags are the model's and the unseen ones (sorted together), the
	// tags of the DMV's counts; Unseen lists the unseen ones.
	Tags   *dmv.TagSet
	Unseen []string
	names  []string // the corpus's distinct tags
	dmv    *dmv.Corpus
	ccm    *ccm.Corpus
	params *dmv.Params // the building model's DMV over Tags
	fn8    *Fn8Params  // its footnote-8 decisions over Tags (Footnote8)
	es     *EStepper
	// unseenTokens counts the tokens of the Unseen tags.
	unseenTokens int
}

// NewCorpus interns sents for m.
func (m *Model) NewCorpus(sents []*format.Sentence) (*Corpus, error) {
	tags := tagsOf(sents)
	c := &Corpus{names: dmv.CorpusTags(tags)}
	var err error
	if c.Tags, c.params, c.Unseen, err = m.table().Extend(c.names); err != nil {
		return nil, err
	}
	if c.dmv, err = dmv.NewCorpus(sents, c.Tags); err != nil {
		return nil, err
	}
	if m.Fn8 != nil {
		c.fn8 = m.Fn8.extend(m.Tags, c.Tags)
	}
	if len(c.Unseen) > 0 {
		unseen := map[string]bool{}
		for _, t := range c.Unseen {
			unseen[t] = true
		}
		for _, ts := range tags {
			for _, t := range ts {
				if unseen[t] {
					c.unseenTokens++
				}
			}
		}
	}
	if c.ccm, err = ccm.NewCorpus(tags, m.CCM.Sym); err != nil {
		return nil, err
	}
	m.CCM.Grow() // once, before workers share the model
	return c, nil
}

// Len is the number of sentences.
func (c *Corpus) Len() int { return len(c.ccm.Sentences) }

// UnseenTokens is the number of tokens whose tag the model's DMV never
// saw (Unseen).
func (c *Corpus) UnseenTokens() int { return c.unseenTokens }

// Sym is the CCM's symbols of the corpus (the model's, grown).
func (c *Corpus) Sym() *ccm.Symbols { return c.ccm.Sym }

// EStep is one joint E-step of m over the corpus: the DMV's expected
// counts over c.Tags, the CCM's, and the product's log-likelihood (in the
// CCM's counts). m may be another model over the same tags and symbols
// than the one that made c (a re-weighted one).
func (c *Corpus) EStep(m *Model, workers int) (*dmv.Params, *ccm.Counts) {
	_, p, _, err := m.table().Extend(c.names)
	if err != nil { // NewCorpus passed the same tags
		panic(err)
	}
	if c.es == nil {
		c.es = NewEStepper(c.dmv, c.ccm)
	}
	c.es.headChoice, c.es.rightFirst = m.headChoice, m.rightFirst
	c.es.order, c.es.flat = m.order, m.flat
	if m.Fn8 != nil {
		c.es.fn8 = m.Fn8.extend(m.Tags, c.Tags)
	}
	return c.es.EStep(p, m.CCM, workers)
}

// Parse is the Viterbi derivation of sentence k under the model that made
// the corpus, and whether the model gives the sentence probability 0 (an
// unsmoothed DMV's unseen attachment: then parsed by the fallback, as
// parse says). Safe for concurrent calls.
func (c *Corpus) Parse(m *Model, k int) (Parse, bool) {
	if m.general() {
		return m.parseGeneral(c.params, c.fn8, c.dmv.Sent(k, nil), c.ccm, k)
	}
	return parse(c.params, c.dmv.Sent(k, nil), m.CCM, c.ccm, k, m.headChoice, m.rightFirst)
}

// Tempered is the pair whose every probability p is p^β·skew^(1−β)
// (skew nil: p^β), both halves, for annealing's E-step; skew is over the
// same tags and symbols. It is not normalised.
func (m *Model) Tempered(beta float64, skew *Model) *Model {
	d := dmv.NewParams(m.DMV.T)
	var s [4][]float64
	if skew != nil {
		s = skew.DMV.Tables()
	}
	for i, tab := range m.DMV.Tables() {
		out := d.Tables()[i]
		for j, v := range tab {
			out[j] = math.Pow(v, beta)
			if skew != nil {
				out[j] *= math.Pow(s[i][j], 1-beta)
			}
		}
	}
	var sc *ccm.Model
	if skew != nil {
		sc = skew.CCM
	}
	t := &Model{Tags: m.Tags, DMV: d, CCM: m.CCM.Tempered(beta, sc), headChoice: m.headChoice, rightFirst: m.rightFirst, order: m.order, flat: m.flat}
	if m.Fn8 != nil {
		var sf *Fn8Params
		if skew != nil {
			sf = skew.Fn8
		}
		t.Fn8 = m.Fn8.tempered(beta, sf)
	}
	return t
}

// Fn8Counts is footnote 8's expected events of the last EStep over c.Tags
// (nil unless the model's order is Footnote8).
func (c *Corpus) Fn8Counts() *Fn8Params {
	if c.es == nil || c.es.order != Footnote8 {
		return nil
	}
	return c.es.fn8Counts
}

// LogProb is log P(s) of sentence k under the model that made the corpus:
// the product's inside probability, the term the E-step sums into its
// log-likelihood (−Inf when the DMV half gives every tree 0). Safe for
// concurrent calls.
func (c *Corpus) LogProb(m *Model, k int) float64 {
	n := c.ccm.Sentences[k].N
	if m.general() {
		f := flatFactors(n)
		if !m.flat {
			f = m.CCM.SpanFactors(c.ccm, k)
			if m.headChoice {
				f = headChoiceFactors(f, n)
			}
		}
		tags := c.dmv.Sent(k, nil)
		var fw *Fn8Weights
		if m.order == Footnote8 {
			fw = c.fn8.weights(tags)
		}
		return insideOrder(n, m.order, WeightsFromDMV(c.params, tags), fw, f).logProb()
	}
	f := m.CCM.SpanFactors(c.ccm, k)
	if m.headChoice {
		f = headChoiceFactors(f, n)
	}
	w := WeightsFromDMV(c.params, c.dmv.Sent(k, nil))
	w.RightFirst = m.rightFirst
	return Inside(n, w, f).LogProb()
}
