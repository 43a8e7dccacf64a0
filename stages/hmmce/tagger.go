package hmmce

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/eventio"
	"github.com/grind-nlp/grind/stages/hmm"
	"github.com/grind-nlp/grind/stages/memory"
)

// Family is the header family of a trained log-linear HMM (a tagger of
// train-hmm --estimator ce): weights, not probabilities, so it has no
// E-step or M-step of its own; tag and decode apply it.
const Family = "hmmce"

// Boundary names the sentence boundary in transition records, as the
// HMM's do (hmm.Boundary).
const Boundary = "<s>"

// Tagger is a trained log-linear HMM with names: its layout and weights,
// the names of its states, words and spelling features, and the
// neighbourhood it was trained with (select-model's default for --by
// contrast).
type Tagger struct {
	M        *Model
	Theta    []float64
	States   []string
	Words    []string
	Features []string // the spelling features' names, by id (none without --spelling)
	Nbhd     string
	index    map[string]int
	feature  map[string]int
}

// tagHeader and tagRecord are the lines of a tagger file.
type tagHeader struct {
	Ev       string   `json:"ev"`
	Family   string   `json:"family"`
	Unit     string   `json:"unit"`
	Order    int      `json:"order"`
	States   []string `json:"states"`
	Spelling bool     `json:"spelling"`
	Nbhd     string   `json:"nbhd"`
	Events   int      `json:"events"`
}

type tagRecord struct {
	Ev      string   `json:"ev"`
	Prev    []string `json:"prev,omitempty"`
	Next    string   `json:"next,omitempty"`
	State   string   `json:"state,omitempty"`
	Word    string   `json:"word,omitempty"`
	Feature string   `json:"feature,omitempty"`
	W       float64  `json:"w"`
}

// tagLine is any line as read.
type tagLine struct {
	tagRecord
	Family   string   `json:"family"`
	Unit     string   `json:"unit"`
	Order    *int     `json:"order"`
	States   []string `json:"states"`
	Spelling bool     `json:"spelling"`
	Nbhd     string   `json:"nbhd"`
	Events   *int     `json:"events"`
	Tags     []string `json:"tags"`
	WordsOf  []string `json:"words"`
}

// NewTagger names a trained model.
func NewTagger(m *Model, theta []float64, states, words, features []string, nbhd string) *Tagger {
	t := &Tagger{M: m, Theta: theta, States: states, Words: words, Features: features, Nbhd: nbhd}
	t.finish()
	return t
}

func (t *Tagger) finish() {
	t.index = make(map[string]int, len(t.Words))
	for i, w := range t.Words {
		t.index[w] = i
	}
	t.feature = make(map[string]int, len(t.Features))
	for i, f := range t.Features {
		t.feature[f] = i
	}
}

func (t *Tagger) name(i int) string {
	if i == t.M.K {
		return Boundary
	}
	return t.States[i]
}

// eachRecord calls fn with every weight of the model as a record:
// transitions by context then next tag (those of contexts that occur, the
// empty sentence left out), emissions by word then state (those the
// dictionary allows), spelling weights by feature then state.
func (t *Tagger) eachRecord(fn func(r *tagRecord) error) error {
	m, k, k1 := t.M, t.M.K, t.M.K+1
	for ctx := 0; ctx < m.contexts(); ctx++ {
		var prev []string
		if m.Trigram() {
			if ctx%k1 == k && ctx/k1 != k {
				continue // a tag then the boundary: never a context
			}
			prev = []string{t.name(ctx / k1), t.name(ctx % k1)}
		} else {
			prev = []string{t.name(ctx)}
		}
		for next := 0; next <= k; next++ {
			if next == k && (ctx == k && !m.Trigram() || ctx == k*k1+k && m.Trigram()) {
				continue // no empty sentence
			}
			if err := fn(&tagRecord{Ev: "trans", Prev: prev, Next: t.name(next), W: t.Theta[m.trans(ctx, next)]}); err != nil {
				return err
			}
		}
	}
	for w := range t.Words {
		for s := 0; s < k; s++ {
			if m.Allowed == nil || m.Allowed[w*k+s] {
				if err := fn(&tagRecord{Ev: "emit", State: t.States[s], Word: t.Words[w], W: t.Theta[m.emit(s, w)]}); err != nil {
					return err
				}
			}
		}
	}
	for f, name := range t.Features {
		for s := 0; s < k; s++ {
			if err := fn(&tagRecord{Ev: "spell", State: t.States[s], Feature: name, W: t.Theta[m.spell(s, f)]}); err != nil {
				return err
			}
		}
	}
	return nil
}

// Write writes the tagger: its header, then its weights (eachRecord). A
// weight that is not finite is refused before anything is written.
func (t *Tagger) Write(w io.Writer) error {
	n := 0
	err := t.eachRecord(func(r *tagRecord) error {
		n++
		if math.IsNaN(r.W) || math.IsInf(r.W, 0) {
			return fmt.Errorf("the model made is not valid (a weight of %v): nothing written", r.W)
		}
		return nil
	})
	if err != nil {
		return err
	}
	order := 1
	if t.M.Trigram() {
		order = 2
	}
	h := tagHeader{Ev: "header", Family: Family, Unit: string(format.Weight), Order: order, States: t.States,
		Spelling: t.Features != nil, Nbhd: t.Nbhd, Events: n}
	if err := pipeline.WriteRecord(w, h); err != nil {
		return err
	}
	return t.eachRecord(func(r *tagRecord) error { return pipeline.WriteRecord(w, r) })
}

// ReadTagger reads a tagger file, checking it whole: the header, every
// record's names, no weight twice, every transition of every context
// there, an emission for every word, and the count of events. Its tables
// are refused when they would need more than limit bytes (≤ 0: no
// limit). A log-linear HMM (family hmm, unit "w": ce-step's model, its
// spelling folded into the emissions) is read as the bitag tagger it is.
func ReadTagger(path string, limit int64) (*Tagger, error) {
	if hmm.IsWeights(path) {
		w, err := hmm.ReadWeights(path, limit)
		if err != nil {
			return nil, err
		}
		m, theta := fromParams(w.P)
		return NewTagger(m, theta, w.States, w.Words, nil, ""), nil
	}
	in, err := pipeline.Open(path, nil)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	var h *tagLine
	stateID := map[string]int{}
	wordID, featID := map[string]int{}, map[string]int{}
	var words, feats []string
	trans := map[[3]int]float64{}
	emit, spell := map[[2]int]float64{}, map[[2]int]float64{}
	events := 0
	state := func(name string, boundary bool) (int, error) {
		if name == Boundary && boundary {
			return -1, nil
		}
		id, ok := stateID[name]
		if !ok {
			return 0, fmt.Errorf("state %q is not among the header's states", name)
		}
		return id, nil
	}
	err = pipeline.EachRecordIn(in, nil, func(l *tagLine, at *pipeline.Lines) error {
		if h == nil {
			if err := checkTagHeader(l); err != nil {
				return at.Errorf("%v", err)
			}
			h = l
			for i, s := range l.States {
				if _, dup := stateID[s]; dup {
					return at.Errorf("state %q twice in the header", s)
				}
				stateID[s] = i
			}
			return nil
		}
		events++
		if events > *h.Events {
			return at.Errorf("more events than the header's %d", *h.Events)
		}
		switch l.Ev {
		case "trans":
			if len(l.Prev) != *h.Order {
				return at.Errorf("a transition from %d states in a model of order %d", len(l.Prev), *h.Order)
			}
			key := [3]int{-1, 0, 0}
			ids := make([]int, 0, 3)
			for _, name := range append(append([]string(nil), l.Prev...), l.Next) {
				id, err := state(name, true)
				if err != nil {
					return at.Errorf("%v", err)
				}
				ids = append(ids, id)
			}
			copy(key[3-len(ids):], ids)
			if *h.Order == 2 && key[0] != -1 && key[1] == -1 {
				return at.Errorf("trans %v: the boundary cannot follow a state", l.Prev)
			}
			if key[1] == -1 && key[0] == -1 && key[2] == -1 {
				return at.Errorf("a sentence cannot stop before its first word")
			}
			if _, dup := trans[key]; dup {
				return at.Errorf("trans %q → %q given twice", l.Prev, l.Next)
			}
			trans[key] = l.W
		case "emit", "spell":
			s, err := state(l.State, false)
			if err != nil {
				return at.Errorf("%v", err)
			}
			name, ids, names, tab := l.Word, wordID, &words, emit
			if l.Ev == "spell" {
				name, ids, names, tab = l.Feature, featID, &feats, spell
			}
			if name == "" {
				return at.Errorf(`an %q record needs %q`, l.Ev, map[string]string{"emit": "word", "spell": "feature"}[l.Ev])
			}
			id, ok := ids[name]
			if !ok {
				id = len(*names)
				ids[name] = id
				*names = append(*names, name)
			}
			if _, dup := tab[[2]int{id, s}]; dup {
				return at.Errorf("%s %q → %q given twice", l.Ev, l.State, name)
			}
			tab[[2]int{id, s}] = l.W
		case "header":
			return at.Errorf("a second header")
		default:
			return at.Errorf(`event %q: a CE tagger has "trans", "emit" and "spell" records`, l.Ev)
		}
		if math.IsNaN(l.W) || math.IsInf(l.W, 0) {
			return at.Errorf("a weight of %v", l.W)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	where := func(format string, args ...any) error {
		return &pipeline.LineError{File: in.Name, Err: fmt.Errorf(format, args...)}
	}
	switch {
	case h == nil:
		return nil, where("empty: not a CE tagger (train-hmm --estimator ce --save-model writes one)")
	case events < *h.Events:
		return nil, where("cut off: the header says %d events, the file has %d", *h.Events, events)
	case len(words) == 0:
		return nil, where("no emit records")
	case h.Spelling != (len(feats) > 0):
		return nil, where("the header says spelling %v, and the file has %d spell records", h.Spelling, len(spell))
	}
	m := &Model{K: len(h.States), V: len(words), F: len(feats), Order: *h.Order}
	if err := m.checkTables(limit); err != nil {
		return nil, where("%v", err)
	}
	theta := make([]float64, m.Dim())
	k, k1 := m.K, m.K+1
	id := func(x int) int {
		if x < 0 {
			return k
		}
		return x
	}
	for key, v := range trans {
		ctx := id(key[1])
		if m.Trigram() {
			ctx = id(key[0])*k1 + id(key[1])
		}
		theta[m.trans(ctx, id(key[2]))] = v
	}
	want := 0
	for ctx := 0; ctx < m.contexts(); ctx++ {
		if m.Trigram() && ctx%k1 == k && ctx/k1 != k {
			continue
		}
		want += k1
	}
	if want--; len(trans) != want {
		return nil, where("%d trans records for %d states (order %d), want %d: one per context and next state", len(trans), k, m.Order, want)
	}
	if len(emit) != k*len(words) {
		m.Allowed = make([]bool, k*len(words))
	}
	for key, v := range emit {
		theta[m.emit(key[1], key[0])] = v
		if m.Allowed != nil {
			m.Allowed[key[0]*k+key[1]] = true
		}
	}
	if len(feats) > 0 {
		if len(spell) != k*len(feats) {
			return nil, where("%d spell records for %d features and %d states: one per feature and state", len(spell), len(feats), k)
		}
		for key, v := range spell {
			theta[m.spell(key[1], key[0])] = v
		}
		m.Spell = make([][]int, len(words))
		for w, word := range words {
			for _, name := range Spelling(word) {
				if f, ok := featID[name]; ok {
					m.Spell[w] = append(m.Spell[w], f)
				}
			}
		}
	}
	return NewTagger(m, theta, h.States, words, feats, h.Nbhd), nil
}

// checkTagHeader says what is wrong with a tagger file's first line.
func checkTagHeader(l *tagLine) error {
	switch {
	case l.Ev == "" && (l.Tags != nil || l.WordsOf != nil):
		return errors.New("a sentence, not a CE tagger (train-hmm --estimator ce --save-model writes one; the sentences go after -m MODEL)")
	case l.Ev != "header":
		return fmt.Errorf(`not a CE tagger: its first line is not its header {"ev":"header","family":%q,...}`, Family)
	case l.Family != Family:
		return fmt.Errorf("a model of family %q, not a CE tagger (family %q)", l.Family, Family)
	case l.Unit != string(format.Weight):
		return fmt.Errorf(`a CE tagger holds weights ("unit":%q), not %q`, format.Weight, l.Unit)
	case l.Order == nil || *l.Order != 1 && *l.Order != 2:
		return errors.New(`the header needs "order": 1 (bitag) or 2 (trigram)`)
	case len(l.States) == 0:
		return errors.New(`the header needs "states", the names of the states`)
	case l.Events == nil || *l.Events < 1:
		return errors.New(`the header needs "events", the number of records after it (≥ 1)`)
	}
	for _, s := range l.States {
		if s == "" || s == Boundary {
			return fmt.Errorf("state %q: a state is named, and not %q (the boundary)", s, Boundary)
		}
	}
	return nil
}

// Extend is the model over the tagger's words and the new words of sents
// too, its weights, and the sentences as word ids. A word the tagger never
// saw has emission weight 0 under every state, the weights of the
// spelling features the tagger knows of it, and may take any state.
func (t *Tagger) Extend(sents [][]string) (*Model, []float64, [][]int) {
	m := *t.M
	index := t.index
	words := t.Words
	var added []string
	ids := make([][]int, len(sents))
	for i, s := range sents {
		ids[i] = make([]int, len(s))
		for j, w := range s {
			id, ok := index[w]
			if !ok {
				if len(added) == 0 {
					index = make(map[string]int, len(t.index)+1)
					for k, v := range t.index {
						index[k] = v
					}
				}
				id = len(words) + len(added)
				index[w] = id
				added = append(added, w)
			}
			ids[i][j] = id
		}
	}
	if len(added) == 0 {
		return t.M, t.Theta, ids
	}
	m.V = len(words) + len(added)
	theta := make([]float64, m.Dim())
	copy(theta, t.Theta[:t.M.transLen()])
	for s := 0; s < m.K; s++ {
		copy(theta[m.emit(s, 0):m.emit(s, t.M.V)], t.Theta[t.M.emit(s, 0):t.M.emit(s, t.M.V)])
	}
	copy(theta[m.spell(0, 0):], t.Theta[t.M.spell(0, 0):])
	if t.M.Allowed != nil {
		m.Allowed = make([]bool, m.V*m.K)
		copy(m.Allowed, t.M.Allowed)
		for i := t.M.V * m.K; i < len(m.Allowed); i++ {
			m.Allowed[i] = true
		}
	}
	if t.M.Spell != nil {
		m.Spell = append(t.M.Spell[:len(t.M.Spell):len(t.M.Spell)], make([][]int, len(added))...)
		for a, w := range added {
			for _, name := range Spelling(w) {
				if f, ok := t.feature[name]; ok {
					m.Spell[t.M.V+a] = append(m.Spell[t.M.V+a], f)
				}
			}
		}
	}
	return &m, theta, ids
}

// Hash identifies the tagger by its content (16 hex digits, FNV-1a).
func Hash(t *Tagger) string {
	h := eventio.NewHasher()
	h.String(Family)
	t.eachRecord(func(r *tagRecord) error {
		h.String(r.Ev)
		for _, s := range r.Prev {
			h.Byte(0)
			h.String(s)
		}
		for _, s := range [4]string{r.Next, r.State, r.Word, r.Feature} {
			h.Byte(0)
			h.String(s)
		}
		h.Float(r.W)
		return nil
	})
	return h.Sum()
}

// CheckDecode refuses, before Extend allocates, decoding sents (workers
// sentences at a time) when the extended weights and the Viterbi tables
// would need more than limit bytes (≤ 0: no limit).
func (t *Tagger) CheckDecode(sents []*format.Sentence, workers int, limit int64) error {
	m := *t.M
	longest := 0
	for _, s := range sents {
		m.V += len(s.Words) // at most this many new words
		longest = max(longest, len(s.Words))
	}
	ctx := int64(m.K)
	if m.Trigram() {
		ctx = memory.Mul(ctx, int64(m.K)+1)
	}
	viterbi := memory.Mul(memory.Mul(int64(longest), ctx), 16*int64(max(workers, 1)))
	return memory.Check(memory.Add(memory.Of(int64(m.Dim()), 8), memory.Mul(int64(m.K), int64(m.V)), viterbi), limit, func() string {
		return fmt.Sprintf("decoding with a CE tagger of %d states over %d words", m.K, m.V)
	}, "")
}

// SetFromProbs writes into theta the log of an HMM's probabilities laid
// out as stages/hmm's (transitions by context then next state, emissions
// by word then state), each clamped below at floor (log 0 cannot be
// optimised); spelling weights are left as they are.
func (m *Model) SetFromProbs(theta, trans, emit []float64, floor float64) {
	for i, p := range trans {
		theta[i] = math.Max(math.Log(p), floor)
	}
	for w := 0; w < m.V; w++ {
		for t := 0; t < m.K; t++ {
			theta[m.emit(t, w)] = math.Max(math.Log(emit[w*m.K+t]), floor)
		}
	}
}

// StartFrom is the weight vector of m (over words) with the tagger's
// weights, matched by name: transitions as they are (m has the tagger's
// order and states), a word's emissions and a spelling feature's weights
// where the tagger has them, 0 elsewhere.
func (m *Model) StartFrom(t *Tagger, words []string) []float64 {
	theta := make([]float64, m.Dim())
	copy(theta, t.Theta[:t.M.transLen()])
	for w, word := range words {
		if i, ok := t.index[word]; ok {
			for s := 0; s < m.K; s++ {
				theta[m.emit(s, w)] = t.Theta[t.M.emit(s, i)]
			}
		}
	}
	if m.Spell != nil {
		_, names := SpellingFeatures(words)
		for f, name := range names {
			if i, ok := t.feature[name]; ok {
				for s := 0; s < m.K; s++ {
					theta[m.spell(s, f)] = t.Theta[t.M.spell(s, i)]
				}
			}
		}
	}
	return theta
}

// Contrast is the contrastive objective Σ log Z(x) − log Z(N(x)) of the
// sentences (word ids of m) under the neighbourhood kind, without a
// prior: Smith's unsupervised selection of CE models on dev text.
func Contrast(m *Model, theta []float64, sents [][]int, kind string, workers int) (float64, error) {
	nb := make([]*dmv.Lattice, len(sents))
	for i, x := range sents {
		var err error
		if nb[i], err = Neighbourhood(kind, x, m.V); err != nil {
			return 0, err
		}
	}
	mw := *m
	mw.Workers = workers
	return mw.Objective(theta, sents, nb, 0, nil), nil
}
