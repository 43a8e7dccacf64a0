package eventio

import (
	"fmt"
	"hash/fnv"
	"math/rand"
	"strconv"
	"testing"
)

// SentenceHash's FNV-1a written out against hash/fnv over the bytes the
// count header's corpus hash is defined on.
func TestSentenceHashIsFNV(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := range 2000 {
		n := rng.Intn(40)
		tags, heads := make([]string, n), make([]int, n)
		for j := range tags {
			tags[j] = []string{"NN", "VBZ", "é", ""}[rng.Intn(4)]
			heads[j] = []int{0, 7, 10, 99, 100, 12345, -1}[rng.Intn(7)]
		}
		if i%5 == 0 {
			heads = nil
		}
		id := fmt.Sprintf("s%d", i)
		h := fnv.New64a()
		h.Write([]byte(id + "\x00"))
		for _, tag := range tags {
			h.Write([]byte(tag + "\x00"))
		}
		for _, x := range heads {
			h.Write([]byte(strconv.Itoa(x) + "\x01"))
		}
		if got := SentenceHash(id, tags, heads); got != h.Sum64() {
			t.Fatalf("sentence %d: SentenceHash %x, hash/fnv %x", i, got, h.Sum64())
		}
	}
}

// A SentenceHasher's terms are SentenceHash's, over ids that share their
// prefix through '#' with the last one, or part of it, or none of it.
func TestSentenceHasherIsSentenceHash(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	ids := []string{"a.conllu#", "a.conllu#1#", "a.conll#", "b#", "", "#", "a.conllu", "a.conllu##"}
	var s SentenceHasher
	for range 3000 {
		id := ids[rng.Intn(len(ids))] + strconv.Itoa(rng.Intn(30))
		if rng.Intn(10) == 0 {
			id = ids[rng.Intn(len(ids))]
		}
		tags, heads := []string{"NN", id}, []int{2, 0}
		if got, want := s.Hash(id, tags, heads), SentenceHash(id, tags, heads); got != want {
			t.Fatalf("id %q after prefix %q: %x, SentenceHash %x", id, s.prefix, got, want)
		}
	}
}
