package hmm

import (
	"errors"
	"fmt"
	"slices"

	"github.com/grind-nlp/grind/format"
)

// CheckGoldTags refuses a sentence whose gold tags (GoldTags: "gold_tags",
// else "tags") cannot be counted as the states of a supervised HMM: none
// at all, an empty one, or the boundary state's name.
func CheckGoldTags(s *format.Sentence) error {
	gold := GoldTags(s)
	if len(gold) == 0 {
		return errors.New(`sentence has no tags: --gold counts the gold tags ("tags" or "gold_tags") as the HMM's states`)
	}
	for i, t := range gold {
		switch t {
		case "":
			return fmt.Errorf("token %d has an empty gold tag", i+1)
		case Boundary:
			return fmt.Errorf("token %d has the gold tag %q, the HMM's sentence boundary, which --gold would make a state: give it another name (tagmap)", i+1, Boundary)
		}
	}
	return nil
}

// GoldStates are the distinct gold tags of c, sorted: the states of its
// supervised HMM, as of BuildDict's tag dictionary (train-hmm --dict).
func GoldStates(c *Corpus) []string {
	seen := map[string]bool{}
	var tags []string
	for _, s := range c.Source {
		for _, t := range GoldTags(s) {
			if !seen[t] {
				seen[t] = true
				tags = append(tags, t)
			}
		}
	}
	slices.Sort(tags)
	return tags
}

// GoldCounts are the counts of the transitions and emissions of the gold
// taggings of c's sentences (GoldTags) in an HMM of the order (1 bitag, 2
// trigram) over the states and c's words, with the boundary as the
// E-step's counts have it: each sentence of n tokens counts n + 1
// transitions, from the start context to its first tag and from its last
// context to the boundary (stop), and n emissions — the expected counts
// of an E-step whose posterior is the gold tagging, so that the M-step
// makes the supervised (relative-frequency, or add-λ) model. A gold tag
// that is none of the states is an error naming the sentence.
func GoldCounts(c *Corpus, order int, states []string) (*Params, error) {
	id := make(map[string]int, len(states))
	for i, t := range states {
		id[t] = i
	}
	s, err := NewSpace(order, len(states), len(c.Words), nil)
	if err != nil {
		return nil, err
	}
	p := NewParams(s)
	k, k1 := s.K, s.K+1
	for i, src := range c.Source {
		words, gold := c.Sents[i], GoldTags(src)
		if len(gold) != len(words) {
			return nil, fmt.Errorf("sentence %d (%s): %d gold tags for %d words", i+1, src.ID, len(gold), len(words))
		}
		prev2, prev1 := k, k
		for j := 0; j <= len(words); j++ {
			next := k
			if j < len(words) {
				t, ok := id[gold[j]]
				if !ok {
					return nil, fmt.Errorf("sentence %d (%s): token %d has the gold tag %q, which is none of the %d states", i+1, src.ID, j+1, gold[j], k)
				}
				next = t
				p.Emit[int(words[j])*k+t]++
			}
			p.Trans[s.Context(prev2, prev1)*k1+next]++
			prev2, prev1 = prev1, next
		}
	}
	return p, nil
}
