package hmm

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mathext"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/eventio"
	"github.com/grind-nlp/grind/stages/memory"
)

// Family is the header family of HMM models and counts. Bitag and
// trigram are told apart by the length of the trans records' prev.
const Family = "hmm"

// Model is an HMM with names: its weights, the names of its states and
// words, and the weight each state gives a word it has never seen.
type Model struct {
	P      *Params
	States []string
	Words  []string
	// Unseen[t] is what the M-step gives a word with count 0 under state
	// t (0 under maximum likelihood: such words are then emitted with
	// weight 1 by every state, so the transitions alone tag them).
	Unseen []float64
	// Deficient marks weights whose rows sum to less than 1 (variational
	// Bayes's exp E[log θ]); the header says so, and the reader checks
	// only that no row sums to more.
	Deficient bool
}

// UnseenNormalize is the emission of a word never counted under
// Normalize(counts, λ): λ / (Σn + |support|·λ) per state.
func (s *Space) UnseenNormalize(counts *Params, lambda float64) []float64 {
	out := make([]float64, s.K)
	if lambda == 0 {
		return out
	}
	total, support := s.emitTotals(counts)
	for t := range out {
		out[t] = lambda / (total[t] + float64(support[t])*lambda)
	}
	return out
}

// UnseenVB is the emission weight VariationalBayes gives a word never
// counted: exp ψ(α) / exp ψ(Σn + |support|·α).
func (s *Space) UnseenVB(counts *Params, alphaE float64) []float64 {
	out := make([]float64, s.K)
	total, support := s.emitTotals(counts)
	for t := range out {
		out[t] = math.Exp(mathext.Digamma(alphaE) - mathext.Digamma(total[t]+float64(support[t])*alphaE))
	}
	return out
}

func (s *Space) emitTotals(counts *Params) ([]float64, []int) {
	total, support := make([]float64, s.K), make([]int, s.K)
	for w := 0; w < s.V; w++ {
		for t := 0; t < s.K; t++ {
			if s.allowed(w, t) {
				total[t] += counts.Emit[w*s.K+t]
				support[t]++
			}
		}
	}
	return total, support
}

// eachEvent calls fn with every supported parameter of p (zeros too, so
// that a model's vocabulary and dictionary survive the round trip) as a
// record: transitions by context then target, emissions by word then
// state, then unseen (when not nil). fn must not keep e.
func eachEvent(p *Params, states, words []string, unseen []float64, unit format.Unit, fn func(e *format.Event)) {
	k, k1 := p.K, p.K+1
	name := func(i int) string {
		if i == k {
			return Boundary
		}
		return states[i]
	}
	var e format.Event
	for ctx := 0; ctx < p.Contexts(); ctx++ {
		var prev []string
		if p.Order == 1 {
			prev = []string{name(ctx)}
		} else {
			if ctx%k1 == k && ctx/k1 != k {
				continue // a state then the boundary: never a context
			}
			prev = []string{name(ctx / k1), name(ctx % k1)}
		}
		for next := 0; next <= k; next++ {
			if p.transSupported(ctx, next) {
				e = format.Event{Ev: format.EvTrans, Prev: prev, Next: name(next), Unit: unit, Value: p.Trans[ctx*k1+next]}
				fn(&e)
			}
		}
	}
	for w := 0; w < p.V; w++ {
		for t := 0; t < k; t++ {
			if p.allowed(w, t) {
				e = format.Event{Ev: format.EvEmit, State: states[t], Word: words[w], Unit: unit, Value: p.Emit[w*k+t]}
				fn(&e)
			}
		}
	}
	for t, v := range unseen {
		e = format.Event{Ev: format.EvUnseenWord, State: states[t], Unit: unit, Value: v}
		fn(&e)
	}
}

// WriteModel writes m; a weight that is not in [0, 1] is refused before
// anything is written.
func WriteModel(w io.Writer, m *Model) error {
	return write(w, m.P, m.States, m.Words, m.Unseen, format.Prob, &format.Header{Family: Family, Unit: format.Prob, Deficient: m.Deficient}, nil,
		func(e *format.Event) error {
			if !(e.Value >= 0 && e.Value <= 1) {
				return fmt.Errorf("the model made is not valid (%s weight %v): nothing written", describe(e), e.Value)
			}
			return nil
		})
}

// WriteWeights writes a log-linear bitag HMM (contrastive estimation's,
// package hmmce): p holds real weights, a tagged string scoring exp(Σ
// weights of its transitions and emissions); its header says unit "w".
// There is no unseen_word record: such a model knows only its words. A
// weight that is not a finite number is refused before anything is
// written.
func WriteWeights(w io.Writer, p *Params, states, words []string) error {
	if p.Order != 1 {
		return errors.New("a log-linear HMM is bitag")
	}
	return write(w, p, states, words, nil, format.Weight, &format.Header{Family: Family, Unit: format.Weight}, nil,
		func(e *format.Event) error {
			if math.IsNaN(e.Value) || math.IsInf(e.Value, 0) {
				return fmt.Errorf("the model made is not valid (%s weight %v): nothing written", describe(e), e.Value)
			}
			return nil
		})
}

// WriteCounts writes one shard of expected counts (over the names of
// states and words) with its header's hashes and its stats record.
func WriteCounts(w io.Writer, counts *Params, states, words []string, model, corpus string, stats *format.Stats) error {
	return write(w, counts, states, words, nil, format.Count, &format.Header{Family: Family, Unit: format.Count, Model: model, Corpus: corpus}, stats,
		func(e *format.Event) error {
			if !(e.Value >= 0) || math.IsInf(e.Value, 1) {
				return fmt.Errorf("a count of %s is %v: nothing written", describe(e), e.Value)
			}
			return nil
		})
}

// write checks every record, then streams them (a large model's records
// are never held at once).
func write(w io.Writer, p *Params, states, words []string, unseen []float64, unit format.Unit, hdr *format.Header, stats *format.Stats, check func(*format.Event) error) error {
	n := 0
	var bad error
	eachEvent(p, states, words, unseen, unit, func(e *format.Event) {
		n++
		if bad == nil {
			bad = check(e)
		}
	})
	if bad != nil {
		return bad
	}
	return eventio.WriteEach(w, hdr, n, func(emit func(*format.Event) error) error {
		var err error
		eachEvent(p, states, words, unseen, unit, func(e *format.Event) {
			if err == nil {
				err = emit(e)
			}
		})
		return err
	}, stats)
}

func describe(e *format.Event) string {
	switch e.Ev {
	// Names quoted: the description is the key of "given twice", and a
	// state or word may hold a space.
	case format.EvTrans:
		prev := make([]string, len(e.Prev))
		for i, p := range e.Prev {
			prev[i] = strconv.Quote(p)
		}
		return fmt.Sprintf("trans %s → %q", strings.Join(prev, " "), e.Next)
	case format.EvEmit:
		return fmt.Sprintf("emit %q → %q", e.State, e.Word)
	case format.EvUnseenWord:
		return fmt.Sprintf("unseen_word %q", e.State)
	}
	return e.Ev
}

// Hash identifies the model by its content (16 hex digits, FNV-1a).
func (m *Model) Hash() string {
	h := eventio.NewHasher()
	h.String(Family)
	eachEvent(m.P, m.States, m.Words, m.Unseen, format.Prob, func(e *format.Event) {
		h.String(e.Ev)
		for _, s := range e.Prev {
			h.Byte(0)
			h.String(s)
		}
		for _, s := range [3]string{e.Next, e.State, e.Word} {
			h.Byte(0)
			h.String(s)
		}
		h.Float(e.Value)
	})
	return h.Sum()
}

// builder collects HMM records by name; states and words are numbered in
// order of first appearance.
type builder struct {
	sum     bool // counts: shards add up
	order   int
	stateID map[string]int32
	states  []string
	wordID  map[string]int32
	words   []string
	trans   map[[3]int32]float64 // prev2, prev1, next; −1 the boundary
	emit    map[[2]int32]float64 // word, state
	unseen  map[int32]float64
	// Counts: the states of the shard being read, those of the first
	// shard, and the first shard (1-based) whose states are others.
	// (flags by state number; a set ends where its slice does).
	shardStates, firstStates, other []bool
	inShard                         bool
	shards, otherStates             int
}

func newBuilder(sum bool) *builder {
	return &builder{sum: sum, stateID: map[string]int32{}, wordID: map[string]int32{},
		trans: map[[3]int32]float64{}, emit: map[[2]int32]float64{}, unseen: map[int32]float64{}}
}

func (b *builder) kind() eventio.Kind {
	k := eventio.Kind{Families: []string{Family}, Add: b.add, Key: describe}
	if b.sum {
		k.Header = func(*format.Header) error {
			b.endShard()
			b.shards++
			b.shardStates, b.inShard = nil, true
			return nil
		}
	}
	return k
}

// endShard compares the states of the shard just read with the first
// shard's: shards over other states (estep --gold's of other tag sets)
// do not add up to one table, their emission records making a tag
// dictionary that no shard had.
func (b *builder) endShard() {
	switch {
	case !b.inShard:
	case b.shards == 1:
		b.firstStates = b.shardStates
	case b.otherStates == 0 && !sameSet(b.shardStates, b.firstStates):
		b.otherStates, b.other = b.shards, b.shardStates
	}
	b.shardStates, b.inShard = nil, false
}

func has(set []bool, id int) bool { return id < len(set) && set[id] }

func count(set []bool) (n int) {
	for _, in := range set {
		if in {
			n++
		}
	}
	return n
}

func sameSet(a, b []bool) bool {
	for i := range max(len(a), len(b)) {
		if has(a, i) != has(b, i) {
			return false
		}
	}
	return true
}

// errOtherStates is the error of shards over other states (nil: none).
func (b *builder) errOtherStates() error {
	b.endShard()
	if b.otherStates == 0 {
		return nil
	}
	var diff []string
	for id, name := range b.states {
		if has(b.firstStates, id) != has(b.other, id) {
			diff = append(diff, name)
		}
	}
	slices.Sort(diff)
	return fmt.Errorf("shard %d is over other states than shard 1 (%d states against %d; in one of them only: %s): shards add up over the same states only — count every shard over one model's states (estep --gold -m MODEL)", b.otherStates, count(b.other), count(b.firstStates), strings.Join(diff, " "))
}

func (b *builder) state(name string) int32 {
	if name == Boundary {
		return -1
	}
	id, ok := b.stateID[name]
	if !ok {
		id = int32(len(b.states))
		b.stateID[name] = id
		b.states = append(b.states, name)
	}
	if b.inShard {
		for int(id) >= len(b.shardStates) {
			b.shardStates = append(b.shardStates, false)
		}
		b.shardStates[id] = true
	}
	return id
}

func (b *builder) add(e *format.Event) error {
	switch e.Ev {
	case format.EvTrans:
		if len(e.Prev) != 1 && len(e.Prev) != 2 {
			return fmt.Errorf("a transition from %d states: 1 (bitag) or 2 (trigram)", len(e.Prev))
		}
		if b.order == 0 {
			b.order = len(e.Prev)
		} else if len(e.Prev) != b.order {
			return fmt.Errorf("a transition from %d states after ones from %d: bitag and trigram mixed", len(e.Prev), b.order)
		}
		key := [3]int32{-1, b.state(e.Prev[len(e.Prev)-1]), b.state(e.Next)}
		if b.order == 2 {
			key[0], key[1] = b.state(e.Prev[0]), b.state(e.Prev[1])
			if key[0] != -1 && key[1] == -1 {
				return fmt.Errorf("%s: the boundary cannot follow a state", describe(e))
			}
		}
		if key[1] == -1 && (b.order == 1 || key[0] == -1) && key[2] == -1 {
			return errors.New("a sentence cannot stop before its first word")
		}
		if _, dup := b.trans[key]; dup && !b.sum {
			return fmt.Errorf("event given twice: %s", describe(e))
		}
		b.trans[key] += e.Value
	case format.EvEmit:
		if e.State == Boundary {
			return fmt.Errorf("the boundary %q emits no word", Boundary)
		}
		t := b.state(e.State)
		w, ok := b.wordID[e.Word]
		if !ok {
			w = int32(len(b.words))
			b.wordID[e.Word] = w
			b.words = append(b.words, e.Word)
		}
		key := [2]int32{w, t}
		if _, dup := b.emit[key]; dup && !b.sum {
			return fmt.Errorf("event given twice: %s", describe(e))
		}
		b.emit[key] += e.Value
	case format.EvUnseenWord:
		if b.sum {
			return errors.New(`"unseen_word" in counts: counts hold trans and emit only`)
		}
		if e.State == Boundary {
			return fmt.Errorf("the boundary %q emits no word", Boundary)
		}
		t := b.state(e.State)
		if _, dup := b.unseen[t]; dup {
			return fmt.Errorf("event given twice: %s", describe(e))
		}
		b.unseen[t] = e.Value
	default:
		return fmt.Errorf("a %q event in an HMM model or counts (another family's?)", e.Ev)
	}
	return nil
}

// params is the collected table; every transition of every context that
// can occur must have been given, and each emission given defines the
// dictionary (a state emits only the words it has records for; all
// present: no dictionary). Both are checked before the dense tables are
// made, and those against limit bytes (≤ 0: none): a few emission
// records over many words and states could ask for far more memory than
// the file holds.
func (b *builder) params(limit int64) (*Params, error) {
	k, v := len(b.states), len(b.words)
	if b.order == 0 {
		return nil, errors.New("no trans records")
	}
	if v == 0 {
		return nil, errors.New("no emit records")
	}
	j := Job{Order: b.order, K: k, V: v}
	trans, emit := j.Tables()
	if err := memory.Check(memory.Add(memory.Of(memory.Add(trans, emit), 8), emit), limit, func() string {
		return fmt.Sprintf("a model of %d states over %d words", k, v)
	}, ""); err != nil {
		return nil, err
	}
	var allowed []bool
	if len(b.emit) != k*v {
		allowed = make([]bool, k*v)
		for key := range b.emit {
			allowed[int(key[0])*k+int(key[1])] = true
		}
	}
	s, err := NewSpace(b.order, k, v, allowed)
	if err != nil {
		return nil, err
	}
	p := NewParams(s)
	id := func(x int32) int {
		if x < 0 {
			return k
		}
		return int(x)
	}
	given := make([]bool, len(p.Trans))
	for key, val := range b.trans {
		i := s.Context(id(key[0]), id(key[1]))*(k+1) + id(key[2])
		p.Trans[i], given[i] = val, true
	}
	// Every transition of a context that can occur must be there; the
	// first one missing is named (a state that only emits, say, has none).
	want, missing := 0, ""
	name := func(x int) string {
		if x == k {
			return Boundary
		}
		return b.states[x]
	}
	for ctx := 0; ctx < s.Contexts(); ctx++ {
		if s.Order == 2 && ctx%(k+1) == k && ctx/(k+1) != k {
			continue
		}
		for next := 0; next <= k; next++ {
			if !s.transSupported(ctx, next) {
				continue
			}
			want++
			if !given[ctx*(k+1)+next] && missing == "" {
				prev := []string{name(ctx % (k + 1))}
				if s.Order == 2 {
					prev = []string{name(ctx / (k + 1)), prev[0]}
				}
				missing = describe(&format.Event{Ev: format.EvTrans, Prev: prev, Next: name(next)})
			}
		}
	}
	if len(b.trans) != want {
		return nil, fmt.Errorf("no %s record: %d trans records for %d states (%s), want %d, one per context and next state", missing, len(b.trans), k, map[int]string{1: "bitag", 2: "trigram"}[s.Order], want)
	}
	for key, val := range b.emit {
		p.Emit[int(key[0])*k+int(key[1])] = val
	}
	return p, nil
}

// SumTolerance is how far from 1 a row of a model may sum (the DMV's).
const SumTolerance = dmv.SumTolerance

// CheckDistribution checks that the rows of p — each context's
// transitions, each state's emissions over the model's words — sum to 1
// within SumTolerance, or with deficient to at most 1 + SumTolerance.
// The error names the first that does not.
func (m *Model) CheckDistribution() error {
	p := m.P
	k, k1 := p.K, p.K+1
	check := func(sum float64, what func() string) error {
		if m.Deficient && sum <= 1+SumTolerance && sum > 0 || math.Abs(sum-1) <= SumTolerance {
			return nil
		}
		if m.Deficient {
			return fmt.Errorf("%s sums to %.17g: a deficient model's rows sum to at most 1 (tolerance %g)", what(), sum, SumTolerance)
		}
		return fmt.Errorf("%s sums to %.17g, not 1 (tolerance %g): not a normalised model", what(), sum, SumTolerance)
	}
	name := func(i int) string {
		if i == k {
			return Boundary
		}
		return m.States[i]
	}
	for ctx := 0; ctx < p.Contexts(); ctx++ {
		if p.Order == 2 && ctx%k1 == k && ctx/k1 != k {
			continue // a state then the boundary: never a context
		}
		sum := 0.0
		for _, x := range p.Trans[ctx*k1 : (ctx+1)*k1] {
			sum += x
		}
		if err := check(sum, func() string {
			if p.Order == 1 {
				return "trans from " + name(ctx)
			}
			return "trans from " + name(ctx/k1) + " " + name(ctx%k1)
		}); err != nil {
			return err
		}
	}
	sums := make([]float64, k)
	for w := 0; w < p.V; w++ {
		for t, x := range p.Emit[w*k : (w+1)*k] {
			sums[t] += x
		}
	}
	for t, sum := range sums {
		if err := check(sum, func() string { return "emit of state " + m.States[t] }); err != nil {
			return err
		}
	}
	return nil
}

// ReadModel reads an HMM model file: every transition and unseen_word
// record, each row normalised (Model.CheckDistribution); its tables are
// refused when they would need more than limit bytes (≤ 0: no limit).
func ReadModel(path string, limit int64) (*Model, error) {
	b := newBuilder(false)
	hdr, err := eventio.ReadModel(pipeline.Source{Names: []string{path}}, path, b.kind())
	if err != nil {
		return nil, err
	}
	if hdr.Unit != format.Prob {
		return nil, fmt.Errorf("%s: an HMM model holds probabilities (\"p\"), not %q", path, string(hdr.Unit))
	}
	p, err := b.params(limit)
	if err == nil && len(b.unseen) != len(b.states) {
		err = fmt.Errorf("%d unseen_word records for %d states: one per state", len(b.unseen), len(b.states))
	}
	var m *Model
	if err == nil {
		m = &Model{P: p, States: b.states, Words: b.words, Unseen: make([]float64, len(b.states)), Deficient: hdr.Deficient}
		for t, v := range b.unseen {
			m.Unseen[t] = v
		}
		err = m.CheckDistribution()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// ReadWeights reads a log-linear HMM (WriteWeights): a "w" weight for
// every transition of the bitag HMM and for each emission of its
// dictionary (a state emits only the words it has records for); no
// unseen_word records. Its tables are refused when they would need more
// than limit bytes (≤ 0: no limit).
func ReadWeights(path string, limit int64) (*Model, error) {
	b := newBuilder(false)
	hdr, err := eventio.ReadModel(pipeline.Source{Names: []string{path}}, path, b.kind())
	if err != nil {
		return nil, err
	}
	if hdr.Unit != format.Weight {
		return nil, fmt.Errorf("%s: not a log-linear HMM (its weights are %q, not \"w\")", path, string(hdr.Unit))
	}
	p, err := b.params(limit)
	switch {
	case err != nil:
	case p.Order != 1:
		err = errors.New("a trigram log-linear HMM: contrastive estimation's is bitag")
	case len(b.unseen) > 0:
		err = errors.New("unseen_word records in a log-linear HMM, which knows only its words")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Model{P: p, States: b.states, Words: b.words}, nil
}

// IsWeights says whether the model file at path begins with the header
// of a log-linear HMM (family hmm, unit "w"); false when it cannot tell.
func IsWeights(path string) bool {
	if path == "" || path == "-" {
		return false
	}
	in, err := pipeline.Open(path, nil)
	if err != nil {
		return false
	}
	defer in.Close()
	line, err := bufio.NewReader(in).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return false
	}
	var e format.Event
	if format.Unmarshal(line, &e) != nil || e.Header == nil {
		return false
	}
	return e.Header.Family == Family && e.Header.Unit == format.Weight
}

// CountTable is HMM count shards read and added.
type CountTable struct {
	Counts        *Params
	States, Words []string
	Shards        eventio.Shards
}

// ReadCounts reads and adds HMM count shards (eventio.ReadCounts),
// refusing tables that would need more than limit bytes (≤ 0: no limit).
func ReadCounts(src pipeline.Source, limit int64) (*CountTable, error) {
	b := newBuilder(true)
	shards, err := eventio.ReadCounts(src, b.kind())
	if err != nil {
		return nil, err
	}
	err = b.errOtherStates()
	var p *Params
	if err == nil {
		p, err = b.params(limit)
	}
	if err == nil && shards.Stats == nil {
		err = errors.New("no stats record")
	}
	if err == nil {
		for _, xs := range [][]float64{p.Trans, p.Emit} {
			for _, x := range xs {
				if math.IsInf(x, 0) {
					err = fmt.Errorf("counts overflow: a total is %v", x)
				}
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
	}
	return &CountTable{Counts: p, States: b.states, Words: b.words, Shards: shards}, nil
}

// MStep is the model of add-λ M-step on the counts; totals beyond
// floating point are refused (Space.CheckTotals).
func (c *CountTable) MStep(lambda float64) (*Model, error) {
	s := c.Counts.Space
	name := func(i int) string {
		if i == s.K {
			return Boundary
		}
		return c.States[i]
	}
	if err := s.CheckTotals(c.Counts, lambda, name); err != nil {
		return nil, err
	}
	return &Model{P: s.Normalize(c.Counts, lambda), States: c.States, Words: c.Words, Unseen: s.UnseenNormalize(c.Counts, lambda)}, nil
}

// Number numbers the words of sents over the model's, appending those it
// has not seen (words): Extend's first half, without the new model's
// tables, so that their memory can be checked first.
func (m *Model) Number(sents []*format.Sentence) (words []string, ids [][]int32, unseen int, err error) {
	index := make(map[string]int32, len(m.Words))
	for i, w := range m.Words {
		index[w] = int32(i)
	}
	words = m.Words[:len(m.Words):len(m.Words)]
	ids = make([][]int32, len(sents))
	for i, s := range sents {
		if len(s.Words) == 0 {
			return nil, nil, 0, fmt.Errorf("sentence %d (%s) has no words: an HMM tags words", i+1, s.ID)
		}
		ids[i] = make([]int32, len(s.Words))
		for j, w := range s.Words {
			id, ok := index[w]
			if !ok {
				id = int32(len(words))
				index[w] = id
				words = append(words, w)
			}
			if int(id) >= len(m.Words) {
				unseen++
			}
			ids[i][j] = id
		}
	}
	return words, ids, unseen, nil
}

// Extend is the model over the words of sents too: a word it has not
// seen is appended, emitted by each state with its Unseen weight (or 1
// by every state when those are all 0), allowed every state. The words
// of sents are returned as numbers, with how many tokens were unseen.
func (m *Model) Extend(sents []*format.Sentence) (*Model, [][]int32, int, error) {
	words, ids, unseen, err := m.Number(sents)
	if err != nil || len(words) == len(m.Words) {
		return m, ids, unseen, err
	}
	k, old := m.P.K, m.P.V
	var allowed []bool
	if m.P.Allowed != nil {
		allowed = make([]bool, len(words)*k)
		copy(allowed, m.P.Allowed)
		for i := old * k; i < len(allowed); i++ {
			allowed[i] = true
		}
	}
	s, err := NewSpace(m.P.Order, k, len(words), allowed)
	if err != nil {
		return nil, nil, 0, err
	}
	p := NewParams(s)
	copy(p.Trans, m.P.Trans)
	copy(p.Emit, m.P.Emit)
	fill := m.Unseen
	if allZero(fill) {
		fill = make([]float64, k)
		for t := range fill {
			fill[t] = 1
		}
	}
	for w := old; w < len(words); w++ {
		copy(p.Emit[w*k:(w+1)*k], fill)
	}
	return &Model{P: p, States: m.States, Words: words, Unseen: m.Unseen, Deficient: m.Deficient}, ids, unseen, nil
}

func allZero(xs []float64) bool {
	for _, x := range xs {
		if x != 0 {
			return false
		}
	}
	return true
}

// StartOn is m as the start of training on corpus c (train-hmm -m): the
// weights over c's words — a word m never saw weighted by its Unseen
// value, or 1 by every state when those are all 0 (as Extend does) —
// with each row renormalised over what the space (a tag dictionary's
// allowed) lets it emit or reach; the model of a run on c itself (its
// words, in order, and its dictionary) is taken as it is. m must have
// the order and the states of the space.
func (m *Model) StartOn(c *Corpus, allowed []bool) (*Params, error) {
	s, err := NewSpace(m.P.Order, m.P.K, len(c.Words), allowed)
	if err != nil {
		return nil, err
	}
	if slices.Equal(m.Words, c.Words) && slices.Equal(m.P.Allowed, allowed) {
		// The model of a run on this corpus: its weights as they are, so
		// that n more iterations from it are the run's n more.
		return &Params{Space: s, Trans: slices.Clone(m.P.Trans), Emit: slices.Clone(m.P.Emit)}, nil
	}
	w := NewParams(s)
	copy(w.Trans, m.P.Trans)
	index := make(map[string]int, len(m.Words))
	for i, word := range m.Words {
		index[word] = i
	}
	fill := m.Unseen
	if allZero(fill) {
		fill = make([]float64, s.K)
		for t := range fill {
			fill[t] = 1
		}
	}
	k := s.K
	for i, word := range c.Words {
		row := fill
		if j, ok := index[word]; ok {
			row = m.P.Emit[j*k : (j+1)*k]
		}
		copy(w.Emit[i*k:(i+1)*k], row)
	}
	return s.Normalize(w, 0), nil
}

// CorpusOf is a Corpus of already numbered sentences over m's words.
func CorpusOf(sents []*format.Sentence, ids [][]int32, words []string) *Corpus {
	c := &Corpus{Words: words, Sents: ids, Source: sents}
	for _, s := range ids {
		c.Tokens += len(s)
		c.MaxLen = max(c.MaxLen, len(s))
	}
	return c
}

// Reweighted is the model annealing's E-step runs on: every weight p
// becomes p^β·skew^(1−β) (skew nil: p^β), Unseen too.
func (m *Model) Reweighted(beta float64, skew *Model) *Model {
	var sp *Params
	var su []float64
	if skew != nil {
		sp, su = skew.P, skew.Unseen
	}
	u := make([]float64, len(m.Unseen))
	for t, v := range m.Unseen {
		if v > 0 {
			u[t] = math.Pow(v, beta)
			if su != nil {
				u[t] *= math.Pow(su[t], 1-beta)
			}
		}
	}
	return &Model{P: Anneal(m.P, beta, sp), States: m.States, Words: m.Words, Unseen: u}
}
