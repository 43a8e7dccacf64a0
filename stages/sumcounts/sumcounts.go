// Package sumcounts merges count shards of any model family (the one
// their headers name): events are added, stats records summed, and a
// shard cut short, lost, repeated or of another model is refused (the
// family's ReadCounts). The total is one shard with one header: its
// corpus hash is the sum of the shards', so merging is associative.
package sumcounts

import (
	"io"

	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/estep"
	"github.com/grind-nlp/grind/stages/family"
)

// Run adds the count streams of src (in order) and writes the total.
// When expectCorpus is not "", the counts must come from exactly that
// corpus file's sentences. Tables over limit bytes are refused (≤ 0: no
// limit).
func Run(reg family.Registry, src pipeline.Source, w io.Writer, expectCorpus string, limit int64) error {
	fam, src, err := reg.ForSource(src)
	if err != nil {
		return err
	}
	counts, err := fam.ReadCounts(src, limit)
	if err != nil {
		return err
	}
	hash := func(path string) (string, error) {
		return estep.CorpusHash(pipeline.Source{Names: []string{path}}, family.HashesWords(fam, counts))
	}
	if err := family.CheckCounts(counts, pipeline.DescribeInputs(src.Names), -1, expectCorpus, hash); err != nil {
		return err
	}
	return counts.WriteCounts(w)
}
