package pr

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/eventio"
)

// Describe names the constraint and its settings, for the counts' model
// hash (shards of different constraints do not mix) and for state files
// (a dual is only taken back by the same constraint).
func (o Options) Describe() string {
	if o.Rules != nil {
		rule := ""
		if o.DualRule() == Interleaved {
			rule = " interleaved"
		}
		var pairs []string
		for _, p := range o.Rules.Pairs() {
			pairs = append(pairs, p[0]+" "+p[1])
		}
		return fmt.Sprintf("rules %s (%d pairs, %s) share=%v cap=%v%s", o.Rules.Name, o.Rules.Len(),
			eventio.HashStrings(pairs...), o.RuleShare, o.RuleCap, rule)
	}
	d := fmt.Sprintf("sparsity sigma=%v", o.Sigma)
	if o.DualRule() == Interleaved {
		d += " interleaved"
	}
	for _, f := range []struct {
		on   bool
		name string
	}{{o.Grouped, "grouped"}, {o.Root, "root"}, {o.Direction, "direction"}} {
		if f.on {
			d += " " + f.name
		}
	}
	return d
}

// State is what a projector carries from one E-step to the next: its dual
// variables and its optimizer's last step length, for the shell loop's
// state file (estep --dual) and a run directory's checkpoints. Constraint
// and Corpus say what it belongs to; Iterations, in a run directory, the
// checkpoint it goes with. Under the interleaved rule also its last
// E-step: the point and gradient (by slot, as Dual) of the next step's
// length, its value F, its counts (the root, child, stop and cont
// tables) and their Σ c·log w under the weights it ran with.
type State struct {
	Constraint string        `json:"constraint"`
	Corpus     string        `json:"corpus,omitempty"`
	Iterations int           `json:"iterations,omitempty"`
	Step       float64       `json:"step"`
	Dual       []float64     `json:"dual"`
	Last       []float64     `json:"last,omitempty"`
	LastGrad   []float64     `json:"last_grad,omitempty"`
	Value      *float64      `json:"value,omitempty"`
	Counts     *[4][]float64 `json:"counts,omitempty"`
	LogWeight  *float64      `json:"counts_log_weight,omitempty"`
}

// sameConstraint says whether two descriptions are of one constraint: a
// table of rules is the same whatever its file is called now (a run
// resumed from another folder names it from there), when its pairs and
// settings are.
func sameConstraint(a, b string) bool {
	if a == b {
		return true
	}
	const rules = "rules "
	i, j := strings.LastIndex(a, " ("), strings.LastIndex(b, " (")
	return strings.HasPrefix(a, rules) && strings.HasPrefix(b, rules) && i > 0 && j > 0 && a[i:] == b[j:]
}

// State is p's state now.
func (p *Projector) State(corpus string) State {
	s := State{Constraint: p.opts.Describe(), Corpus: corpus, Step: p.solver.step, Dual: slices.Clone(p.dual)}
	if l := p.last; l.x != nil {
		s.Last, s.LastGrad = slices.Clone(l.x), slices.Clone(l.grad)
		if !math.IsInf(l.value, -1) { // JSON has no −Inf: absent
			s.Value = &l.value
		}
		if l.counts != nil && !math.IsInf(l.logW, 0) && !math.IsNaN(l.logW) {
			tables := l.counts.Tables()
			s.Counts, s.LogWeight = &tables, &l.logW
		}
	}
	return s
}

// Restore takes back a state saved by a projector of the same constraint
// over the same corpus; where names the state for errors.
func (p *Projector) Restore(s State, corpus, where string) error {
	if want := p.opts.Describe(); !sameConstraint(s.Constraint, want) {
		return fmt.Errorf("%s: the dual of %q, not of this run's %q", where, s.Constraint, want)
	}
	if s.Corpus != corpus {
		return fmt.Errorf("%s: the dual of another corpus (%s, not %s)", where, s.Corpus, corpus)
	}
	if len(s.Dual) != len(p.dual) {
		return fmt.Errorf("%s: %d dual variables, the corpus has %d", where, len(s.Dual), len(p.dual))
	}
	for i, v := range s.Dual {
		if !(v >= 0) || math.IsInf(v, 1) {
			return fmt.Errorf("%s: dual variable %d is %v: they are finite numbers ≥ 0", where, i+1, v)
		}
	}
	if !(s.Step >= 0) || math.IsInf(s.Step, 1) {
		return fmt.Errorf("%s: a step length of %v: it is a finite number ≥ 0", where, s.Step)
	}
	if last := s.Last != nil; last != (s.LastGrad != nil) || last && (len(s.Last) != len(s.Dual) || len(s.LastGrad) != len(s.Dual)) {
		return fmt.Errorf("%s: last and last_grad are %d numbers each, as dual is, or both absent", where, len(s.Dual))
	}
	if s.Value != nil && (math.IsNaN(*s.Value) || math.IsInf(*s.Value, 1) || s.Last == nil) {
		return fmt.Errorf("%s: value is a number below +Inf, with last", where)
	}
	if (s.Counts == nil) != (s.LogWeight == nil) || s.Counts != nil && (s.Last == nil || math.IsNaN(*s.LogWeight) || math.IsInf(*s.LogWeight, 0)) {
		return fmt.Errorf("%s: counts and counts_log_weight (a finite number) go together, with last", where)
	}
	p.prob.fromState(p.dual, s.Dual) // made feasible, if it is not, by the next projection's first step
	p.solver.step = s.Step
	p.restored = true
	p.last = lastEStep{value: math.Inf(-1)}
	if s.Last != nil {
		p.last.x, p.last.grad = make([]float64, len(p.dual)), make([]float64, len(p.dual))
		if s.Value != nil {
			p.last.value = *s.Value
		}
		if s.Counts != nil {
			p.last.tables, p.last.logW = s.Counts, *s.LogWeight
		}
		p.prob.fromState(p.last.x, s.Last)
		p.prob.fromState(p.last.grad, s.LastGrad)
	}
	return nil
}

// ReadState reads a state file (JSON; float64s round-trip exactly).
func ReadState(path string) (State, error) {
	in, err := pipeline.Open(path, nil)
	if err != nil {
		return State{}, err
	}
	defer in.Close()
	var s State
	dec := json.NewDecoder(in)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		if err == io.EOF {
			return State{}, fmt.Errorf("%s: empty: not a dual state", in.Name)
		}
		return State{}, fmt.Errorf("%s: not a dual state: %v", in.Name, strings.TrimPrefix(err.Error(), "json: "))
	}
	if s.Constraint == "" || s.Dual == nil {
		return State{}, fmt.Errorf("%s: not a dual state: no constraint or no dual", in.Name)
	}
	return s, nil
}

// WriteState writes s to path atomically (a temporary file renamed).
func WriteState(path string, s State) error {
	return pipeline.WriteFile(path, nil, func(w *pipeline.Output) error {
		return json.NewEncoder(w).Encode(s)
	})
}
