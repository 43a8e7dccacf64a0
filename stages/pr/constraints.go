package pr

import (
	"fmt"
	"math"
	"slices"

	"github.com/grind-nlp/grind/internal/vec8"
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

func (r *ruleProblem) fromState(x, saved []float64) { copy(x, saved) }

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
// Direction) when grouped; none for the wall unless Root. The dual is
// laid out by slot, a variable at its representative's slot and 0 at
// every other, so that the E-step's factors and posteriors, and the
// solver's sums, run over a sentence's slots as they lie; the projection
// reaches each type's variables through a list of them.
type sparsityProblem struct {
	eStep
	sigma float64
	off   []int   // sentence i's slots start at off[i]
	rep   []int32 // per slot: its representative within the sentence (h·n+d), -1 none
	// slotType is a variable's type, -1 for the other slots.
	slotType []int32
	// The variables of type t, in slot order, are
	// typeVars[typeStart[t]:typeStart[t+1]].
	typeVars  []int32
	typeStart []int
	// direct says every slot with a variable is its own (not grouped).
	direct  bool
	x, grad []float64 // the dual the E-step runs at, and its gradient
	// fac is e^{−λ} by slot at that dual, taken a piece of the corpus at
	// a time (on the lanes, eight at a time) by the worker that runs the
	// piece, before its sentences: sentence by sentence, in factors, it
	// cost twice as much, and the piece's factors and gradient are then
	// in that core's cache when factors and posteriors reach them.
	fac  []float64
	post []float64   // when not nil (tests), the posteriors by slot
	sums []float64   // one per type: project's, feasible's and gap's scratch
	dots []float64   // the same, gap's
	bufs [][]float64 // project's scratch, one per worker
}

func newSparsityProblem(corpus *dmv.Corpus, opts Options) (*sparsityProblem, error) {
	s := &sparsityProblem{sigma: opts.Sigma, direct: !opts.Grouped}
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
	s.rep, s.slotType, s.fac = make([]int32, total), make([]int32, total), make([]float64, total)
	types := newTypeIndex(t)
	err = corpus.Each(0, corpus.Len(), func(i int, tags, _ []int) {
		n, base := len(tags), s.off[i]
		for h := 0; h < n; h++ {
			for d := 0; d < n; d++ {
				k := h*n + d
				s.rep[base+k], s.slotType[base+k] = -1, -1
				if h == d {
					if opts.Root {
						s.rep[base+k], s.slotType[base+k] = int32(k), types.id(tags[d], t, 0)
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
					s.slotType[base+k] = types.id(tags[d], tags[h], side)
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	// List the variables by type (counting sort, in slot order).
	s.typeStart = make([]int, types.n+1)
	for _, ty := range s.slotType {
		if ty >= 0 {
			s.typeStart[ty+1]++
		}
	}
	for ty := range types.n {
		s.typeStart[ty+1] += s.typeStart[ty]
	}
	s.typeVars = make([]int32, s.typeStart[types.n])
	fill := slices.Clone(s.typeStart[:types.n])
	for slot, ty := range s.slotType {
		if ty >= 0 {
			s.typeVars[fill[ty]] = int32(slot)
			fill[ty]++
		}
	}
	s.sums, s.dots = make([]float64, types.n), make([]float64, types.n)
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

// fromState takes the dual back, 0 at the slots that hold no variable.
func (s *sparsityProblem) fromState(x, saved []float64) {
	for k, ty := range s.slotType {
		x[k] = 0
		if ty >= 0 {
			x[k] = saved[k]
		}
	}
}

// factors fills sentence i's attachment factors e^{−λ}.
func (s *sparsityProblem) factors(i int, edge, root []float64) {
	base := s.off[i]
	n := len(root)
	copy(edge, s.fac[base:base+len(edge)])
	if !s.direct { // a slot's factor is its representative's
		for k, r := range s.rep[base : base+len(edge)] {
			if r >= 0 && int(r) != k {
				edge[k] = edge[r] // r < k: the first parent of the tag
			}
		}
	}
	for d := 0; d < n; d++ {
		root[d] = edge[d*n+d]
		edge[d*n+d] = 1
	}
}

// expLanes says whether expNeg runs eight at a time (a variable for
// tests).
var expLanes = vec8.Native() != ""

// expNeg sets dst[k] to e^{−x[k]} (1 where x[k] is 0, as at a slot of
// no variable: e^{−0} is 1 exactly): math.Exp's bits, on the vector
// lanes where they run (vec8.Exp), eight at a time, and by math.Exp
// itself for eight that leave the lanes' range.
func expNeg(dst, x []float64) {
	k := 0
	if expLanes {
		minus := vec8.Broadcast(-1)
		for ; k+vec8.Lanes <= len(x); k += vec8.Lanes {
			v := vec8.Load(x[k:]).Mul(minus)
			if vec8.Within(vec8.AllTrue(), v, vec8.ExpMin, vec8.ExpMax).ToBits() != 1<<vec8.Lanes-1 {
				vec8.Settle()
				for j := k; j < k+vec8.Lanes; j++ {
					dst[j] = math.Exp(-x[j])
				}
				continue
			}
			vec8.Store(dst[k:], vec8.Exp(v))
		}
		vec8.Settle()
	}
	for ; k < len(x); k++ {
		dst[k] = math.Exp(-x[k])
	}
}

// piece readies sentences lo..hi−1's slots for the E-step: their
// factors taken, their gradient cleared.
func (s *sparsityProblem) piece(lo, hi int) {
	from, to := s.off[lo], s.off[hi]
	expNeg(s.fac[from:to], s.x[from:to])
	clear(s.grad[from:to])
}

// posteriors takes sentence i's attachment posteriors off its
// variables' gradients (a sentence's variables are its own: the workers
// never share one).
func (s *sparsityProblem) posteriors(i int, edge, root []float64) {
	base := s.off[i]
	n := len(root)
	grad := s.grad[base : base+len(edge)]
	if s.direct {
		for k, p := range edge {
			grad[k] -= p
		}
		for d := 0; d < n; d++ {
			grad[d*n+d] = 0
			if s.slotType[base+d*n+d] >= 0 {
				grad[d*n+d] -= root[d]
			}
		}
	} else {
		for h := 0; h < n; h++ {
			for d, r := range s.rep[base+h*n : base+h*n+n] {
				if r < 0 {
					continue
				}
				p := edge[h*n+d]
				if d == h {
					p = root[d]
				}
				grad[r] -= p
			}
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
	if s.post != nil {
		clear(s.post)
	}
	opts := s.opts
	opts.Factors, opts.Posteriors, opts.Piece = s.factors, s.posteriors, s.piece
	res := s.estep.Run(s.w, opts)
	if res.Err != nil {
		return 0, res.Err
	}
	s.pending = res
	return res.LogLik, nil
}

// gap: F(q_λ) = Σ log Z(λ) + λ·μ − σ·Σ_types max_instances μ for the
// instances' expectations μ = −∇f (Σ λ·μ ≤ σ·max μ over a type's
// feasible λ: weak duality). A type's sums run in slot order, the types
// in theirs.
func (s *sparsityProblem) gap(x, grad []float64) float64 {
	most, dot := s.sums, s.dots // of −grad: the gradient is ≤ 0
	clear(most)
	clear(dot)
	for k, ty := range s.slotType {
		if ty < 0 {
			continue
		}
		// Not min(), whose care for NaN and −0 is a chain of
		// instructions from one element to the next: a NaN makes dot
		// NaN all the same, and the gradient is never −0 (0 − p).
		if g := grad[k]; g < most[ty] {
			most[ty] = g
		}
		dot[ty] += x[k] * grad[k]
	}
	gap := 0.0
	for ty, d := range dot {
		gap += d - s.sigma*most[ty]
	}
	return gap
}

// feasibleSlack is how far over σ a type's sum may be and still count as
// feasible: a projection's rounding, not a state file's error.
const feasibleSlack = 1e-9

func (s *sparsityProblem) feasible(x []float64) bool {
	sums := s.sums
	clear(sums)
	for k, ty := range s.slotType {
		if ty < 0 {
			continue
		}
		if x[k] < 0 {
			return false
		}
		sums[ty] += x[k]
	}
	for _, sum := range sums {
		if sum > s.sigma*(1+feasibleSlack) {
			return false
		}
	}
	return true
}

// project maps every type's variables onto {λ ≥ 0, Σ λ ≤ σ} (the
// projection onto the simplex: λ_i = max(0, v_i − θ) with θ ≥ 0 the
// smallest threshold that brings the sum within σ), and sets the slots
// of no variable to 0.
//
// One pass over the slots clips the negative values and sums each type
// (in slot order); the types over σ then find their θ on the E-step's
// workers, in pieces fixed by the number of types (the result does not
// depend on the workers). (Laying the variables out type by type for
// that, in the first pass, and back after, costs as much as reaching
// them through typeVars.)
func (s *sparsityProblem) project(x []float64) {
	sums := s.sums
	clear(sums)
	for k, ty := range s.slotType {
		// Without branches, as in simplexThreshold: a negative value
		// becomes +0, the others stay as they are (−0 too).
		v := x[k]
		v = math.Float64frombits(math.Float64bits(v) &^ -uint64(b2i(v < 0)))
		if ty < 0 {
			v = 0
		} else {
			sums[ty] += v
		}
		x[k] = v
	}
	types := len(sums)
	pieces := min(types, projectPieces)
	workers := min(pipeline.Workers(s.opts.Workers), pieces)
	for len(s.bufs) < workers {
		s.bufs = append(s.bufs, nil)
	}
	pipeline.ForEachChunk(pieces, workers, func(worker, k int) {
		for ty := k * types / pieces; ty < (k+1)*types/pieces; ty++ {
			sum := sums[ty]
			if sum <= s.sigma {
				continue
			}
			// The positive values, in order: their sum, in the same
			// order, is sum.
			vars := s.typeVars[s.typeStart[ty]:s.typeStart[ty+1]]
			buf := slices.Grow(s.bufs[worker][:0], len(vars))[:len(vars)]
			kept := 0
			for _, slot := range vars {
				v := x[slot]
				buf[kept] = v
				kept += b2i(v > 0)
			}
			s.bufs[worker] = buf
			theta := simplexThreshold(buf[:kept], s.sigma, sum)
			for _, slot := range vars {
				d := x[slot] - theta // kept where not ≤ 0 (a NaN too), else +0
				x[slot] = math.Float64frombits(math.Float64bits(d) & -uint64(b2i(!(d <= 0))))
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
