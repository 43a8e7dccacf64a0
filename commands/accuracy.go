package commands

import (
	"iter"

	"github.com/grind-nlp/grind/stages/score"
)

// attachmentAccuracy is the directed and undirected accuracy, root
// counted, of predicted against gold heads, for the training logs.
func attachmentAccuracy(pairs iter.Seq2[[]int, []int]) (directed, undirected float64) {
	var t score.Tally
	for gold, pred := range pairs {
		t.Add(gold, pred)
	}
	c := t.Counted()
	return c.Directed.Accuracy, c.Undirected.Accuracy
}
