package dmv

// MStep turns expected counts into probabilities: within each multinomial
// (root; child(h, dir); the stop/cont decision of (h, dir, valence)) add
// lambda to every count and normalise. A multinomial with no mass at all
// (lambda = 0 and no count) becomes uniform: its probabilities are never
// used by the data, and uniform keeps the model a distribution.
func MStep(counts *Params, lambda float64) *Params {
	p := NewParams(counts.T)
	normalize(p.Root, counts.Root, lambda)
	for c := 0; c < counts.T*2; c++ {
		lo, hi := c*counts.T, (c+1)*counts.T
		normalize(p.Child[lo:hi], counts.Child[lo:hi], lambda)
	}
	for i := range counts.Stop {
		s, k := counts.Stop[i]+lambda, counts.Cont[i]+lambda
		if total := s + k; total > 0 {
			p.Stop[i], p.Cont[i] = s/total, k/total
		} else {
			p.Stop[i], p.Cont[i] = 0.5, 0.5
		}
	}
	return p
}

func normalize(dst, counts []float64, lambda float64) {
	total := 0.0
	for _, c := range counts {
		total += c + lambda
	}
	if total <= 0 {
		for i := range dst {
			dst[i] = 1 / float64(len(dst))
		}
		return
	}
	for i, c := range counts {
		dst[i] = (c + lambda) / total
	}
}
