// Package affix is Model U's spelling (Smith 2006, §4.8.3): the affixes
// a word's spelling features name, apart from the model so that nbhd,
// which the model's package uses, can spell a neighbourhood's tokens as
// the model tells them apart.
package affix

import (
	"strings"
	"unicode"
)

// Of names the spelling affixes of a word as Smith's list writes them:
// "-s" a suffix, "s-" a prefix, of 1 to 3 characters, the word
// lowercased and its digits made 0.
func Of(word string) []string {
	r := []rune(strings.Map(func(c rune) rune {
		if unicode.IsDigit(c) {
			return '0'
		}
		return unicode.ToLower(c)
	}, word))
	var out []string
	for n := 1; n <= 3 && n <= len(r); n++ {
		out = append(out, "-"+string(r[len(r)-n:]))
	}
	for n := 1; n <= 3 && n <= len(r); n++ {
		out = append(out, string(r[:n])+"-")
	}
	return out
}

// Token is the symbol of a tagged word as Model U's spelling features see
// it: its tag and its affixes. Two words of one tag and the same affixes
// ("1990" and "1989", both "-0", "-00", …) are one symbol, so a
// neighbourhood spells the strings they differ in once.
func Token(tag, word string) string {
	var b strings.Builder
	b.WriteString(tag)
	for _, a := range Of(word) {
		b.WriteByte(0)
		b.WriteString(a)
	}
	return b.String()
}
