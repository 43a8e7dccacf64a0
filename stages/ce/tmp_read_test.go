package ce

import (
	"os"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/eventio"
)

func BenchmarkTmpRead(b *testing.B) {
	src := pipeline.Source{Names: []string{"/tmp/l2/x.jsonl"}}
	b.Run("all", func(b *testing.B) {
		for b.Loop() {
			ReadSentencesOrLattices(src)
		}
	})
	b.Run("lines", func(b *testing.B) {
		for b.Loop() {
			pipeline.EachInput(src.Names, nil, func(in *pipeline.Input) error {
				l := pipeline.NewLines(in)
				for l.Scan() {
				}
				return nil
			})
		}
	})
	b.Run("reused", func(b *testing.B) {
		for b.Loop() {
			pipeline.EachRecordReused(src, func(r *format.SentenceOrLatticeNoWords, at *pipeline.Lines) error { return r.Validate() })
		}
	})
	sents, _, _ := ReadSentencesOrLattices(src)
	b.Run("hash", func(b *testing.B) {
		for b.Loop() {
			eventio.CorpusHash(sents)
		}
	})
	b.Run("newcorpus", func(b *testing.B) {
		ts := dmv.SortedTagSet(dmv.CorpusTags(func() (x [][]string) {
			for _, s := range sents {
				x = append(x, s.Tags)
			}
			return
		}()))
		for b.Loop() {
			dmv.NewCorpus(sents, ts)
		}
	})
	data, _ := os.ReadFile("/tmp/l2/x.jsonl")
	_ = data
}
