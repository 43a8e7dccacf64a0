// Package ccm is the Constituent-Context Model (Klein 2005, ch. 5; Klein &
// Manning 2002): every span of a tag sequence, empty spans included, has a
// yield (its tags) and a context (the tags on either side, with a boundary
// symbol beyond the sentence), and a bracketing marks each span a
// constituent or a distituent:
//
//	P(s, B) = P_bin(B) · Π_{0≤i≤j≤n} P(α_ij | B_ij) · P(x_ij | B_ij)
//
// with P_bin uniform over binary bracketings. The package holds the
// corpus with its interned yields and contexts, the model's four
// multinomials as dense tables, the O(n³) inside–outside program over
// binary bracketings, the E-step over a corpus (deterministic for any
// number of workers), the smoothed M-step, the starts, EM, and the
// Viterbi and MBR decoders. Smith & Eisner's (2004) model 2, whose yield
// is conditioned on its length, is a variant.
package ccm

import (
	"encoding/binary"
	"fmt"

	"github.com/grind-nlp/grind/format"
)

// Boundary is the tag of the positions beyond both sentence edges.
const Boundary = "<>"

// Symbols interns tags, yields (tag sequences, the empty one included) and
// contexts (pairs of tags); the model's tables are indexed by these ids.
// A test corpus is built with its training corpus's Symbols, which grow.
type Symbols struct {
	tagID    map[string]int32
	tags     []string
	yieldID  map[string]int32
	yields   []string // the key: two bytes per tag id
	yieldLen []int32
	ctxID    map[[2]int32]int32
	contexts [][2]int32
}

// EmptyYield is the id of the empty yield.
const EmptyYield = 0

// NewSymbols starts a table with the boundary tag as tag 0 and the empty
// yield as yield EmptyYield.
func NewSymbols() *Symbols {
	s := &Symbols{tagID: map[string]int32{}, yieldID: map[string]int32{}, ctxID: map[[2]int32]int32{}}
	s.tag(Boundary)
	s.yield(nil)
	return s
}

func (s *Symbols) tag(name string) int32 {
	if id, ok := s.tagID[name]; ok {
		return id
	}
	id := int32(len(s.tags))
	s.tagID[name] = id
	s.tags = append(s.tags, name)
	return id
}

func (s *Symbols) yield(key []byte) int32 {
	if id, ok := s.yieldID[string(key)]; ok {
		return id
	}
	id, k := int32(len(s.yields)), string(key) // one copy for the map and the list
	s.yieldID[k] = id
	s.yields = append(s.yields, k)
	s.yieldLen = append(s.yieldLen, int32(len(key)/2))
	return id
}

func (s *Symbols) context(left, right int32) int32 {
	k := [2]int32{left, right}
	if id, ok := s.ctxID[k]; ok {
		return id
	}
	id := int32(len(s.contexts))
	s.ctxID[k] = id
	s.contexts = append(s.contexts, k)
	return id
}

// NumYields and NumContexts are the sizes of the model's tables.
func (s *Symbols) NumYields() int   { return len(s.yields) }
func (s *Symbols) NumContexts() int { return len(s.contexts) }

// YieldLen is the number of tags of yield y.
func (s *Symbols) YieldLen(y int) int { return int(s.yieldLen[y]) }

// Yield is the tags of yield y (none for the empty yield).
func (s *Symbols) Yield(y int) []string { return s.appendYield(nil, y) }

// appendYield appends the tags of yield y to dst.
func (s *Symbols) appendYield(dst []string, y int) []string {
	key := s.yields[y]
	for i := 0; i < len(key); i += 2 {
		dst = append(dst, s.tags[binary.LittleEndian.Uint16([]byte(key[i:]))])
	}
	if dst == nil {
		dst = []string{} // the empty yield is [], not absent
	}
	return dst
}

// Context is the tags before and after context x (Boundary at an edge).
func (s *Symbols) Context(x int) (before, after string) {
	c := s.contexts[x]
	return s.tags[c[0]], s.tags[c[1]]
}

// Sentence is one sentence of a Corpus: its spans are numbered
// Off + i·(N+1) + j for 0 ≤ i ≤ j ≤ N (entries with i > j unused).
type Sentence struct {
	N   int
	Off int
}

// Span is the corpus-wide number of span [i, j) of s.
func (s Sentence) Span(i, j int) int { return s.Off + i*(s.N+1) + j }

// Corpus is a set of tag sequences with every span's yield and context
// interned, ready for any number of E-steps.
type Corpus struct {
	Sym       *Symbols
	Sentences []Sentence
	Yield     []int32 // per span; unused entries are −1
	Context   []int32
	Tokens    int
	MaxLen    int

	// The spans of each yield and context, made by index on first use.
	yieldN, contextN []float64
	yieldSpans       idSpans
	contextSpans     idSpans
	post             []float64  // EStep's posteriors
	pairs            pairTables // the batched E-step's model tables
	// The sentences by length and where each batch of the batched E-step
	// starts among them (batches); the batches' spans' yield and context
	// ids in the order the lanes read them, and where each batch's ids
	// start (laneSpans, on first use).
	order, batchStart []int32
	laneIDs           [][2]int32
	laneIDStart       []int32
	// The lanes' posteriors (laneSpans's layout), where each batch's
	// posteriors start there, and their number.
	lanePost      []float64
	lanePostStart []int32
	lanePostSize  int
}

// CheckSentence refuses a sentence the CCM cannot read: one with the
// boundary tag among its tags, which the model's contexts would take for
// a sentence edge and its readers refuse inside a yield.
func CheckSentence(s *format.Sentence) error {
	for i, t := range s.Tags {
		if t == Boundary {
			return fmt.Errorf("token %d has the tag %q, the CCM's mark of a sentence edge: give it another name (tagmap)", i+1, Boundary)
		}
	}
	return nil
}

// maxTags keeps tag ids in the two bytes of a yield key.
const maxTags = 1 << 16

// NewCorpus interns the spans of the tag sequences in sym (a new table when
// nil). Empty sentences are an error.
func NewCorpus(tags [][]string, sym *Symbols) (*Corpus, error) {
	if sym == nil {
		sym = NewSymbols()
	}
	c := &Corpus{Sym: sym}
	spans := 0
	for _, sent := range tags {
		spans += (len(sent) + 1) * (len(sent) + 1)
	}
	c.Yield, c.Context = make([]int32, 0, spans), make([]int32, 0, spans)
	var ids []int32
	var key []byte
	for k, sent := range tags {
		n := len(sent)
		if n == 0 {
			return nil, fmt.Errorf("sentence %d has no tokens", k+1)
		}
		ids = ids[:0]
		for _, t := range sent {
			ids = append(ids, sym.tag(t))
		}
		if len(sym.tags) > maxTags {
			return nil, fmt.Errorf("more than %d distinct tags", maxTags-1)
		}
		s := Sentence{N: n, Off: len(c.Yield)}
		size := (n + 1) * (n + 1)
		for range size {
			c.Yield = append(c.Yield, -1)
			c.Context = append(c.Context, -1)
		}
		at := func(i int) int32 { // the tag at position i, Boundary outside
			if i < 0 || i >= n {
				return 0
			}
			return ids[i]
		}
		for i := 0; i <= n; i++ {
			key = key[:0]
			for j := i; j <= n; j++ {
				if j > i {
					key = binary.LittleEndian.AppendUint16(key, uint16(ids[j-1]))
				}
				c.Yield[s.Span(i, j)] = sym.yield(key)
				c.Context[s.Span(i, j)] = sym.context(at(i-1), at(j))
			}
		}
		c.Sentences = append(c.Sentences, s)
		c.Tokens += n
		c.MaxLen = max(c.MaxLen, n)
	}
	c.index()
	return c, nil
}
