package commands

import "github.com/grind-nlp/grind/stages/score"

// attachmentAccuracy is the directed and undirected accuracy, root
// counted, of predicted against gold heads, for the training logs.
func attachmentAccuracy(gold, pred [][]int) (directed, undirected float64) {
	var t score.Tally
	for i, g := range gold {
		t.Add(g, pred[i])
	}
	c := t.Counted()
	return c.Directed.Accuracy, c.Undirected.Accuracy
}
