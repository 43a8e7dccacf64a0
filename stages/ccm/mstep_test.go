package ccm

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/grind-nlp/grind/format"
)

// The M-step divides by each group's total: with totals past 2^1022,
// whose reciprocal is subnormal, multiplying by it gave probabilities
// above 1.
func TestMStepHugeTotals(t *testing.T) {
	c, err := NewCorpus([][]string{{"A"}, {"A", "B"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	for trial := range 200 {
		cnt := c.CountsFrom(c.NewPosteriors(), 0, 1)
		x := 4.5e307 + rng.Float64()*1.2e308 // finite, its reciprocal subnormal
		y := rng.Intn(len(cnt.SpanT))
		cnt.SpanT[y], cnt.SpanN[y] = x, x
		for _, v := range []Variant{Model1, Model2} {
			m, err := MStep(cnt, c.Sym, v, KleinSmoothing)
			if err != nil {
				t.Fatal(err)
			}
			err = m.EachEvent(func(e *format.Event) error {
				if !(e.Value >= 0 && e.Value <= 1) {
					return fmt.Errorf("trial %d, count %v: %s probability %v", trial, x, describe(e), e.Value)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}
