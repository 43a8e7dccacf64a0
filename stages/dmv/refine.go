package dmv

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/grind-nlp/grind/format"
)

// RefineEnding is the one refinement of tags a DMV model may carry (its
// header's "refine"): a token tagged TAG whose word ends in c (Ending)
// is TAG_c when the model has that tag, TAG otherwise. induce trains
// over such tags where the tags alone cannot tell a language's nouns'
// roles apart (bunsetsu Japanese: a NOUN ending in の modifies a noun, one
// in は, が or を a verb).
const RefineEnding = "ending"

// checkRefine refuses a refinement grind does not know.
func checkRefine(refine string) error {
	if refine != "" && refine != RefineEnding {
		return fmt.Errorf(`"refine" %q: the one refinement grind knows is %q`, refine, RefineEnding)
	}
	return nil
}

// Ending is the last character of word, its trailing punctuation dropped
// (した。 → た; a word all of punctuation keeps its last); "" for "".
func Ending(word string) string {
	w := strings.TrimRightFunc(word, unicode.IsPunct)
	if w == "" {
		w = word
	}
	_, size := utf8.DecodeLastRuneInString(w)
	return w[len(w)-size:]
}

// EndingTag is tag refined by word's ending: NOUN_の.
func EndingTag(tag, word string) string { return tag + "_" + Ending(word) }

// FrequentEndings lists, sorted, the refined tags (EndingTag) of the
// sentences' tokens that occur at least min times: the tags a refinement
// keeps (rarer pairs keep their bare tag).
func FrequentEndings(sents []*format.Sentence, min int) []string {
	seen := map[string]int{}
	for _, s := range sents {
		for i, t := range s.Tags {
			if i < len(s.Words) {
				seen[EndingTag(t, s.Words[i])]++
			}
		}
	}
	var kept []string
	for t, n := range seen {
		if n >= min {
			kept = append(kept, t)
		}
	}
	sort.Strings(kept)
	return kept
}

// RefineEndings is s's tags, each refined by its word's ending where
// keep says so (a new slice; s is not changed).
func RefineEndings(s *format.Sentence, keep func(tag string) bool) []string {
	tags := make([]string, len(s.Tags))
	for i, t := range s.Tags {
		tags[i] = t
		if i < len(s.Words) {
			if r := EndingTag(t, s.Words[i]); keep(r) {
				tags[i] = r
			}
		}
	}
	return tags
}

// Refined is s as the model reads it: a copy of s with its tags refined
// as the model's header says (where the model has the refined tag), or s
// itself for a model of the tags as they are.
func (t *Table) Refined(s *format.Sentence) *format.Sentence {
	if t.Refine == "" {
		return s
	}
	r := *s
	r.Tags = RefineEndings(s, func(tag string) bool {
		_, ok := t.Tags.Index(tag)
		return ok
	})
	return &r
}
