package tageval

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	"github.com/grind-nlp/grind/stages/score"
)

// The error analyses of score-tags --analysis, from the contingency table
// of (gold, induced) tokens: the confusion of the induced tags with the
// gold ones under the many-to-1 and 1-to-1 maps, precision, recall and F1
// of each gold tag under each map, the tokens of each tag sorted by size
// (Johnson 2007: EM's states are far more uniform in size than the gold
// tags) and the most frequent words of each induced tag (Klein 2005,
// Fig. 5.9's listing of the members of the classes found). README
// "score-tags" gives the fields.

// Analysis names one analysis of --analysis.
type Analysis string

// The analyses.
const (
	AnalysisConfusion Analysis = "confusion"
	AnalysisTags      Analysis = "tags"
	AnalysisSizes     Analysis = "sizes"
	AnalysisWords     Analysis = "words"
)

// Analyses lists every analysis, in the order the report shows them.
var Analyses = []Analysis{AnalysisConfusion, AnalysisTags, AnalysisSizes, AnalysisWords}

// ParseAnalyses reads the values of --analysis as score's are read:
// names separated by commas, repeatable, "all" for every one the
// sentences allow (all is then true).
func ParseAnalyses(values []string) ([]Analysis, bool, error) {
	return score.ParseNames(values, Analyses)
}

// DefaultWords is how many words of each induced tag the words analysis
// keeps unless told.
const DefaultWords = 10

// ErrorAnalyses are the fields of the analyses, each absent unless asked
// for: score-tags --analysis and report --json write them.
type ErrorAnalyses struct {
	Confusion *Confusion     `json:"confusion,omitempty"`
	ByGoldTag *[]GoldTagRow  `json:"by_gold_tag,omitempty"`
	Sizes     *Sizes         `json:"sizes,omitempty"`
	Words     *[]InducedWord `json:"words,omitempty"`
}

// TagCount is a tag and its tokens, with their share of some whole (a
// row's tokens, or every token).
type TagCount struct {
	Tag    string  `json:"tag"`
	Tokens int     `json:"tokens"`
	Share  float64 `json:"share"`
}

// Confusion is the contingency table of gold and induced tags read both
// ways, every non-empty cell, rows and cells by tokens (ties by name).
type Confusion struct {
	Induced []InducedRow `json:"induced"`
	Gold    []GoldRow    `json:"gold"`
}

// InducedRow is one induced tag: its tokens, the gold tag the many-to-1
// map and the greedy 1-to-1 map give it ("" when 1-to-1 leaves it
// unpaired), and the gold tags of its tokens, shares of its tokens.
type InducedRow struct {
	Tag       string     `json:"tag"`
	Tokens    int        `json:"tokens"`
	ManyToOne string     `json:"many_to_1"`
	OneToOne  string     `json:"one_to_1,omitempty"`
	Gold      []TagCount `json:"gold"`
}

// GoldRow is one gold tag: its tokens and the induced tags they are
// spread over, shares of its tokens.
type GoldRow struct {
	Tag     string     `json:"tag"`
	Tokens  int        `json:"tokens"`
	Induced []TagCount `json:"induced"`
}

// GoldTagRow is one gold tag's precision, recall and F1 when every token
// is given the gold tag its induced tag maps to: under the many-to-1 map
// (ManyToOneTags induced tags map to it) and under the greedy 1-to-1 one;
// and, when the induced tags are named by the gold ones (Report.Accuracy
// is given), under the names themselves.
type GoldTagRow struct {
	Tag           string     `json:"tag"`
	Tokens        int        `json:"tokens"`
	ManyToOneTags int        `json:"many_to_1_tags"`
	ManyToOne     score.PRF  `json:"many_to_1"`
	OneToOne      score.PRF  `json:"one_to_1"`
	Named         *score.PRF `json:"named,omitempty"`
}

// Sizes are the gold tags and the induced ones, each by tokens, largest
// first, shares of every token.
type Sizes struct {
	Gold    []TagCount `json:"gold"`
	Induced []TagCount `json:"induced"`
}

// InducedWord is one induced tag's most frequent words: its tokens that
// have a word, how many distinct words they are, its many-to-1 gold tag,
// and the first words by tokens (ties by word), shares of its tokens.
type InducedWord struct {
	Tag       string      `json:"tag"`
	Tokens    int         `json:"tokens"`
	Types     int         `json:"types"`
	ManyToOne string      `json:"many_to_1"`
	Words     []WordCount `json:"words"`
}

// WordCount is a word and its tokens in an induced tag.
type WordCount struct {
	Word   string  `json:"word"`
	Tokens int     `json:"tokens"`
	Share  float64 `json:"share"`
}

// errNoWords: the words analysis asked for sentences without words.
var errNoWords = errors.New(`--analysis words: no sentence has "words" to list`)

// analyse fills r's analyses from c's table; r holds c's measures
// already (its 1-to-1 map).
func (c *Counter) analyse(r *Report, o Options) error {
	cells := c.sortedCells()
	goldN, indN := make([]int, len(c.gold)), make([]int, len(c.ind))
	manyToOne := make([]int, len(c.ind)) // induced → gold
	seen := make([]bool, len(c.ind))
	for _, x := range cells {
		goldN[x.g] += x.n
		indN[x.i] += x.n
		if !seen[x.i] {
			seen[x.i], manyToOne[x.i] = true, x.g
		}
	}
	for _, a := range o.Analyses {
		switch a {
		case AnalysisConfusion:
			r.Confusion = c.confusion(cells, goldN, indN, manyToOne, r.OneToOneMap)
		case AnalysisTags:
			rows := c.byGoldTag(cells, goldN, manyToOne, r)
			r.ByGoldTag = &rows
		case AnalysisSizes:
			r.Sizes = &Sizes{Gold: bySize(c.gold, goldN, c.tokens), Induced: bySize(c.ind, indN, c.tokens)}
		case AnalysisWords:
			if len(c.classWords) == 0 {
				if o.AllAnalyses {
					continue
				}
				return errNoWords
			}
			rows := c.inducedWords(manyToOne, o.Words)
			r.Words = &rows
		}
	}
	return nil
}

// bySize are the tags with their tokens, largest first (ties by name),
// shares of total.
func bySize(names []string, counts []int, total int) []TagCount {
	out := make([]TagCount, len(names))
	for k, name := range names {
		out[k] = TagCount{Tag: name, Tokens: counts[k], Share: share(counts[k], total)}
	}
	sortBySize(out, func(t TagCount) (int, string) { return t.Tokens, t.Tag })
	return out
}

// sortBySize sorts rows by their tokens, most first, ties by name.
func sortBySize[T any](rows []T, key func(T) (int, string)) {
	slices.SortFunc(rows, func(a, b T) int {
		na, sa := key(a)
		nb, sb := key(b)
		return cmp.Or(nb-na, strings.Compare(sa, sb))
	})
}

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

func (c *Counter) confusion(cells []cell, goldN, indN, manyToOne []int, oneToOne map[string]string) *Confusion {
	// The cells are sorted by tokens then names, so each row's cells come
	// out in that order as they are appended.
	indRows := make([]InducedRow, len(c.ind))
	goldRows := make([]GoldRow, len(c.gold))
	for i, name := range c.ind {
		indRows[i] = InducedRow{Tag: name, Tokens: indN[i], ManyToOne: c.gold[manyToOne[i]], OneToOne: oneToOne[name]}
	}
	for g, name := range c.gold {
		goldRows[g] = GoldRow{Tag: name, Tokens: goldN[g]}
	}
	for _, x := range cells {
		indRows[x.i].Gold = append(indRows[x.i].Gold, TagCount{Tag: c.gold[x.g], Tokens: x.n, Share: share(x.n, indN[x.i])})
		goldRows[x.g].Induced = append(goldRows[x.g].Induced, TagCount{Tag: c.ind[x.i], Tokens: x.n, Share: share(x.n, goldN[x.g])})
	}
	sortBySize(indRows, func(r InducedRow) (int, string) { return r.Tokens, r.Tag })
	sortBySize(goldRows, func(r GoldRow) (int, string) { return r.Tokens, r.Tag })
	return &Confusion{Induced: indRows, Gold: goldRows}
}

// byGoldTag scores each gold tag under each map: a token is predicted as
// gold tag g when its induced tag maps to g, and right when its gold tag
// is g too.
func (c *Counter) byGoldTag(cells []cell, goldN, manyToOne []int, r *Report) []GoldTagRow {
	type tally struct{ correct, predicted int }
	m1, o1, named := make([]tally, len(c.gold)), make([]tally, len(c.gold)), make([]tally, len(c.gold))
	mapped := make([]int, len(c.gold))
	for _, g := range manyToOne {
		mapped[g]++
	}
	count := func(t []tally, to string, x cell) {
		if g, ok := c.goldID[to]; ok {
			t[g].predicted += x.n
			if g == x.g {
				t[g].correct += x.n
			}
		}
	}
	for _, x := range cells {
		count(m1, c.gold[manyToOne[x.i]], x)
		count(o1, r.OneToOneMap[c.ind[x.i]], x) // "" for an unpaired tag: no gold tag
		count(named, c.ind[x.i], x)
	}
	rows := make([]GoldTagRow, len(c.gold))
	for g, name := range c.gold {
		rows[g] = GoldTagRow{Tag: name, Tokens: goldN[g], ManyToOneTags: mapped[g],
			ManyToOne: score.NewPRF(m1[g].correct, m1[g].predicted, goldN[g]),
			OneToOne:  score.NewPRF(o1[g].correct, o1[g].predicted, goldN[g])}
		if r.Accuracy != nil {
			p := score.NewPRF(named[g].correct, named[g].predicted, goldN[g])
			rows[g].Named = &p
		}
	}
	sortBySize(rows, func(r GoldTagRow) (int, string) { return r.Tokens, r.Tag })
	return rows
}

// inducedWords lists the first keep words (0: every one) of each induced
// tag that has words, largest tag first.
func (c *Counter) inducedWords(manyToOne []int, keep int) []InducedWord {
	var rows []InducedWord
	for i, words := range c.classWords {
		row := InducedWord{Tag: c.ind[i], Types: len(words), ManyToOne: c.gold[manyToOne[i]]}
		for w, n := range words {
			row.Tokens += n
			row.Words = append(row.Words, WordCount{Word: w, Tokens: n})
		}
		sortBySize(row.Words, func(w WordCount) (int, string) { return w.Tokens, w.Word })
		if keep > 0 && len(row.Words) > keep {
			row.Words = row.Words[:keep]
		}
		for k := range row.Words {
			row.Words[k].Share = share(row.Words[k].Tokens, row.Tokens)
		}
		rows = append(rows, row)
	}
	sortBySize(rows, func(r InducedWord) (int, string) { return r.Tokens, r.Tag })
	return rows
}
