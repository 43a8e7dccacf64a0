package dmv

import (
	"fmt"
	"sort"
	"strings"
)

// Tags a model has not seen are parsed, counted and scored through one
// back-off rule: every unseen tag is the model's average tag, one extra
// class shared by all of them (as an unknown-word class is):
//
//   - as a head, its stop and cont probabilities and its child
//     distributions are the means of those of the model's tags;
//   - as a dependent (of a head, or of the root), its probability is the
//     mean of the model's tags' probabilities in that multinomial.
//
// The class's entries are not renormalised: a sentence whose tags the
// model knows keeps its own probability, and every unseen tag gets the
// class's numbers — the same whichever and however many unseen tags a
// corpus or a shard has — so the counts and log-likelihoods of shards add
// up to the whole corpus's. (Renormalising each dependent multinomial by
// t/(t+1) only when a corpus has an unseen tag made a shard's
// log-likelihood depend on whether it had one.) A sentence with an unseen
// tag thus scores (t+1)/t per attachment above the renormalised class;
// its parses and posteriors are the same either way, since every tree of
// the sentence shares that factor. Log-linear weights ("w") are averaged as weights.

// noTagKnownHint ends the refusal when no tag of the input is known to
// the model (another tag set): back-off would be guessing.
const noTagKnownHint = "tag sets differ? map the input's tags to the model's with tagmap (tagmap --builtin ptb2ud, ud1to2, ...)"

// NoTagKnown is the error for an input none of whose tags the model knows.
func NoTagKnown(sample []string) error {
	if len(sample) > 5 {
		sample = append(sample[:5:5], "...")
	}
	return fmt.Errorf("no tag of the input (%s) is known to the model: %s", strings.Join(sample, " "), noTagKnownHint)
}

// extendParams returns p over t+u tags: tags t..t+u−1 are the average
// tag, as the rule above says.
func extendParams(p *Params, u int) *Params {
	t := p.T
	q := NewValenceParams(t+u, p.V)
	if p.Backoff != nil {
		// An unseen head's back-off share is the average, as its child
		// entries are; an unseen argument's, the mean of its row's.
		avg := &Params{T: t, V: p.V, Root: p.Root, Child: p.Backoff, Stop: p.Stop, Cont: p.Cont}
		q.Backoff = extendParams(avg, u).Child
	}
	mean := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	copy(q.Root, p.Root)
	avgRoot := mean(p.Root)
	for a := t; a < t+u; a++ {
		q.Root[a] = avgRoot
	}
	// Average head: means over heads of each child entry and decision.
	avgChild := make([][]float64, 2*p.V.Child) // [dir·V.Child + valence]
	for dir := Left; dir <= Right; dir++ {
		for v := 0; v < p.V.Child; v++ {
			avg := make([]float64, t)
			for h := 0; h < t; h++ {
				for a := 0; a < t; a++ {
					avg[a] += p.Child[p.ChildAt(h, dir, v, a)] / float64(t)
				}
			}
			avgChild[dir*p.V.Child+v] = avg
		}
	}
	for h := 0; h < t+u; h++ {
		for dir := Left; dir <= Right; dir++ {
			for v := 0; v < p.V.Child; v++ {
				row := avgChild[dir*p.V.Child+v]
				if h < t {
					row = p.Child[p.ChildAt(h, dir, v, 0):p.ChildAt(h, dir, v, t)]
				}
				copy(q.Child[q.ChildAt(h, dir, v, 0):], row)
				m := mean(row)
				for a := t; a < t+u; a++ {
					q.Child[q.ChildAt(h, dir, v, a)] = m
				}
			}
			for v := 0; v < p.V.Stop; v++ {
				i := q.DecisionAt(h, dir, v)
				if h < t {
					q.Stop[i], q.Cont[i] = p.Stop[p.DecisionAt(h, dir, v)], p.Cont[p.DecisionAt(h, dir, v)]
					continue
				}
				for k := 0; k < t; k++ {
					q.Stop[i] += p.Stop[p.DecisionAt(k, dir, v)] / float64(t)
					q.Cont[i] += p.Cont[p.DecisionAt(k, dir, v)] / float64(t)
				}
			}
		}
	}
	return q
}

// Extend returns the model over its own tags and the tags of names it
// does not know (sorted together, as a model file of those tags would
// be), the unseen ones given the average tag's parameters, and the list of unseen tags. It refuses (NoTagKnown) when names is not empty and
// none of them is known.
func (t *Table) Extend(names []string) (*TagSet, *Params, []string, error) {
	var unseen []string
	known := false
	seen := map[string]bool{}
	for _, n := range names {
		if _, ok := t.Tags.Index(n); ok {
			known = true
		} else if !seen[n] {
			seen[n] = true
			unseen = append(unseen, n)
		}
	}
	if len(names) > 0 && !known {
		sort.Strings(unseen)
		return nil, nil, nil, NoTagKnown(unseen)
	}
	if len(unseen) == 0 {
		return t.Tags, t.Params, nil, nil
	}
	sort.Strings(unseen)
	all := NewTagSet(append(append([]string(nil), t.Tags.Names()...), unseen...)...)
	ext := extendParams(t.Params, len(unseen))
	ts := SortedTagSet(all.Names())
	p, err := AlignTags(ts, all, ext)
	return ts, p, unseen, err
}

// CorpusTags lists the distinct tags of tag sequences in the order first
// met.
func CorpusTags(seqs [][]string) []string {
	seen := map[string]bool{}
	var names []string
	for _, s := range seqs {
		for _, tag := range s {
			if !seen[tag] {
				seen[tag] = true
				names = append(names, tag)
			}
		}
	}
	return names
}
