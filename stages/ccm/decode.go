package ccm

import "math"

// Decoder chooses how a bracketing is read off the model.
type Decoder string

const (
	// Viterbi is the most probable binary bracketing (max-product).
	Viterbi Decoder = "viterbi"
	// MBR is the binary bracketing with the largest sum of bracket
	// posteriors: every binary tree has n − 1 brackets, so it maximises
	// expected recall, precision and F1 alike.
	MBR Decoder = "mbr"
)

// Parse returns the brackets of sentence k (spans of two or more tokens,
// the whole sentence included, in preorder) and the score the decoder
// maximised: the log of Π_{T spans} φ for Viterbi (log P(s, B) up to
// log K(s) − log Cat(n−1)), the sum of posteriors of the brackets of two
// or more tokens for MBR.
//
// Tie rule: among equal scores the split point k of a span [i, j) is the
// smallest (the leftmost split), at every span.
func (m *Model) Parse(c *Corpus, k int, dec Decoder) ([][2]int, float64) {
	m.Grow()
	s := c.Sentences[k]
	n := s.N
	var ch chart
	w := n + 1
	score := make([]float64, w*w)
	switch dec {
	case MBR:
		post := make([]float64, w*w)
		m.sentence(c, s, &ch, post)
		for i := 0; i < n; i++ {
			for j := i + 2; j <= n; j++ {
				score[i*w+j] = post[i*w+j]
			}
		}
	default:
		m.potentials(c, s, &ch)
		for i := 0; i < n; i++ {
			for j := i + 1; j <= n; j++ {
				score[i*w+j] = math.Log(ch.phi[i*w+j])
			}
		}
	}
	best, split := bestTree(n, score)
	var spans [][2]int
	var walk func(i, j int)
	walk = func(i, j int) {
		if j-i < 2 {
			return
		}
		spans = append(spans, [2]int{i, j})
		walk(i, split[i*w+j])
		walk(split[i*w+j], j)
	}
	walk(0, n)
	total := best[n]
	if dec != MBR {
		// Undo the chart's rescaling: the 2n − 1 constituents' log φ.
		_, logScale := m.potentials(c, s, &ch)
		total -= float64(2*n-1) * logScale
	}
	return spans, total
}

// bestTree maximises the sum of score over the spans of a binary tree:
// B(i,j) = score(i,j) + max_k B(i,k) + B(k,j), ties to the smallest k.
func bestTree(n int, score []float64) (best []float64, split []int) {
	w := n + 1
	best, split = make([]float64, w*w), make([]int, w*w)
	for i := 0; i < n; i++ {
		best[i*w+i+1] = score[i*w+i+1]
	}
	for l := 2; l <= n; l++ {
		for i := 0; i+l <= n; i++ {
			j := i + l
			top, arg := math.Inf(-1), i+1
			for k := i + 1; k < j; k++ {
				if v := best[i*w+k] + best[k*w+j]; v > top {
					top, arg = v, k
				}
			}
			best[i*w+j] = score[i*w+j] + top
			split[i*w+j] = arg
		}
	}
	return best, split
}
