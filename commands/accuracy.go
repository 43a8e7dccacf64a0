package commands

// attachmentAccuracy is the directed and undirected accuracy, root
// counted, of predicted against gold heads, for the training logs.
// TODO(merge): use stages/score's Tally once it has landed.
func attachmentAccuracy(gold, pred [][]int) (directed, undirected float64) {
	var correct, undir, total int
	for i, g := range gold {
		p := pred[i]
		for d, h := range p {
			total++
			switch {
			case g[d] == h:
				correct++
				undir++
			case h != 0 && g[h-1] == d+1:
				undir++
			}
		}
	}
	if total == 0 {
		return 0, 0
	}
	return float64(correct) / float64(total), float64(undir) / float64(total)
}
