package dmv

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// Corpus is a training or test set of tag sequences, its tags interned.
// In memory it is compact (a byte per token, 3 with gold heads, and 4
// per sentence): every tag of every sentence in one array of bytes (of
// uint16 when there are more than 256 tags), an offset per sentence, the
// gold heads likewise, and nothing else of the records (no words, no
// JSON, no slice per sentence). Streamed (OpenStream) it holds only its
// statistics and a sparse index of its files, and reads them again on
// every pass. Training loops read sentences with Each, by chunk.
type Corpus struct {
	Tags   *TagSet
	Tokens int
	MaxLen int

	n     int      // sentences
	off   []uint32 // sentence i's tokens are [off[i], off[i+1])
	tag8  []uint8  // tag numbers while they fit a byte,
	tag16 []uint16 // then here
	heads []uint16 // gold heads aligned with the tags (nil: none kept)
	gold  []uint64 // bit i: sentence i has gold heads
	golds int      // sentences with gold heads
	ids   []byte   // the ids end to end, when kept
	idOff []uint32 // sentence i's id is ids[idOff[i]:idOff[i+1]]

	stream *stream // not nil: read from files on every pass
}

// MaxSentenceLen is the longest sentence a corpus holds (heads are
// stored as uint16); the chart of a longer one would not fit in memory
// anyway.
const MaxSentenceLen = math.MaxUint16

// NewCorpus interns the sentences' tags in ts; when ts is nil, a sorted
// tag set of the sentences' own tags is made. A tag missing from a given
// ts is an error naming the sentence. Gold heads and ids are kept.
func NewCorpus(sents []*format.Sentence, ts *TagSet) (*Corpus, error) {
	b := NewCorpusBuilder(CorpusOptions{Tags: ts, Gold: true, IDs: true})
	for i, s := range sents {
		if err := b.Add(s); err != nil {
			return nil, fmt.Errorf("sentence %d (%s): %w", i+1, s.ID, err)
		}
	}
	return b.Finish(nil)
}

// CorpusOptions say what a CorpusBuilder keeps.
type CorpusOptions struct {
	// Tags, when not nil, is the tag set: a tag outside it is an error.
	// Nil interns the corpus's own tags (Finish chooses their numbers).
	Tags *TagSet
	Gold bool // keep gold heads (for --gold counts and accuracy)
	IDs  bool // keep ids (for error messages)
}

// CorpusBuilder makes a compact Corpus from sentences added one at a
// time, so that a reader can stream records into it without holding
// them.
type CorpusBuilder struct {
	opts  CorpusOptions
	c     *Corpus
	local map[string]int // the corpus's own tags, numbered as first seen
	names []string
	buf   []int
	// slots cache local by a hash of the tag: most tokens are found
	// with one short comparison, not a map lookup (estep numbers every
	// token of its corpus on every step of a shell loop).
	slots [builderSlots]builderSlot
}

type builderSlot struct {
	name string
	i    int
}

const builderSlots = 256

// builderSlot is FNV-1a of name, folded to a slot.
func builderSlotOf(name string) int {
	h := uint32(2166136261)
	for i := 0; i < len(name); i++ {
		h = (h ^ uint32(name[i])) * 16777619
	}
	return int(h^h>>16) & (builderSlots - 1)
}

// NewCorpusBuilder starts an empty corpus.
func NewCorpusBuilder(opts CorpusOptions) *CorpusBuilder {
	b := &CorpusBuilder{opts: opts, c: &Corpus{off: []uint32{0}}, local: map[string]int{}}
	clear(b.slots[:]) // written when made: intern reads a slot before it sets it (memory.Zeroed)
	return b
}

// intern numbers the tags of s: in the given tag set, or as first seen.
func (b *CorpusBuilder) intern(s *format.Sentence) ([]int, error) {
	if len(s.Tags) > MaxSentenceLen {
		return nil, fmt.Errorf("%d tokens: longer than %d, the longest sentence grind trains on", len(s.Tags), MaxSentenceLen)
	}
	b.buf = b.buf[:0]
	if ts := b.opts.Tags; ts != nil {
		for _, t := range s.Tags {
			i, ok := ts.Index(t)
			if !ok {
				return nil, fmt.Errorf("tag %q is not in the model", t)
			}
			b.buf = append(b.buf, i)
		}
		return b.buf, nil
	}
	for _, t := range s.Tags {
		slot := &b.slots[builderSlotOf(t)]
		if slot.name == t && t != "" {
			b.buf = append(b.buf, slot.i)
			continue
		}
		i, ok := b.local[t]
		if !ok {
			i = len(b.names)
			b.local[t] = i
			b.names = append(b.names, t)
		}
		if slot.name == "" {
			*slot = builderSlot{t, i}
		}
		b.buf = append(b.buf, i)
	}
	return b.buf, nil
}

// Add appends one sentence (already validated: format.Sentence.Validate).
func (b *CorpusBuilder) Add(s *format.Sentence) error {
	tags, err := b.intern(s)
	if err != nil {
		return err
	}
	c := b.c
	if uint64(c.Tokens)+uint64(len(tags)) > math.MaxUint32 {
		return fmt.Errorf("more than %d tokens: beyond what a corpus in memory holds (train with --stream)", uint64(math.MaxUint32))
	}
	if b.opts.IDs && uint64(len(c.ids))+uint64(len(s.ID)) > math.MaxUint32 {
		return errors.New("the ids of the corpus take more than 4 GiB")
	}
	i := c.n
	for _, t := range tags {
		c.appendTag(t)
	}
	if b.opts.Gold && s.Heads != nil {
		if c.heads == nil {
			c.heads = make([]uint16, c.Tokens, max(c.Tokens+len(tags), 1024))
		}
		for _, h := range s.Heads {
			c.heads = append(c.heads, uint16(h))
		}
		for len(c.gold) <= i/64 {
			c.gold = append(c.gold, 0)
		}
		c.gold[i/64] |= 1 << (i % 64)
		c.golds++
	} else if c.heads != nil {
		c.heads = append(c.heads, make([]uint16, len(tags))...)
	}
	if b.opts.IDs {
		if c.idOff == nil {
			c.idOff = make([]uint32, c.n+1)
		}
		c.ids = append(c.ids, s.ID...)
		c.idOff = append(c.idOff, uint32(len(c.ids)))
	}
	c.n++
	c.Tokens += len(tags)
	c.MaxLen = max(c.MaxLen, len(tags))
	c.off = append(c.off, uint32(c.Tokens))
	return nil
}

// appendTag stores one tag number, widening the store to uint16 when a
// number first needs it.
func (c *Corpus) appendTag(t int) {
	if c.tag16 == nil && t > math.MaxUint8 {
		c.tag16 = make([]uint16, len(c.tag8), max(2*len(c.tag8), 1024))
		for i, v := range c.tag8 {
			c.tag16[i] = uint16(v)
		}
		c.tag8 = nil
	}
	if c.tag16 != nil {
		c.tag16 = append(c.tag16, uint16(t))
	} else {
		c.tag8 = append(c.tag8, uint8(t))
	}
}

// Reserve makes room for sentences and tokens more, so that a builder
// told its corpus's size ahead allocates its arrays once.
func (b *CorpusBuilder) Reserve(sentences, tokens int) {
	c := b.c
	c.off = slices.Grow(c.off, sentences)
	if c.tag16 != nil {
		c.tag16 = slices.Grow(c.tag16, tokens)
	} else {
		c.tag8 = slices.Grow(c.tag8, tokens)
	}
	if c.heads != nil {
		c.heads = slices.Grow(c.heads, tokens)
	}
}

// Tokens is how many tokens have been added.
func (b *CorpusBuilder) Tokens() int { return b.c.Tokens }

// Join appends the sentences of o, built from a later part of the same
// input with the same options, as if they had been added to b: tags new
// to b are numbered in the order o first saw them. o is used up. An error
// (the corpus grows past what it holds) leaves b as it was.
func (b *CorpusBuilder) Join(o *CorpusBuilder) error {
	c, oc := b.c, o.c
	o.c = nil
	if uint64(c.Tokens)+uint64(oc.Tokens) > math.MaxUint32 {
		return fmt.Errorf("more than %d tokens: beyond what a corpus in memory holds (train with --stream)", uint64(math.MaxUint32))
	}
	if b.opts.IDs && uint64(len(c.ids))+uint64(len(oc.ids)) > math.MaxUint32 {
		return errors.New("the ids of the corpus take more than 4 GiB")
	}
	to := make([]int, len(o.names)) // o's numbers in b's
	for i, name := range o.names {
		j, ok := b.local[name]
		if !ok {
			j = len(b.names)
			b.local[name] = j
			b.names = append(b.names, name)
		}
		to[i] = j
	}
	if b.opts.Tags != nil { // both numbered in the given set already
		to = nil
	}
	done := 0 // of o's tokens
	if c.tag16 == nil && oc.tag16 == nil && len(b.names) <= math.MaxUint8+1 {
		// Bytes to bytes, the common case: one tight pass (the parts of
		// estep's corpus are joined after they are read, by one core).
		var to8 [math.MaxUint8 + 1]uint8
		for i := range to8 {
			to8[i] = uint8(i)
		}
		for i, j := range to {
			to8[i] = uint8(j)
		}
		n := len(c.tag8)
		c.tag8 = append(c.tag8, oc.tag8...)
		for i, v := range c.tag8[n:] {
			c.tag8[n+i] = to8[v]
		}
		done = oc.Tokens
	}
	for i := done; i < oc.Tokens; i++ {
		var t int
		if oc.tag16 != nil {
			t = int(oc.tag16[i])
		} else {
			t = int(oc.tag8[i])
		}
		if to != nil {
			t = to[t]
		}
		c.appendTag(t)
	}
	if c.heads != nil || oc.heads != nil {
		if c.heads == nil {
			c.heads = make([]uint16, c.Tokens, c.Tokens+oc.Tokens)
		}
		if oc.heads != nil {
			c.heads = append(c.heads, oc.heads...)
		} else {
			c.heads = append(c.heads, make([]uint16, oc.Tokens)...)
		}
	}
	for i := 0; i < oc.n && oc.golds > 0; i++ {
		if i/64 < len(oc.gold) && oc.gold[i/64]&(1<<(i%64)) != 0 {
			j := c.n + i
			for len(c.gold) <= j/64 {
				c.gold = append(c.gold, 0)
			}
			c.gold[j/64] |= 1 << (j % 64)
		}
	}
	c.golds += oc.golds
	if b.opts.IDs {
		if c.idOff == nil {
			c.idOff = make([]uint32, c.n+1)
		}
		base := uint32(len(c.ids))
		c.ids = append(c.ids, oc.ids...)
		for i := 1; i <= oc.n; i++ {
			off := base
			if oc.idOff != nil {
				off += oc.idOff[i]
			}
			c.idOff = append(c.idOff, off)
		}
	}
	base := uint32(c.Tokens)
	for _, off := range oc.off[1:] {
		c.off = append(c.off, base+off)
	}
	c.n += oc.n
	c.Tokens += oc.Tokens
	c.MaxLen = max(c.MaxLen, oc.MaxLen)
	return nil
}

// Names are the corpus's own tags in the order first seen (nil when the
// builder was given a tag set): what dmv.Table.Extend takes.
func (b *CorpusBuilder) Names() []string { return b.names }

// MaxLen is the length of the longest sentence added.
func (b *CorpusBuilder) MaxLen() int { return b.c.MaxLen }

// Len is how many sentences have been added.
func (b *CorpusBuilder) Len() int { return b.c.n }

// Finish returns the corpus. Its tag set is the builder's given set, else
// ts when not nil (it must hold every tag of the corpus), else the
// corpus's own tags sorted.
func (b *CorpusBuilder) Finish(ts *TagSet) (*Corpus, error) {
	c := b.c
	b.c = nil
	if b.opts.Tags != nil { // numbered in it already
		c.Tags = b.opts.Tags
		return c, nil
	}
	if ts == nil {
		ts = SortedTagSet(b.names)
	}
	// Renumber the first-seen numbers as ts numbers them.
	to := make([]int, len(b.names))
	for i, name := range b.names {
		j, ok := ts.Index(name)
		if !ok {
			return nil, fmt.Errorf("tag %q is not in the model", name)
		}
		to[i] = j
	}
	c.Tags = ts
	if c.tag16 != nil || ts.Len() <= math.MaxUint8+1 {
		for i, v := range c.tag8 {
			c.tag8[i] = uint8(to[v])
		}
		for i, v := range c.tag16 {
			c.tag16[i] = uint16(to[v])
		}
		return c, nil
	}
	old := c.tag8
	c.tag8 = nil
	c.tag16 = make([]uint16, len(old))
	for i, v := range old {
		c.tag16[i] = uint16(to[v])
	}
	return c, nil
}

// Len is the number of sentences.
func (c *Corpus) Len() int { return c.n }

// Streamed says whether the corpus is read from its files on every pass
// (Sent, Gold and ID are then not available: use Each).
func (c *Corpus) Streamed() bool { return c.stream != nil }

// SentLen is the length of sentence i (in memory).
func (c *Corpus) SentLen(i int) int { return int(c.off[i+1] - c.off[i]) }

// Sent writes the tag numbers of sentence i to buf (grown as needed) and
// returns them (in memory).
func (c *Corpus) Sent(i int, buf []int) []int {
	lo, hi := c.off[i], c.off[i+1]
	buf = buf[:0]
	if c.tag16 != nil {
		for _, t := range c.tag16[lo:hi] {
			buf = append(buf, int(t))
		}
		return buf
	}
	for _, t := range c.tag8[lo:hi] {
		buf = append(buf, int(t))
	}
	return buf
}

// Gold writes the gold heads of sentence i to buf and returns them, or
// nil when it has none (or they were not kept).
func (c *Corpus) Gold(i int, buf []int) []int {
	if c.heads == nil || i/64 >= len(c.gold) || c.gold[i/64]&(1<<(i%64)) == 0 {
		return nil
	}
	buf = buf[:0]
	for _, h := range c.heads[c.off[i]:c.off[i+1]] {
		buf = append(buf, int(h))
	}
	return buf
}

// ID is the id of sentence i ("" when ids were not kept).
func (c *Corpus) ID(i int) string {
	if c.idOff == nil {
		return ""
	}
	return string(c.ids[c.idOff[i]:c.idOff[i+1]])
}

// HasGold says whether every sentence carries gold heads.
func (c *Corpus) HasGold() bool {
	if c.stream != nil {
		return c.stream.gold && c.stream.golds == c.n && c.n > 0
	}
	return c.golds == c.n && c.n > 0
}

// Sentences are the tag numbers of every sentence, one slice each, for
// the stages that want them at hand (CE's lattices, DMV+CCM).
func (c *Corpus) Sentences() [][]int {
	out := make([][]int, c.n)
	for i := range out {
		out[i] = c.Sent(i, nil)
	}
	return out
}

// SingleRootGold applies SingleRoot to every gold tree and returns how
// many had more than one root.
func (c *Corpus) SingleRootGold() int {
	multi := 0
	var buf []int
	for i := 0; i < c.n; i++ {
		g := c.Gold(i, buf)
		if g == nil {
			continue
		}
		buf = g
		if one, moved := SingleRoot(g); moved > 0 {
			multi++
			for k, h := range one {
				c.heads[int(c.off[i])+k] = uint16(h)
			}
		}
	}
	return multi
}

// Each calls fn on sentences lo..hi−1 in order with their tag numbers and
// gold heads (nil when absent); fn must not keep the slices. A streamed
// corpus reads them from its files; an error there (a file changed since
// the corpus was opened, a failed read) stops the pass.
func (c *Corpus) Each(lo, hi int, fn func(i int, tags, heads []int)) error {
	if lo >= hi {
		return nil
	}
	if c.stream != nil {
		return c.stream.each(c, lo, hi, fn)
	}
	var tags, heads []int
	for i := lo; i < hi; i++ {
		tags = c.Sent(i, tags)
		g := c.Gold(i, heads)
		if g != nil {
			heads = g
		}
		fn(i, tags, g)
	}
	return nil
}

// EStepOptions choose the E-step's variant.
type EStepOptions struct {
	// Hard takes counts from each sentence's Viterbi tree instead of the
	// posterior over all trees (Viterbi EM); LogLik is then the sum of the
	// best trees' log weights.
	Hard bool
	// Ties, under Hard, chooses among a sentence's best trees (TiesLeft
	// when ""); TiesRandom draws with a generator seeded by Seed and the
	// sentence's index in the corpus, so the counts do not depend on the
	// workers. Not with Bound, Segment or valence settings.
	Ties Ties
	Seed uint64
	// Gold takes counts from the gold trees (supervised estimation).
	Gold bool
	// Dist, when not nil, multiplies every edge of length d by Dist(d)
	// (the km and local initializers, Model L).
	Dist func(d int) float64
	// Segment makes every sentence a sequence of trees with weight
	// e^SegBeta per tree beyond the first (Model S, segment.go).
	Segment bool
	SegBeta float64
	// LogLikOnly computes Σ log Z alone, without outside pass or counts
	// (the plain likelihood of a model trained under a bias).
	LogLikOnly bool
	// Bound, when on, restricts every sentence's trees to those within
	// the left-corner depth bound (BoundedChart): posteriors, Viterbi
	// trees and LogLik alike. It does not combine with Segment.
	Bound DepthBound
	// Workers is the number of goroutines (≤ 0: every core).
	Workers int
	// Factors, when not nil, multiplies the attachments of sentence i by
	// factors of its own (posterior regularization, stages/pr): it fills
	// edge[h·n+d] (d attached to h) and root[d] for the sentence's n
	// tokens. Called from the workers, for each sentence once.
	Factors func(i int, edge, root []float64)
	// Posteriors, when not nil, sees the attachment posteriors of
	// sentence i after its outside pass (edge[h·n+d], root[d]); not for
	// a sentence without usable posteriors. Called from the workers.
	Posteriors func(i int, edge, root []float64)
	// Piece, when not nil, is called by the worker that runs sentences
	// lo..hi−1 (one of the pieces the corpus is cut into) before their
	// Factors: the place to ready what Factors and Posteriors read of
	// them, which then sits in that core's cache.
	Piece func(lo, hi int)
}

// EStepResult is what one pass over the corpus gives.
type EStepResult struct {
	Counts *Params
	// LogLik is Σ log Z(x) under the weights given (natural log), −Inf
	// when some sentence has weight 0.
	LogLik float64
	// ZeroWeight counts the sentences whose every tree has weight 0.
	ZeroWeight int
	// Err is a failed read of a streamed corpus (nothing else is set).
	Err error
	// Unusable counts the sentences left out of LogLik and Counts because
	// their weights span more than floating point holds at any scale
	// (extreme log-linear weights, a large positive δ on long sentences:
	// a sentence with a distance whose factor Dist(d) overflows).
	Unusable int
}

// chunks is how many pieces the corpus is cut into for the E-step. It is
// fixed so that sums, taken piece by piece in order, do not depend on the
// number of workers: any --workers gives the same bytes.
const chunks = 64

// EStepper runs E-steps over one corpus, keeping its workspaces between
// iterations.
type EStepper struct {
	corpus    *Corpus
	charts    []*Chart
	bounded   []*BoundedChart // for EStepOptions.Bound
	heads     [][]int
	factors   [][]float64 // a worker's attachment factors (Factors), n² + n
	free      []*Params   // count tables of chunks, for reuse
	chunkLL   []float64
	chunkZero []int
	chunkBad  []int
	dist      []float64
	lanes     []*laneWork // a worker's batches (batch.go)
	plans     []*lanePlan // each piece's order on the lanes, a corpus in memory's (batch.go)
	tables    laneTables  // the model's potentials for the lanes
}

// NewEStepper prepares E-steps over c.
func NewEStepper(c *Corpus) *EStepper {
	return &EStepper{corpus: c}
}

// chunkBounds is where chunk k of pieces starts and ends.
func (e *EStepper) chunkBounds(k, pieces int) (lo, hi int) {
	n := e.corpus.Len()
	return k * n / pieces, (k + 1) * n / pieces
}

// Run computes expected counts (or Viterbi or gold counts) of the corpus
// under weight table w.
func (e *EStepper) Run(w *Params, opts EStepOptions) EStepResult {
	c := e.corpus
	if opts.Bound.On() && opts.Segment {
		return EStepResult{Err: errors.New("the depth bound and Model S's segments do not combine")}
	}
	if opts.Bound.On() {
		// The left-corner chart reads the plain DMV's potentials only.
		if err := RefuseValence(w.V, "the depth bound (--max-depth)"); err != nil {
			return EStepResult{Err: err}
		}
	}
	// The soft E-step of a plain DMV (or one with two child valences, or
	// within a depth bound) goes by batches of equal-length sentences
	// where there is a lane kernel (batch.go), in laneChunks pieces; the
	// other variants, and every E-step without one, one sentence at a
	// time.
	byLength := kernel != "" && !opts.Hard && !opts.Gold && !opts.Segment && w.V.onDMVChart()
	pieces := chunks
	if byLength {
		pieces = laneChunks
	}
	workers := min(pipeline.Workers(opts.Workers), pieces)
	for len(e.charts) < workers {
		e.charts = append(e.charts, NewChart(c.MaxLen))
		e.heads = append(e.heads, make([]int, c.MaxLen))
	}
	for opts.Factors != nil && len(e.factors) < workers {
		e.factors = append(e.factors, make([]float64, c.MaxLen*c.MaxLen+c.MaxLen))
	}
	if len(e.bounded) > 0 && e.bounded[0].bound != opts.Bound {
		e.bounded = nil
	}
	for opts.Bound.On() && len(e.bounded) < workers {
		e.bounded = append(e.bounded, NewBoundedChart(opts.Bound, c.MaxLen))
	}
	if len(e.free) > 0 && !e.free[0].SameShape(w) {
		e.free = nil
	}
	if opts.Segment {
		if err := RefuseValence(w.V, "Model S (segments)"); err != nil {
			return EStepResult{Err: err}
		}
	}
	tied := opts.Ties != "" && opts.Ties != TiesLeft
	if tied {
		if err := checkTies(opts, w.V); err != nil {
			return EStepResult{Err: err}
		}
	}
	if len(e.chunkLL) != pieces {
		e.chunkLL, e.chunkZero, e.chunkBad = make([]float64, pieces), make([]int, pieces), make([]int, pieces)
	}
	// Each chunk's counts are added to the total in chunk order, whatever
	// order the workers finish them in, and their table goes back to a
	// free list: a few tables live at a time, not one per chunk (a
	// one-shot estep would touch 64 of them). A worker starts a chunk at
	// most ahead chunks past the first not yet added, as many tables as
	// MemoryBytes counts: a worker held up (its thread waiting for a core
	// that other processes hold) made the other take a new table for
	// every chunk it ran on alone, 40–63 in a one-shot estep on a busy
	// machine, each a few pages touched for the first time; waiting
	// instead hands the core to the worker waited for.
	res := EStepResult{Counts: NewValenceParams(w.T, w.V)}
	ahead := 2 * workers
	var mu sync.Mutex
	advanced := sync.NewCond(&mu) // folded grew, or a chunk panicked
	pending := make([]*Params, pieces)
	folded, panicked := 0, false
	table := func(k int) *Params {
		mu.Lock()
		defer mu.Unlock()
		for k >= folded+ahead && !panicked {
			advanced.Wait()
		}
		if panicked {
			return nil
		}
		if n := len(e.free); n > 0 {
			p := e.free[n-1]
			e.free = e.free[:n-1]
			return p
		}
		return NewValenceParams(w.T, w.V)
	}
	done := func(k int, counts *Params) {
		mu.Lock()
		defer mu.Unlock()
		if counts == nil { // chunk k panicked: no chunk after it will be added
			panicked = true
		}
		pending[k] = counts
		for folded < pieces && pending[folded] != nil {
			res.Counts.Add(pending[folded])
			e.free = append(e.free, pending[folded])
			pending[folded] = nil
			folded++
		}
		advanced.Broadcast()
	}
	e.dist = e.dist[:0]
	if opts.Dist != nil {
		for d := 0; d <= c.MaxLen; d++ {
			e.dist = append(e.dist, opts.Dist(d))
		}
	}
	var dist []float64
	longest := c.MaxLen // sentences longer than this are unusable
	if opts.Dist != nil {
		dist = e.dist
		for d, v := range dist {
			if math.IsNaN(v) || math.IsInf(v, 0) { // e^{δ·d} beyond floating point
				longest = min(longest, d)
				break
			}
		}
	}
	for len(e.lanes) < workers {
		e.lanes = append(e.lanes, &laneWork{})
	}
	run := &estepRun{e: e, w: w, opts: opts, dist: dist, longest: longest, tied: tied}
	if byLength {
		e.tables.set(w)
		run.tables = &e.tables
		if len(e.plans) != pieces {
			e.plans = make([]*lanePlan, pieces)
		}
	}
	errs := make([]error, pieces)
	pipeline.ForEachChunk(pieces, workers, func(worker, k int) {
		counts := table(k)
		if counts == nil {
			return // another chunk panicked; ForEachChunk passes the panic on
		}
		ended := false
		defer func() {
			if !ended { // a panic: wake the workers waiting for this chunk
				done(k, nil)
			}
		}()
		p := &chunkPass{estepRun: run, worker: worker, counts: counts, chart: e.charts[worker], heads: e.heads[worker]}
		p.counts.Zero()
		p.tc = p.chart // Segment is the plain chart's only
		if opts.Bound.On() {
			p.tc = e.bounded[worker]
		}
		lo, hi := e.chunkBounds(k, pieces)
		if opts.Piece != nil {
			opts.Piece(lo, hi)
		}
		if byLength {
			errs[k] = p.byLength(k, lo, hi)
		} else {
			errs[k] = c.Each(lo, hi, p.sentence)
		}
		e.chunkLL[k], e.chunkZero[k], e.chunkBad[k] = p.ll, p.zero, p.bad
		done(k, p.counts)
		ended = true
	})
	if err := errors.Join(errs...); err != nil {
		return EStepResult{Err: err}
	}
	for k := 0; k < pieces; k++ {
		res.LogLik += e.chunkLL[k]
		res.ZeroWeight += e.chunkZero[k]
		res.Unusable += e.chunkBad[k]
	}
	SplitBackoff(res.Counts, w)
	return res
}

// estepRun is what the chunks of one EStepper.Run share.
type estepRun struct {
	e       *EStepper
	w       *Params
	opts    EStepOptions
	dist    []float64
	longest int // sentences longer than this are unusable
	tied    bool
	tables  *laneTables // the lanes' potentials (batch.go), when they run
}

// chunkPass is one worker's pass over one chunk: its counts and sums.
type chunkPass struct {
	*estepRun
	worker    int
	counts    *Params
	ll        float64
	zero, bad int
	chart     *Chart
	tc        TreeChart // chart, or the worker's bounded chart
	heads     []int
}

// tally adds a sentence's log Z to the pass's sums.
func (p *chunkPass) tally(logZ float64) {
	switch {
	case math.IsNaN(logZ):
		p.bad++
		return
	case math.IsInf(logZ, -1):
		p.zero++
	}
	p.ll += logZ
}

// sentence is the E-step of sentence i on the worker's scalar chart.
func (p *chunkPass) sentence(i int, tags, gold []int) {
	w, opts, dist, chart, counts := p.w, p.opts, p.dist, p.chart, p.counts
	var logZ float64
	switch {
	case len(tags) > p.longest && !opts.Gold: // some edge's distance factor is not a number
		logZ = math.NaN()
	case opts.Gold:
		AddTreeCounts(tags, gold, counts, 1)
		logZ = TreeLogWeight(tags, gold, w)
	case opts.Hard && p.tied:
		chart.Load(tags, w, dist)
		var rng *rand.Rand
		if opts.Ties == TiesRandom {
			rng = rand.New(rand.NewPCG(opts.Seed, uint64(i)))
		}
		logZ = chart.TiedViterbi(p.heads, opts.Ties, rng)
		switch {
		case math.IsInf(logZ, -1) || math.IsNaN(logZ):
		case opts.Ties == TiesSplit:
			chart.AddCounts(tags, counts, 1)
		default:
			AddTreeCounts(tags, p.heads[:len(tags)], counts, 1)
		}
	case opts.Hard:
		p.tc.Load(tags, w, dist)
		if opts.Segment {
			chart.Segment(opts.SegBeta)
		}
		logZ = p.tc.Viterbi(p.heads)
		if !math.IsInf(logZ, -1) && !math.IsNaN(logZ) {
			AddTreeCounts(tags, p.heads[:len(tags)], counts, 1)
		}
	default:
		var f []float64
		if opts.Factors != nil {
			f = p.factors(i, len(tags), p.e.factors[p.worker])
		}
		logZ = p.soft(i, tags, f)
	}
	p.tally(logZ)
}

// factors fills f with sentence i's attachment factors (Factors) and
// returns it, n² + n long.
func (p *chunkPass) factors(i, n int, f []float64) []float64 {
	p.opts.Factors(i, f[:n*n], f[n*n:n*n+n])
	return f[:n*n+n]
}

// soft is the soft E-step of sentence i (its attachment factors f, nil
// for none) on the scalar chart: its counts added, its log Z returned.
func (p *chunkPass) soft(i int, tags []int, f []float64) float64 {
	w, opts, tc := p.w, p.opts, p.tc
	if n := len(tags); f != nil {
		tc.LoadFactored(tags, w, p.dist, f[:n*n], f[n*n:n*n+n])
	} else {
		tc.Load(tags, w, p.dist)
	}
	if opts.Segment {
		p.chart.Segment(opts.SegBeta)
	}
	logZ := tc.Inside()
	if !opts.LogLikOnly && !math.IsInf(logZ, -1) && !math.IsNaN(logZ) {
		if !tc.Outside() {
			return math.NaN() // no usable posteriors
		}
		tc.AddCounts(tags, p.counts, 1)
		if opts.Posteriors != nil {
			edge, root := tc.AttachmentPosteriors()
			opts.Posteriors(i, edge, root)
		}
	}
	return logZ
}

// decodeBatch is how many sentences DecodeEach parses at a time.
var decodeBatch = 4096

// DecodeEach parses every sentence of the corpus with its Viterbi tree
// under w (heads 1-based, 0 = root; sentences of weight 0 get the
// fallback of Decoder) and calls fn in sentence order with its index,
// its gold heads (nil when absent) and the parse, which fn must not
// keep. Sentences are parsed a batch at a time, the batch spread over
// the workers, so memory does not grow with the corpus (streamed or
// held).
func (e *EStepper) DecodeEach(tags *TagSet, w *Params, workers int, fn func(i int, gold, pred []int)) error {
	c := e.corpus
	dec := NewDecoder(tags, w)
	workers = min(pipeline.Workers(workers), chunks)
	for len(e.charts) < workers {
		e.charts = append(e.charts, NewChart(c.MaxLen))
	}
	type parse struct{ tags, gold, goldBuf, pred []int }
	batch := make([]parse, min(decodeBatch, c.Len()))
	first, held := 0, 0
	flush := func() {
		pieces := min(4*workers, held)
		pipeline.ForEachChunk(pieces, workers, func(worker, k int) {
			for j := k * held / pieces; j < (k+1)*held/pieces; j++ {
				b := &batch[j]
				b.pred = slices.Grow(b.pred[:0], len(b.tags))[:len(b.tags)]
				dec.Decode(e.charts[worker], b.tags, b.pred, false)
			}
		})
		for j := range held {
			fn(first+j, batch[j].gold, batch[j].pred)
		}
		first += held
		held = 0
	}
	err := c.Each(0, c.Len(), func(_ int, x, gold []int) {
		b := &batch[held]
		b.tags = append(b.tags[:0], x...)
		b.gold = nil
		if gold != nil {
			b.goldBuf = append(b.goldBuf[:0], gold...)
			b.gold = b.goldBuf
		}
		if held++; held == len(batch) {
			flush()
		}
	})
	if err != nil {
		return err
	}
	if held > 0 {
		flush()
	}
	return nil
}

// CorpusFromNumbers is a corpus of tag numbers already interned in ts
// (no gold heads, no ids), for tests and benchmarks.
func CorpusFromNumbers(ts *TagSet, sents [][]int) *Corpus {
	c := &Corpus{Tags: ts, off: []uint32{0}}
	for _, x := range sents {
		for _, t := range x {
			c.appendTag(t)
		}
		c.n++
		c.Tokens += len(x)
		c.MaxLen = max(c.MaxLen, len(x))
		c.off = append(c.off, uint32(c.Tokens))
	}
	return c
}
