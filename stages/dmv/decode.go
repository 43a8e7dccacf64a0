package dmv

import (
	"math"
)

// Floor is the weight a decoder gives to events of probability 0 when the
// model leaves a sentence no tree at all (an unseen tag, an unsmoothed
// model): the best tree then uses as few impossible events as it can.
const Floor = 1e-300

// Decoder parses sentences with a model: Viterbi (the most probable tree)
// or minimum Bayes risk (the tree with the most expected correct
// attachments). Tags the model does not know share one extra tag, the
// model's average tag (backoff.go). A sentence the model gives no tree at
// all (an unsmoothed model's unseen events) is parsed with every weight
// of 0 raised to Floor, counted as a fallback; one whose weights no
// floating-point scale can hold (only extreme log-linear weights do that)
// gets the right-branching tree, counted as a fallback too.
type Decoder struct {
	tags    *TagSet
	w       *Params
	floored *Params
	unknown int
}

// NewDecoder decodes with weight table w (potentials) over tags; the
// average tag is the mean of the potentials, which for a probability
// model is the mean of its probabilities. Decoders of model files come
// from Table.Decoder, which averages a log-linear model as weights.
func NewDecoder(tags *TagSet, w *Params) *Decoder {
	return newDecoder(tags, extendParams(w, 1))
}

// Decoder decodes with the model t: its unseen tags as the average tag of
// its own unit (backoff.go), so that decode, select-model and estep agree.
func (t *Table) Decoder() (*Decoder, error) {
	ext := &Table{Tags: t.Tags, Params: extendParams(t.Params, 1), Unit: t.Unit}
	pot, err := ext.Potentials()
	if err != nil {
		return nil, err
	}
	return newDecoder(t.Tags, pot), nil
}

// newDecoder decodes with potentials ext over the tags and one more, the
// average tag.
func newDecoder(tags *TagSet, ext *Params) *Decoder {
	floored := ext.Clone()
	floored.apply(func(v float64) float64 { return math.Max(v, Floor) })
	return &Decoder{tags: tags, w: ext, floored: floored, unknown: tags.Len()}
}

// Known says whether the model knows tag.
func (d *Decoder) Known(tag string) bool {
	_, ok := d.tags.Index(tag)
	return ok
}

// Encode maps tags to the decoder's numbers; unknown tags get the
// average tag. It reports how many tags were unknown.
func (d *Decoder) Encode(tags []string, dst []int) ([]int, int) {
	dst, unknown := dst[:0], 0
	for _, t := range tags {
		i, ok := d.tags.Index(t)
		if !ok {
			i = d.unknown
			unknown++
		}
		dst = append(dst, i)
	}
	return dst, unknown
}

// Decode writes the tree of tags (encoded) to heads and returns the log
// weight of the sentence under the model (log Z for MBR, the best tree's
// for Viterbi), and whether the fallback for probability-0 sentences was
// needed. With a BoundedChart for c the tree is the best within its
// depth bound.
func (d *Decoder) Decode(c TreeChart, tags, heads []int, mbr bool) (logWeight float64, fellBack bool) {
	for _, w := range [2]*Params{d.w, d.floored} {
		c.Load(tags, w, nil)
		if !mbr {
			if lw := c.Viterbi(heads); !math.IsInf(lw, -1) && !math.IsNaN(lw) {
				return lw, fellBack
			}
		} else if lz := c.Inside(); c.Outside() {
			c.DecodeMBR(heads)
			return lz, fellBack
		}
		fellBack = true
	}
	// The floored weights give every tree a positive weight, so only
	// weights no scale can hold end here: the right-branching tree.
	for i := range tags {
		heads[i] = i + 2
	}
	heads[len(tags)-1] = 0
	return math.NaN(), true
}

// DecodeMBR writes to heads the projective tree that maximises the sum
// of the posteriors of its attachments (root included), computed by the
// last Outside: the same chart, run in the max-product semiring over
// exp(posterior).
func (c *Chart) DecodeMBR(heads []int) {
	n := c.n
	edge, root := make([]float64, n*n), make([]float64, n)
	for h := 0; h < n; h++ {
		for d := 0; d < n; d++ {
			if d != h {
				edge[h*n+d] = c.EdgePosterior(h, d)
			}
		}
		root[h] = c.RootPosterior(h)
	}
	c.LoadScores(n, edge, root)
	c.Viterbi(heads)
}
