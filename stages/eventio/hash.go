package eventio

import (
	"encoding/binary"
	"fmt"
	"hash"
	"hash/fnv"
	"math"
	"strconv"
	"strings"

	"github.com/grind-nlp/grind/format"
)

// Hasher builds the content hashes that count headers carry to tell
// models apart: FNV-1a over what a family feeds it, as 16 hex digits.
type Hasher struct {
	h   hash.Hash64
	buf [8]byte
}

// NewHasher starts a hash.
func NewHasher() *Hasher { return &Hasher{h: fnv.New64a()} }

// String adds s's bytes.
func (h *Hasher) String(s string) { h.h.Write([]byte(s)) }

// Byte adds one byte (a separator or a unit).
func (h *Hasher) Byte(b byte) { h.h.Write([]byte{b}) }

// Float adds v's bits, little-endian, so that equal hashes mean equal
// numbers to the last bit.
func (h *Hasher) Float(v float64) {
	binary.LittleEndian.PutUint64(h.buf[:], math.Float64bits(v))
	h.h.Write(h.buf[:])
}

// Sum is the hash so far, as 16 hex digits.
func (h *Hasher) Sum() string { return fmt.Sprintf("%016x", h.h.Sum64()) }

// ModelNone is the model hash of counts made without a model (estep
// --gold without -m).
const ModelNone = "none"

// HashStrings combines strings into one hash of 16 hex digits (FNV-1a).
func HashStrings(parts ...string) string {
	h := NewHasher()
	for _, p := range parts {
		h.String(p)
		h.Byte(0)
	}
	return h.Sum()
}

// CorpusHash identifies a shard's sentences (each by its id, tags and
// gold heads, and with words its words: what the family's E-step reads)
// as 16 hex digits, for the count header: the sum, mod 2⁶⁴, of each
// sentence's FNV-1a hash. A sum does not depend on how a corpus is cut
// into shards, so the shards' merged hash is the whole corpus's and a
// lost shard shows (mstep --expect-corpus).
func CorpusHash(sents []*format.Sentence, words bool) string {
	var sum uint64
	var hasher SentenceHasher
	for _, s := range sents {
		h := hasher.Hash(s.ID, s.Tags, s.Heads)
		if words {
			for _, w := range s.Words {
				h = fnvByte(fnvString(h, w), 2)
			}
		}
		sum += h
	}
	return CorpusSum(sum)
}

// SentenceHash is one sentence's term of CorpusHash, for readers that
// add them up as they go rather than keep the sentences.
func SentenceHash(id string, tags []string, heads []int) uint64 {
	return hashAfterID(fnvString(fnvOffset, id), tags, heads)
}

// A SentenceHasher gives SentenceHash's terms of a run of sentences,
// faster when their ids share a prefix through a '#' (conll2deps's and
// ptb2deps's FILE#N): the hash of the last id's prefix is kept, and an id
// with the same prefix is hashed from there (estep hashes its corpus on
// every step of a shell loop, the ids a third of its bytes).
type SentenceHasher struct {
	prefix string // the last id up to its last '#' ("" when none)
	after  uint64 // FNV-1a of prefix
}

// Hash is SentenceHash(id, tags, heads).
func (s *SentenceHasher) Hash(id string, tags []string, heads []int) uint64 {
	if s.prefix == "" || !strings.HasPrefix(id, s.prefix) {
		s.prefix = strings.Clone(id[:strings.LastIndexByte(id, '#')+1]) // the record's memory may be reused
		s.after = fnvString(fnvOffset, s.prefix)
	}
	return hashAfterID(fnvString(s.after, id[len(s.prefix):]), tags, heads)
}

// hashAfterID is SentenceHash from h, the hash of the id.
func hashAfterID(h uint64, tags []string, heads []int) uint64 {
	// FNV-1a written out: estep hashes its whole corpus every step of a
	// shell loop, and hash.Hash64 costs a call and a copy per piece.
	h = fnvByte(h, 0)
	for _, t := range tags {
		h = fnvByte(fnvString(h, t), 0)
	}
	var num [20]byte
	for _, x := range heads {
		var digits []byte
		if x >= 0 && x < 100 { // heads are small: no strconv
			if x >= 10 {
				num[0], num[1] = byte('0'+x/10), byte('0'+x%10)
				digits = num[:2]
			} else {
				num[0] = byte('0' + x)
				digits = num[:1]
			}
		} else {
			digits = strconv.AppendInt(num[:0], int64(x), 10)
		}
		h = fnvByte(fnvBytes(h, digits), 1)
	}
	return h
}

// CorpusSum writes a sum of SentenceHash terms as CorpusHash does.
func CorpusSum(sum uint64) string { return fmt.Sprintf("%016x", sum) }

// FNV-1a, 64 bits (hash/fnv's New64a).
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvByte(h uint64, b byte) uint64 { return (h ^ uint64(b)) * fnvPrime }

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}

func fnvBytes(h uint64, b []byte) uint64 {
	for _, c := range b {
		h = (h ^ uint64(c)) * fnvPrime
	}
	return h
}

// LatticeHash identifies a shard's lattices as CorpusHash does sentences.
func LatticeHash(lattices []*format.Lattice) string {
	var sum uint64
	for _, l := range lattices {
		h := fnv.New64a()
		h.Write([]byte(l.ID))
		h.Write([]byte{0})
		for _, t := range l.Tags {
			h.Write([]byte(t))
			h.Write([]byte{0})
		}
		for _, w := range l.Words { // a lattice over words
			h.Write([]byte(w))
			h.Write([]byte{2})
		}
		for _, a := range l.Arcs {
			fmt.Fprintf(h, "%d %d %s\x01", a.From, a.To, a.Tag)
		}
		sum += h.Sum64()
	}
	return fmt.Sprintf("%016x", sum)
}
