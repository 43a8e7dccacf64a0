package eventio

import (
	"encoding/binary"
	"fmt"
	"hash"
	"hash/fnv"
	"math"
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
