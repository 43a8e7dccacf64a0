// Package modelu is Smith's Model U (Smith 2006, §4.8; App. A.3): a
// log-linear model of undirected projective dependency trees that
// corresponds to no stochastic process, trained by contrastive
// estimation (train-ce --family modelu). In Smith's words (eq. 4.25), "a
// feature fires for every edge in the tree, and the total score of a
// tree is a product of weights, one per edge":
//
//	p(x, y) ∝ exp Σ_{⟨i,j⟩ ∈ y} θ_edge(x_i, x_j),   0 < i < j ≤ |x|
//
// the edge's feature naming the tags of its left and its right word (the
// pair is ordered by position, not by head and child: A.3 multiplies in
// λ_⟨x_{I+1}, x_K⟩ whichever way the link points). With Spelling, the
// features of §4.8.3 join: "tag x precedes and is linked to a word with
// suffix s", s of 1–3 characters, the similar "follows" features and the
// same for prefixes, letters lowercased and digits collapsed to 0.
//
// The trees: Smith's program fixes the root at the first word, so Y_x is
// every projective tree rooted at x_1 — every undirected tree whose edges
// do not cross, each once. (§4.8.1 says Y_x is "exactly 1/|x| times" Model
// A's; for 3 words it is 3 trees against Model A's 7, so that is not
// exact; the tests count 1, 1, 3, 12, 55 trees for 1–5 words.)
//
// Only features that fire on some pair of words of a training sentence
// are represented (Smith's footnote 17); the others weigh 0 and stay so.
package modelu

import "github.com/grind-nlp/grind/stages/modelu/affix"

// Family is the header family of a Model U file.
const Family = "modelu"

// Feature kinds.
const (
	KindEdge       = 0 // tag of the left word, tag of the right word
	KindRightAffix = 1 // tag of the left word, an affix of the right word
	KindLeftAffix  = 2 // an affix of the left word, tag of the right word
)

// Key is a feature: its kind and two ids (tags or affixes, by kind).
// Twelve bytes without padding, which a map hashes as memory (with a
// uint8 kind, through a hash function of its fields: a fifth of reading a
// spelling model).
type Key struct {
	Kind, A, B int32
}

// Symbol is a token type: a tag and, with spelling, its word's affixes.
type Symbol struct {
	Tag     int   // −1: a tag the model does not know
	Affixes []int // affix ids (−1 entries dropped)
}

// Model is Model U's features and weights.
type Model struct {
	Tags     []string
	Spelling bool
	Affixes  []string
	Keys     []Key // feature id → key
	Theta    []float64
	Nbhd     string // the neighbourhood it was trained with

	tagID   map[string]int
	affixID map[string]int
	feat    map[Key]int
}

// New is a model over tags with no features yet.
func New(tags []string, spelling bool) *Model {
	m := &Model{Tags: tags, Spelling: spelling}
	m.finish()
	return m
}

func (m *Model) finish() {
	m.tagID = make(map[string]int, len(m.Tags))
	for i, t := range m.Tags {
		m.tagID[t] = i
	}
	m.affixID = make(map[string]int, len(m.Affixes))
	for i, a := range m.Affixes {
		m.affixID[a] = i
	}
	m.feat = make(map[Key]int, len(m.Keys))
	for i, k := range m.Keys {
		m.feat[k] = i
	}
}

// Tag is the id of a tag (−1: unknown).
func (m *Model) Tag(t string) int {
	if i, ok := m.tagID[t]; ok {
		return i
	}
	return -1
}

// Affixes names the spelling affixes of a word (affix.Of): "-s" a
// suffix, "s-" a prefix, of 1 to 3 characters, the word lowercased and
// its digits made 0.
func Affixes(word string) []string { return affix.Of(word) }

// Symbol is the token type of a tag and word; add says whether affixes
// the model has not seen get ids (training) or are dropped.
func (m *Model) Symbol(tag, word string, add bool) Symbol {
	s := Symbol{Tag: m.Tag(tag)}
	if !m.Spelling {
		return s
	}
	for _, a := range Affixes(word) {
		id, ok := m.affixID[a]
		if !ok {
			if !add {
				continue
			}
			id = len(m.Affixes)
			m.Affixes = append(m.Affixes, a)
			m.affixID[a] = id
		}
		s.Affixes = append(s.Affixes, id)
	}
	return s
}

// keys calls fn with every feature key of an edge between symbols s
// (left) and t (right).
func (m *Model) keys(s, t Symbol, fn func(Key)) {
	if s.Tag >= 0 && t.Tag >= 0 {
		fn(Key{KindEdge, int32(s.Tag), int32(t.Tag)})
	}
	if !m.Spelling {
		return
	}
	if s.Tag >= 0 {
		for _, f := range t.Affixes {
			fn(Key{KindRightAffix, int32(s.Tag), int32(f)})
		}
	}
	if t.Tag >= 0 {
		for _, f := range s.Affixes {
			fn(Key{KindLeftAffix, int32(f), int32(t.Tag)})
		}
	}
}

// AddFeatures represents every feature of an edge between s and t
// (Smith's footnote 17: those of some pair of a training sentence).
func (m *Model) AddFeatures(s, t Symbol) {
	m.keys(s, t, func(k Key) {
		if _, ok := m.feat[k]; !ok {
			m.add(k, 0)
		}
	})
}

// add gives m feature k, of weight w.
func (m *Model) add(k Key, w float64) {
	m.feat[k] = len(m.Keys)
	m.Keys = append(m.Keys, k)
	m.Theta = append(m.Theta, w)
}

// Features appends to dst the ids of the represented features of an edge
// between s (left) and t (right).
func (m *Model) Features(s, t Symbol, dst []int32) []int32 {
	m.keys(s, t, func(k Key) {
		if i, ok := m.feat[k]; ok {
			dst = append(dst, int32(i))
		}
	})
	return dst
}

// Score is the log potential of an edge between s (left) and t (right).
func (m *Model) Score(theta []float64, s, t Symbol) float64 {
	v := 0.0
	m.keys(s, t, func(k Key) {
		if i, ok := m.feat[k]; ok {
			v += theta[i]
		}
	})
	return v
}

// Name is a feature's name as Smith writes spelling features:
// "DT/NN" an edge (the left word's tag first), "CD/-%" a tag that
// precedes and is linked to a word with suffix %, "-%/TO" such a word
// before a TO.
func (m *Model) Name(i int) string {
	k := m.Keys[i]
	switch k.Kind {
	case KindEdge:
		return m.Tags[k.A] + "/" + m.Tags[k.B]
	case KindRightAffix:
		return m.Tags[k.A] + "/" + m.Affixes[k.B]
	default:
		return m.Affixes[k.A] + "/" + m.Tags[k.B]
	}
}
