package pr

import (
	"fmt"
	"math"
	"slices"

	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
)

// eStep is what both duals share: the E-step they run, the weights and
// options it runs with, and the evaluation pending acceptance.
type eStep struct {
	estep         *dmv.EStepper
	w             *dmv.Params
	opts          dmv.EStepOptions
	pending, kept dmv.EStepResult
}

func (e *eStep) set(estep *dmv.EStepper, w *dmv.Params, opts dmv.EStepOptions) {
	e.estep, e.w, e.opts = estep, w, opts
}
func (e *eStep) accept()                 { e.kept = e.pending }
func (e *eStep) result() dmv.EStepResult { return e.kept }

// ruleProblem is the dual of Naseem et al.'s constraint: one variable λ ≥
// 0; q's weights are the model's with every attachment that is no rule
// multiplied by e^{−λ} (a re-weighted parameter table: no per-sentence
// work), f(λ) = Σ log Z(λ) + λ·b with b = (1 − τ)·N, ∇f = b − E_q[#no
// rule], which the counts give.
type ruleProblem struct {
	eStep
	mask mask
	b    float64
	cap  float64 // λ ≤ cap
	rw   *dmv.Params
}

func newRuleProblem(corpus *dmv.Corpus, opts Options) *ruleProblem {
	return &ruleProblem{
		mask: opts.Rules.mask(corpus.Tags),
		b:    (1 - opts.RuleShare) * float64(corpus.Tokens),
		cap:  opts.RuleCap,
	}
}

func (r *ruleProblem) project(x []float64) { x[0] = min(max(0, x[0]), r.cap) }

func (r *ruleProblem) feasible(x []float64) bool { return x[0] >= 0 && x[0] <= r.cap }

func (r *ruleProblem) slots() int                    { return 1 }
func (r *ruleProblem) toSlots(x []float64) []float64 { return slices.Clone(x) }
func (r *ruleProblem) fromSlots(x, slots []float64)  { copy(x, slots) }

func (r *ruleProblem) evaluate(x, grad []float64) (float64, error) {
	if r.rw == nil || !r.rw.SameShape(r.w) || (r.rw.Backoff == nil) != (r.w.Backoff == nil) {
		r.rw = r.w.Clone()
	} else {
		r.rw.CopyFrom(r.w)
	}
	reweightRules(r.rw, r.mask, x[0])
	res := r.estep.Run(r.rw, r.opts)
	if res.Err != nil {
		return 0, res.Err
	}
	r.pending = res
	grad[0] = r.b - nonRuleCount(res.Counts, r.mask)
	return res.LogLik + x[0]*r.b, nil
}

// gap: F(q_λ) = Σ log Z(λ) + λ·E_q[no rule] − C·max(0, E_q[no rule] − b).
func (r *ruleProblem) gap(x, grad []float64) float64 {
	return x[0]*grad[0] + r.cap*math.Max(0, -grad[0])
}

// reweightRules multiplies, in place, every attachment of w that is no
// rule by e^{−λ} (at every child valence of a model with valence
// settings), and a learned back-off's share of it alike, so that the
// E-step splits its counts between the full and the back-off
// distribution as it would without the factor.
func reweightRules(w *dmv.Params, m mask, lambda float64) {
	if lambda == 0 {
		return
	}
	f := math.Exp(-lambda)
	m.eachNot(w, func(i int) {
		w.Child[i] *= f
		if w.Backoff != nil {
			w.Backoff[i] *= f
		}
	}, func(d int) { w.Root[d] *= f })
}

// nonRuleCount is the count of attachments that are no rule.
func nonRuleCount(c *dmv.Params, m mask) float64 {
	sum := 0.0
	m.eachNot(c, func(i int) { sum += c.Child[i] }, func(d int) { sum += c.Root[d] })
	return sum
}

// sparsityProblem is the dual of the L1/L∞ penalty: one variable per
// instance, λ ≥ 0 with Σ_i λ_i ≤ σ over the instances of each type; q's
// weights are the model's with each potential attachment multiplied by
// e^{−λ} of its instance, f(λ) = Σ log Z(λ), ∇f = −E_q[φ] per instance.
//
// The instances of a sentence of n tokens live in n² slots: slot h·n+d is
// the potential edge d ← h, slot d·n+d the attachment of d to the wall.
// A slot's λ is held by its representative slot: itself (ungrouped), or
// the first slot of the same child and parent tag (and side, with
// Direction) when grouped; none for the wall unless Root. The variables
// are the representatives, type by type (within a type in slot order):
// the projection onto each type's simplex runs over contiguous memory.
type sparsityProblem struct {
	eStep
	sigma float64
	off   []int   // sentence i's slots start at off[i]
	rep   []int32 // per slot: its representative within the sentence (h·n+d), -1 none
	// slotVar is each slot's variable (its representative's), -1 none;
	// varSlot each variable's representative slot.
	slotVar, varSlot []int32
	// The variables of type t are typeStart[t]:typeStart[t+1].
	typeStart []int
	x, grad   []float64   // the dual the E-step runs at, and its gradient
	post      []float64   // when not nil (tests), the posteriors by slot
	bufs      [][]float64 // project's scratch, one per worker
}

func newSparsityProblem(corpus *dmv.Corpus, opts Options) (*sparsityProblem, error) {
	s := &sparsityProblem{sigma: opts.Sigma}
	t := corpus.Tags.Len()
	s.off = make([]int, corpus.Len()+1)
	total := 0
	err := corpus.Each(0, corpus.Len(), func(i int, tags, _ []int) {
		s.off[i] = total
		total += len(tags) * len(tags)
	})
	if err != nil {
		return nil, err
	}
	if total > math.MaxInt32 {
		return nil, fmt.Errorf("%d potential edges: more than the sparsity penalty's dual can index", total)
	}
	s.off[corpus.Len()] = total
	s.rep = make([]int32, total)
	slotType := make([]int32, total) // of representatives; -1 otherwise
	types := newTypeIndex(t)
	err = corpus.Each(0, corpus.Len(), func(i int, tags, _ []int) {
		n, base := len(tags), s.off[i]
		for h := 0; h < n; h++ {
			for d := 0; d < n; d++ {
				k := h*n + d
				s.rep[base+k], slotType[base+k] = -1, -1
				if h == d {
					if opts.Root {
						s.rep[base+k], slotType[base+k] = int32(k), types.id(tags[d], t, 0)
					}
					continue
				}
				side := 0
				if opts.Direction && d > h {
					side = 1
				}
				r := h
				if opts.Grouped { // the first parent of the same tag (and side)
					for g := 0; g < n; g++ {
						if g != d && tags[g] == tags[h] && (!opts.Direction || (d > g) == (d > h)) {
							r = g
							break
						}
					}
				}
				s.rep[base+k] = int32(r*n + d)
				if r == h {
					slotType[base+k] = types.id(tags[d], tags[h], side)
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	// Number the representatives by type (counting sort, in slot order).
	s.typeStart = make([]int, types.n+1)
	for _, ty := range slotType {
		if ty >= 0 {
			s.typeStart[ty+1]++
		}
	}
	for ty := range types.n {
		s.typeStart[ty+1] += s.typeStart[ty]
	}
	s.varSlot = make([]int32, s.typeStart[types.n])
	s.slotVar = make([]int32, total)
	fill := slices.Clone(s.typeStart[:types.n])
	for slot, ty := range slotType {
		s.slotVar[slot] = -1
		if ty >= 0 {
			s.varSlot[fill[ty]] = int32(slot)
			s.slotVar[slot] = int32(fill[ty])
			fill[ty]++
		}
	}
	for i := 0; i+1 < len(s.off); i++ { // every slot to its representative's variable
		base := s.off[i]
		for k, r := range s.rep[base:s.off[i+1]] {
			if r >= 0 {
				s.slotVar[base+k] = s.slotVar[base+int(r)]
			}
		}
	}
	return s, nil
}

// typeIndex numbers the types {child tag, parent tag (t: the wall),
// side} in the order they are first met, each type a key (child·(t+1) +
// parent)·2 + side: a table of keys when the tags are few, as tag sets
// are (a map's hashing was 5% of a benchmark's 20 iterations), a map when
// they are many (tags that are words).
type typeIndex struct {
	t     int
	n     int32
	table []int32 // by key, -1 unseen
	byKey map[int]int32
}

// typeTableMax bounds the table's entries (4 MB of them; a variable for
// tests).
var typeTableMax = 1 << 20

func newTypeIndex(t int) *typeIndex {
	ix := &typeIndex{t: t}
	if size := t * (t + 1) * 2; size <= typeTableMax {
		ix.table = make([]int32, size)
		for i := range ix.table {
			ix.table[i] = -1
		}
	} else {
		ix.byKey = map[int]int32{}
	}
	return ix
}

func (ix *typeIndex) id(child, parent, side int) int32 {
	key := (child*(ix.t+1)+parent)*2 + side
	if ix.table == nil {
		id, ok := ix.byKey[key]
		if !ok {
			id, ix.n = ix.n, ix.n+1
			ix.byKey[key] = id
		}
		return id
	}
	if ix.table[key] < 0 {
		ix.table[key], ix.n = ix.n, ix.n+1
	}
	return ix.table[key]
}

// vars is the number of dual variables.
func (s *sparsityProblem) vars() int { return len(s.varSlot) }

// order is the variables in the order of their slots.
func (s *sparsityProblem) order() []int32 {
	order := make([]int32, 0, s.vars())
	for slot, v := range s.slotVar {
		if v >= 0 && int(s.varSlot[v]) == slot {
			order = append(order, v)
		}
	}
	return order
}

// slots is the number of slots: the dual's length in a state file.
func (s *sparsityProblem) slots() int { return len(s.rep) }

// toSlots lays the variables x out by slot (0 where a slot has no
// variable of its own), as state files keep them.
func (s *sparsityProblem) toSlots(x []float64) []float64 {
	out := make([]float64, s.slots())
	for v, slot := range s.varSlot {
		out[slot] = x[v]
	}
	return out
}

// fromSlots takes the variables x back from a layout by slot.
func (s *sparsityProblem) fromSlots(x, slots []float64) {
	for v, slot := range s.varSlot {
		x[v] = slots[slot]
	}
}

// factors fills sentence i's attachment factors e^{−λ}.
func (s *sparsityProblem) factors(i int, edge, root []float64) {
	base := s.off[i]
	n := len(root)
	vars := s.slotVar[base : base+len(edge)]
	for k := range edge {
		f := 1.0
		if v := vars[k]; v >= 0 {
			if l := s.x[v]; l != 0 {
				f = math.Exp(-l)
			}
		}
		edge[k] = f
	}
	for d := 0; d < n; d++ {
		root[d] = edge[d*n+d]
		edge[d*n+d] = 1
	}
}

// posteriors takes sentence i's attachment posteriors off its
// variables' gradients (a sentence's variables are its own: the workers
// never share one).
func (s *sparsityProblem) posteriors(i int, edge, root []float64) {
	base := s.off[i]
	n := len(root)
	vars := s.slotVar[base : base+len(edge)]
	for h := 0; h < n; h++ {
		for d, v := range vars[h*n : h*n+n] {
			if v < 0 {
				continue
			}
			p := edge[h*n+d]
			if d == h {
				p = root[d]
			}
			s.grad[v] -= p
		}
	}
	if s.post != nil {
		copy(s.post[base:base+n*n], edge)
		for d := 0; d < n; d++ {
			s.post[base+d*n+d] = root[d]
		}
	}
}

func (s *sparsityProblem) evaluate(x, grad []float64) (float64, error) {
	s.x, s.grad = x, grad
	clear(grad)
	if s.post != nil {
		clear(s.post)
	}
	opts := s.opts
	opts.Factors, opts.Posteriors = s.factors, s.posteriors
	res := s.estep.Run(s.w, opts)
	if res.Err != nil {
		return 0, res.Err
	}
	s.pending = res
	return res.LogLik, nil
}

// gap: F(q_λ) = Σ log Z(λ) + λ·μ − σ·Σ_types max_instances μ for the
// instances' expectations μ = −∇f (Σ λ·μ ≤ σ·max μ over a type's
// feasible λ: weak duality).
func (s *sparsityProblem) gap(x, grad []float64) float64 {
	gap := 0.0
	for ty := 0; ty+1 < len(s.typeStart); ty++ {
		most, dot := 0.0, 0.0 // of −grad: the gradient is ≤ 0
		for k := s.typeStart[ty]; k < s.typeStart[ty+1]; k++ {
			// Not min(), whose care for NaN and −0 is a chain of
			// instructions from one element to the next: a NaN makes dot
			// NaN all the same, and the gradient is never −0 (0 − p).
			if g := grad[k]; g < most {
				most = g
			}
			dot += x[k] * grad[k]
		}
		gap += dot - s.sigma*most
	}
	return gap
}

// feasibleSlack is how far over σ a type's sum may be and still count as
// feasible: a projection's rounding, not a state file's error.
const feasibleSlack = 1e-9

func (s *sparsityProblem) feasible(x []float64) bool {
	for ty := 0; ty+1 < len(s.typeStart); ty++ {
		sum := 0.0
		for _, v := range x[s.typeStart[ty]:s.typeStart[ty+1]] {
			if v < 0 {
				return false
			}
			sum += v
		}
		if sum > s.sigma*(1+feasibleSlack) {
			return false
		}
	}
	return true
}

// project maps every type's variables onto {λ ≥ 0, Σ λ ≤ σ} (the
// projection onto the simplex: λ_i = max(0, v_i − θ) with θ ≥ 0 the
// smallest threshold that brings the sum within σ).
//
// Types are independent: they are projected on the E-step's workers, in
// pieces fixed by the number of types (the result does not depend on
// the workers).
func (s *sparsityProblem) project(x []float64) {
	types := len(s.typeStart) - 1
	pieces := min(types, projectPieces)
	workers := min(pipeline.Workers(s.opts.Workers), pieces)
	for len(s.bufs) < workers {
		s.bufs = append(s.bufs, nil)
	}
	pipeline.ForEachChunk(pieces, workers, func(worker, k int) {
		for ty := k * types / pieces; ty < (k+1)*types/pieces; ty++ {
			vars := x[s.typeStart[ty]:s.typeStart[ty+1]]
			// Clipped at 0, summed, and the positive values kept (in
			// order: their sum, in the same order, is sum).
			// Without branches, as in simplexThreshold: a negative value
			// becomes +0, the others stay as they are (−0 too).
			buf := slices.Grow(s.bufs[worker][:0], len(vars))[:len(vars)]
			kept, sum := 0, 0.0
			for i, v := range vars {
				v = math.Float64frombits(math.Float64bits(v) &^ -uint64(b2i(v < 0)))
				vars[i] = v
				buf[kept] = v
				kept += b2i(v > 0)
				sum += v
			}
			s.bufs[worker] = buf
			if sum <= s.sigma {
				continue
			}
			theta := simplexThreshold(buf[:kept], s.sigma, sum)
			for i, v := range vars {
				d := v - theta // kept where not ≤ 0 (a NaN too), else +0
				vars[i] = math.Float64frombits(math.Float64bits(d) & -uint64(b2i(!(d <= 0))))
			}
		}
	})
}

// b2i is 1 for true and 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// projectPieces is how many pieces the types are cut into for project.
const projectPieces = 64

// simplexThreshold is the θ ≥ 0 for which Σ max(0, v_i − θ) = sum over
// positive values v whose total (Σ v_i, in order) exceeds sum, by
// Michelot's (1986) algorithm: θ from the values still above it, until
// none drops out — a few passes over v, no sort (v is reordered). Each
// pass sums the values it keeps for the next.
func simplexThreshold(v []float64, sum, total float64) float64 {
	for {
		theta := (total - sum) / float64(len(v))
		kept, next := 0, 0.0
		// Without branches (whether a value stays is a coin toss to the
		// predictor): every value is written at kept, which moves on
		// only when it stays, and one that goes adds +0, which leaves
		// the sum's bits as they are.
		for _, u := range v {
			v[kept] = u
			stays := u > theta
			next += math.Float64frombits(math.Float64bits(u) & -uint64(b2i(stays)))
			kept += b2i(stays)
		}
		if kept == len(v) || kept == 0 {
			return math.Max(0, theta)
		}
		v, total = v[:kept], next
	}
}
