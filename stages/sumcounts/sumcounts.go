// Package sumcounts merges count shards: events are added, stats records
// summed, and a shard cut short is refused.
package sumcounts

import (
	"io"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
)

// Run adds the count streams of src (in order) and writes the total.
func Run(src pipeline.Source, w io.Writer) error {
	counts, err := dmv.ReadCounts(src)
	if err != nil {
		return err
	}
	return dmv.WriteTable(w, counts.Tags, counts.Params, format.Count, counts.Stats)
}
