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
// the whole sentence included, in preorder), the score the decoder
// maximised — the log of Π_{T spans} φ for Viterbi (log P(s, B) up to
// log K(s) − log Cat(n−1)), the sum of posteriors of the brackets of two
// or more tokens for MBR — and whether the model gives the sentence
// probability 0. Such a sentence is decoded by the DMV's decoders' rule:
// every probability of 0 read as dmv.Floor, so that its bracketing makes
// as few impossible spans as it can.
//
// Tie rule: among equal scores the split point k of a span [i, j) is the
// smallest (the leftmost split), at every span.
func (m *Model) Parse(c *Corpus, k int, dec Decoder) (spans [][2]int, score float64, fellBack bool) {
	m.Grow()
	s := c.Sentences[k]
	n := s.N
	var ch chart
	ch.size(n)
	w := n + 1
	scores := make([]float64, w*w)
	shift := 0.0 // the log of the scale of Viterbi's φ, undone at the end
	// viterbi fills scores with log φ and returns log K(s): every
	// bracketing has probability 0 when it is −Inf.
	viterbi := func(floor bool) float64 {
		if !floor {
			logK, logScale := m.potentials(c, s, &ch)
			fast := !math.IsInf(logK, 0) && !math.IsNaN(logK)
			for i := 0; i < n && fast; i++ {
				for j := i + 1; j <= n; j++ {
					if p := ch.phi[i*w+j]; !(p > 0 && p <= math.MaxFloat64) {
						fast = false
						break
					}
				}
			}
			if fast {
				for i := 0; i < n; i++ {
					for j := i + 1; j <= n; j++ {
						scores[i*w+j] = math.Log(ch.phi[i*w+j])
					}
				}
				shift = float64(2*n-1) * logScale
				return logK
			}
		}
		// A model's zeros, or φ beyond floating point: log space.
		return m.logPotentials(c, s, scores, floor)
	}
	mbr := func(floor bool) bool {
		post := make([]float64, w*w)
		var lp float64
		if floor {
			lp = m.logSentence(c, s, &ch, post, true)
		} else {
			lp = m.sentence(c, s, &ch, post)
		}
		for i := 0; i < n; i++ {
			for j := i + 2; j <= n; j++ {
				scores[i*w+j] = post[i*w+j]
			}
		}
		return !math.IsInf(lp, -1) && !math.IsNaN(lp)
	}
	var best []float64
	var split []int
	if dec == MBR {
		if !mbr(false) {
			fellBack = true
			mbr(true)
		}
		best, split = bestTree(n, scores)
	} else {
		logK := viterbi(false)
		if best, split = bestTree(n, scores); math.IsInf(best[n]+logK, -1) || math.IsNaN(best[n]+logK) {
			fellBack, shift = true, 0
			viterbi(true)
			best, split = bestTree(n, scores)
		}
	}
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
	return spans, best[n] - shift, fellBack
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
