package classes

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The rule for words a class model never saw: such a word takes the class
// most common among the training words seen once (hapaxes, the best
// stand-ins for unseen words; all words when there is none) that share
// its shape and its longest suffix of up to maxSuffix characters; failing
// that, its shape alone; failing that, the class most common among all
// of them. Ties go to the class that comes first in the model (the class
// of the most frequent word). The model keeps the answer for every
// (shape, suffix) it saw, as "unseen" records.

// maxSuffix is the longest suffix the rule looks at, in characters.
const maxSuffix = 3

// Shape sorts a word by its characters: "digit" (has a digit), "other"
// (no letter), "upper" (two or more letters, all capitals), "capital"
// (begins with a capital), "lower" (the rest).
func Shape(w string) string {
	var letters, upper, digits int
	for _, r := range w {
		switch {
		case unicode.IsDigit(r):
			digits++
		case unicode.IsLetter(r):
			letters++
			if unicode.IsUpper(r) {
				upper++
			}
		}
	}
	first, _ := utf8.DecodeRuneInString(w)
	switch {
	case digits > 0:
		return "digit"
	case letters == 0:
		return "other"
	case upper == letters && letters > 1:
		return "upper"
	case unicode.IsUpper(first):
		return "capital"
	}
	return "lower"
}

// suffixes are the lowercased word's last 1..maxSuffix characters, each
// shorter than the word, longest first.
func suffixes(w string) []string {
	runes := []rune(strings.ToLower(w))
	var out []string
	for n := min(maxSuffix, len(runes)-1); n >= 1; n-- {
		out = append(out, string(runes[len(runes)-n:]))
	}
	return out
}

// unseenKey is one entry of the rule: shape and suffix ("" for the shape
// alone; both "" for the last resort).
type unseenKey struct{ shape, suffix string }

// buildUnseen is the rule's table from the model's words: classOf[i] is
// the class (an index in class order) of word i, counts its count.
func buildUnseen(words []string, counts []int, classOf []int) map[unseenKey]int {
	rare := 1
	hasHapax := false
	for _, n := range counts {
		if n == rare {
			hasHapax = true
			break
		}
	}
	// The votes are kept sparse, a count per key and class that has one:
	// a table of every class for every key would be keys × classes, and
	// the keys grow with the hapaxes (their suffixes, in a script of many
	// characters, by the hundred thousand).
	type vote struct {
		key   unseenKey
		class int
	}
	votes := map[vote]int{}
	for i, w := range words {
		if hasHapax && counts[i] != rare {
			continue
		}
		c, sh := classOf[i], Shape(w)
		for _, suf := range suffixes(w) {
			votes[vote{unseenKey{sh, suf}, c}]++
		}
		votes[vote{unseenKey{sh, ""}, c}]++
		votes[vote{unseenKey{}, c}]++
	}
	// Each key's class is its most common, ties to the lower class.
	table := map[unseenKey]int{}
	most := map[unseenKey]int{}
	for v, n := range votes {
		if m := most[v.key]; n > m || n == m && v.class < table[v.key] {
			table[v.key], most[v.key] = v.class, n
		}
	}
	return table
}

// lookupUnseen applies the rule to a word the model does not know.
func lookupUnseen(table map[unseenKey]int, w string) int {
	sh := Shape(w)
	for _, suf := range suffixes(w) {
		if c, ok := table[unseenKey{sh, suf}]; ok {
			return c
		}
	}
	if c, ok := table[unseenKey{sh, ""}]; ok {
		return c
	}
	return table[unseenKey{}]
}
