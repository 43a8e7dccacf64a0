// Package sumcounts merges count shards: events are added, stats records
// summed, and a shard cut short, lost, repeated or of another model is
// refused (dmv.ReadCounts). The total is one shard with one header: its
// corpus hash is the sum of the shards', so merging is associative.
package sumcounts

import (
	"io"

	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/estep"
)

// Run adds the count streams of src (in order) and writes the total.
// When expectCorpus is not "", the counts must come from exactly that
// corpus file's sentences (estep.CheckCorpus).
func Run(src pipeline.Source, w io.Writer, expectCorpus string) error {
	counts, err := dmv.ReadCounts(src)
	if err != nil {
		return err
	}
	if expectCorpus != "" {
		if err := estep.CheckCorpus(counts, pipeline.DescribeInputs(src.Names), expectCorpus); err != nil {
			return err
		}
	}
	return dmv.WriteCounts(w, counts.Tags, counts.Params, counts.Model, counts.Corpus, counts.Stats)
}
