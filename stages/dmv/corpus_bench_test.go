package dmv

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/grind-nlp/grind/pipeline"
)

// BenchmarkCorpusMemory builds compact corpora of 100,000 sentences of
// up to 10 and 40 tags over 35 tags, without and with gold heads, and
// reports the heap they hold per sentence and per token (measured after
// a collection, the records gone).
func BenchmarkCorpusMemory(b *testing.B) {
	const count = 100_000
	for _, maxLen := range []int{10, 40} {
		rng := rand.New(rand.NewPCG(1, uint64(maxLen)))
		sents := randomSentences(rng, count, maxLen, 35, false)
		tokens := 0
		for _, s := range sents {
			tokens += len(s.Tags)
		}
		for _, gold := range []bool{false, true} {
			b.Run(fmt.Sprintf("len%d/gold=%v", maxLen, gold), func(b *testing.B) {
				var held uint64
				for b.Loop() {
					var before, after runtime.MemStats
					runtime.GC()
					runtime.ReadMemStats(&before)
					cb := NewCorpusBuilder(CorpusOptions{Gold: gold})
					for _, s := range sents {
						if err := cb.Add(s); err != nil {
							b.Fatal(err)
						}
					}
					c, err := cb.Finish(nil)
					if err != nil {
						b.Fatal(err)
					}
					runtime.GC()
					runtime.ReadMemStats(&after)
					held = after.HeapAlloc - before.HeapAlloc
					runtime.KeepAlive(c)
				}
				b.ReportMetric(float64(held)/count, "heap-B/sentence")
				b.ReportMetric(float64(held)/float64(tokens), "heap-B/token")
			})
		}
	}
}

// BenchmarkStreamPass is one pass (Corpus.Each over every sentence) of
// 100,000 sentences of up to 10 tags, held in memory and streamed from a
// file, in nanoseconds per sentence.
func BenchmarkStreamPass(b *testing.B) {
	const count = 100_000
	sents := randomSentences(rand.New(rand.NewPCG(2, 2)), count, 10, 35, false)
	path := filepath.Join(b.TempDir(), "c.jsonl")
	out, err := pipeline.Create(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range sents {
		pipeline.WriteRecord(out, s)
	}
	if err := out.Commit(); err != nil {
		b.Fatal(err)
	}
	mem, _ := NewCorpus(sents, nil)
	streamed, err := OpenStream([]string{path}, StreamOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for name, c := range map[string]*Corpus{"memory": mem, "stream": streamed} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if err := c.Each(0, c.Len(), func(int, []int, []int) {}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/count, "ns/sentence")
		})
	}
}
