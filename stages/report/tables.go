package report

import (
	"fmt"
	"sort"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/score"
)

// Row is one line of a breakdown: the tokens of one group, scored by
// stages/score under both conventions.
type Row struct {
	Key   string
	Tally score.Tally
}

// Tables are the accuracy breakdowns of one run.
type Tables struct {
	Total score.Tally
	// ByTag groups tokens by their gold tag; ByPair by the tags of their
	// gold arc, head → dependent ("ROOT" for the root); ByLength by the
	// length of their gold arc, |head − dependent| ("root" for the root).
	ByTag, ByPair, ByLength []Row
}

// RootKey names the root in tag pairs and arc lengths.
const RootKey = "ROOT"

// Breakdown scores the sentences of one run. Rows are sorted by how many
// tokens they hold, most first, ties by key; lengths in increasing order.
func Breakdown(sentences []*format.Sentence) Tables {
	var t Tables
	tags := map[string]*score.Tally{}
	pairs := map[string]*score.Tally{}
	lengths := map[int]*score.Tally{}
	get := func(m map[string]*score.Tally, k string) *score.Tally {
		if m[k] == nil {
			m[k] = &score.Tally{}
		}
		return m[k]
	}
	for _, s := range sentences {
		t.Total.Add(s.Heads, s.Pred)
		for i, h := range s.Heads {
			get(tags, s.Tags[i]).AddToken(s.Heads, s.Pred, i)
			head := RootKey
			length := 0
			if h != 0 {
				head = s.Tags[h-1]
				length = max(h-1-i, i-(h-1))
			}
			get(pairs, head+" → "+s.Tags[i]).AddToken(s.Heads, s.Pred, i)
			if lengths[length] == nil {
				lengths[length] = &score.Tally{}
			}
			lengths[length].AddToken(s.Heads, s.Pred, i)
		}
	}
	t.ByTag = byCount(tags)
	t.ByPair = byCount(pairs)
	ls := make([]int, 0, len(lengths))
	for l := range lengths {
		ls = append(ls, l)
	}
	sort.Ints(ls)
	for _, l := range ls {
		key := fmt.Sprint(l)
		if l == 0 {
			key = "root"
		}
		t.ByLength = append(t.ByLength, Row{key, *lengths[l]})
	}
	return t
}

func byCount(m map[string]*score.Tally) []Row {
	rows := make([]Row, 0, len(m))
	for k, t := range m {
		rows = append(rows, Row{k, *t})
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Tally.Tokens != rows[j].Tally.Tokens {
			return rows[i].Tally.Tokens > rows[j].Tally.Tokens
		}
		return rows[i].Key < rows[j].Key
	})
	return rows
}
