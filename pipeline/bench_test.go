package pipeline

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/grind-nlp/grind/format"
)

// BenchmarkReadSentences reads a corpus of 5,000 ten-word sentence
// records, as estep does on every step of a shell loop.
func BenchmarkReadSentences(b *testing.B) {
	var corpus bytes.Buffer
	tags := []string{"DT", "NN", "VBD", "IN", "JJ", "NNS", "RB", "CC", "PRP", "VBZ"}
	for i := 0; i < 5000; i++ {
		s := format.Sentence{ID: fmt.Sprintf("wsj_%04d.mrg#%d", i/40, i%40+1), Tags: tags, Heads: []int{2, 3, 0, 3, 6, 4, 3, 3, 10, 8}}
		for j := range tags {
			s.Words = append(s.Words, fmt.Sprintf("word%d", (i*7+j)%997))
		}
		WriteRecord(&corpus, &s)
	}
	b.SetBytes(int64(corpus.Len()))
	b.ResetTimer()
	for range b.N {
		n := 0
		err := EachSentence(Source{Stdin: bytes.NewReader(corpus.Bytes())}, func(*format.Sentence) error { n++; return nil })
		if err != nil || n != 5000 {
			b.Fatal(n, err)
		}
	}
}
