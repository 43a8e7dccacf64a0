package format

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// surface calls fn for each token of the text in order: a multiword
// token's form, or a word outside them (its tag when the sentence has no
// words), with the last word it covers (1-based).
func (s *Sentence) surface(fn func(form string, last int)) {
	forms := s.Words
	if forms == nil {
		forms = s.Tags
	}
	next := 0 // the multiword token due
	for w := 1; w <= len(forms); w++ {
		if next < len(s.Multiword) && s.Multiword[next].First == w {
			m := s.Multiword[next]
			fn(m.Form, m.Last)
			w = m.Last
			next++
			continue
		}
		fn(forms[w-1], w)
	}
}

// TokenText is the text the sentence's tokens make: each token's form,
// then a space unless NoSpaceAfter lists its last word. A sentence whose
// Text was lost with some of its words (conll2deps removing punctuation)
// gets this one; deps2conll writes it for a sentence without Text.
func (s *Sentence) TokenText() string {
	var b strings.Builder
	space := false
	s.surface(func(form string, last int) {
		if space {
			b.WriteByte(' ')
		}
		b.WriteString(form)
		_, listed := slices.BinarySearch(s.NoSpaceAfter, last)
		space = !listed
	})
	return b.String()
}

// SpacesFromText sets NoSpaceAfter from Text: each token's form must come
// next in the text, after white space or none, and the words after which
// none comes are listed; whether the last token is, the text cannot say,
// so its entry stays as it was. It returns false, changing nothing, when
// the text does not hold the forms so.
func (s *Sentence) SpacesFromText() bool {
	text, ok := strings.TrimLeftFunc(s.Text, unicode.IsSpace), true
	var noSpace []int
	prev := 0 // the last word of the token before
	s.surface(func(form string, last int) {
		if !ok {
			return
		}
		rest := strings.TrimLeftFunc(text, unicode.IsSpace)
		if prev > 0 && len(rest) == len(text) {
			noSpace = append(noSpace, prev)
		}
		text, ok = strings.CutPrefix(rest, form)
		prev = last
	})
	if !ok || strings.TrimSpace(text) != "" {
		return false
	}
	if _, listed := slices.BinarySearch(s.NoSpaceAfter, prev); listed {
		noSpace = append(noSpace, prev)
	}
	s.NoSpaceAfter = noSpace
	return true
}

// CheckText says where Text disagrees with the tokens, read as the UD
// validator reads a CoNLL-U sentence's "# text" (level 2): each token's
// form in turn, then white space unless NoSpaceAfter lists the token's
// last word, and nothing after the last token; no white space at the end
// and no line break. An empty Text agrees with anything (there is none).
func (s *Sentence) CheckText() error {
	text := s.Text
	if text == "" {
		return nil
	}
	if strings.ContainsAny(text, "\r\n") {
		return fmt.Errorf("text %q has a line break", text)
	}
	if r := []rune(text); unicode.IsSpace(r[len(r)-1]) {
		return fmt.Errorf("text %q ends with white space", text)
	}
	var err error
	k := 0
	s.surface(func(form string, last int) {
		k++
		if err != nil {
			return
		}
		rest, ok := strings.CutPrefix(text, form)
		if !ok {
			err = fmt.Errorf("text %q does not match token %d %q where it reads %q", s.Text, k, form, clipText(text, len(form)+10))
			return
		}
		if _, listed := slices.BinarySearch(s.NoSpaceAfter, last); !listed {
			if rest != "" && !unicode.IsSpace([]rune(rest)[0]) {
				err = fmt.Errorf("text %q has no space after token %d %q, which no_space_after does not list (word %d)", s.Text, k, form, last)
				return
			}
			rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
		}
		text = rest
	})
	if err == nil && text != "" {
		err = fmt.Errorf("text %q goes on after the last token: %q", s.Text, clipText(text, 30))
	}
	return err
}

// clipText is the first n bytes of s or fewer, whole runes.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
