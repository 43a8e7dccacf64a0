package schedule

import (
	"fmt"
	"strings"
)

// Preset is a published DA schedule: β₀, γ (β ← min(1, γβ)) and the
// relative change of the objective that ends a stage.
type Preset struct {
	Name         string
	Whose        string // the paper and section it is read from
	Beta0, Gamma float64
	Tol          float64
}

// Presets are Smith & Eisner's (2004) two schedules. Tagging (§4.1):
// "In the DA condition, we set β_min = 0.0001, β_max = 1, and α = 1.2",
// with "the relative increase in the objective function between two
// iterations fall below 10^−9" (§4) as the criterion of convergence. CCM
// (§6.2): "we set the DA parameters at β_min = 0.01, α = 1.5 so that fewer
// E steps would be necessary", with "relative improvement < 10^−9 in the
// objective".
var Presets = []Preset{
	{Name: "tagging", Whose: "Smith & Eisner 2004 §4.1, the trigram tagger", Beta0: 0.0001, Gamma: 1.2, Tol: 1e-9},
	{Name: "ccm", Whose: "Smith & Eisner 2004 §6.2, the CCM", Beta0: 0.01, Gamma: 1.5, Tol: 1e-9},
}

// PresetNamed is the preset called name.
func PresetNamed(name string) (Preset, error) {
	var names []string
	for _, p := range Presets {
		if p.Name == name {
			return p, nil
		}
		names = append(names, p.Name)
	}
	return Preset{}, fmt.Errorf("the DA schedule must be %s, not %q", strings.Join(names, " or "), name)
}
