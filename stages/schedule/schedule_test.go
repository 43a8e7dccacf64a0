package schedule

import (
	"math"
	"slices"
	"testing"
)

func TestDA(t *testing.T) {
	got, err := DA(0.1, 2)
	if err != nil || !slices.Equal(got, []float64{0.1, 0.2, 0.4, 0.8, 1}) {
		t.Fatalf("β₀ 0.1, γ 2: %v, %v", got, err)
	}
	for _, c := range []struct{ beta0, gamma float64 }{{0.001, 1.25}, {0.01, 1.5}, {0.3, 3}, {1, 2}} {
		betas, err := DA(c.beta0, c.gamma)
		if err != nil {
			t.Fatal(err)
		}
		if betas[0] != c.beta0 || betas[len(betas)-1] != 1 {
			t.Fatalf("%+v: %v does not run from β₀ to exactly 1", c, betas)
		}
		for i := 1; i < len(betas)-1; i++ {
			if math.Abs(betas[i]-c.gamma*betas[i-1]) > 1e-12 {
				t.Fatalf("%+v: %v is not geometric", c, betas)
			}
		}
	}
	for _, c := range []struct{ beta0, gamma float64 }{{0, 2}, {1.5, 2}, {0.1, 1}, {0.1, 0.5}, {math.NaN(), 2}, {0.1, math.Inf(1)}} {
		if _, err := DA(c.beta0, c.gamma); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}

func TestLinear(t *testing.T) {
	cases := []struct {
		start, step, final float64
		want               []float64
	}{
		{-0.6, 0.1, 0.1, []float64{-0.6, -0.5, -0.4, -0.3, -0.2, -0.1, 0, 0.1, 0.1}[:8]},
		{0.5, -0.1, 0, []float64{0.5, 0.4, 0.3, 0.2, 0.1, 0}},
		{0, 0.1, 0.25, []float64{0, 0.1, 0.2, 0.25}},
		{-0.6, 0.5, -0.6, []float64{-0.6}},
		{-1, 0.05, -0.9, []float64{-1, -0.95, -0.9}},
	}
	for _, c := range cases {
		got, err := Linear(c.start, c.step, c.final)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%v by %v to %v: %v, %v; want %v", c.start, c.step, c.final, got, err, c.want)
		}
		for _, v := range got {
			if v == 0 && math.Signbit(v) {
				t.Errorf("%v by %v: a negative zero", c.start, c.step)
			}
		}
	}
	for _, c := range [][3]float64{{0, 0, 1}, {0, -0.1, 1}, {0.5, 0.1, 0}, {0, 1e-9, 1}, {math.NaN(), 0.1, 1}} {
		if _, err := Linear(c[0], c[1], c[2]); err == nil {
			t.Errorf("%v: no error", c)
		}
	}
}

// Smith & Eisner's tagging schedule by hand: β = 10⁻⁴·1.2^k while below
// 1 (k = 0 … 50: 1.2^50·10⁻⁴ = 0.910043815), then 1: 52 stages.
func TestTaggingPreset(t *testing.T) {
	p, err := PresetNamed("tagging")
	if err != nil {
		t.Fatal(err)
	}
	betas, err := DA(p.Beta0, p.Gamma)
	if err != nil {
		t.Fatal(err)
	}
	if len(betas) != 52 || betas[0] != 0.0001 || math.Abs(betas[1]-0.00012) > 1e-18 || math.Abs(betas[50]-0.910043815) > 1e-9 || betas[51] != 1 {
		t.Errorf("tagging: %d stages, β %v, %v, …, %v, %v", len(betas), betas[0], betas[1], betas[50], betas[len(betas)-1])
	}
	if p.Tol != 1e-9 {
		t.Errorf("tagging: tolerance %v, want 1e-9", p.Tol)
	}
	if _, err := PresetNamed("fast"); err == nil {
		t.Error("an unknown preset was accepted")
	}
}
