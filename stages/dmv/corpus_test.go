package dmv

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// randomSentences draws sentences over tagCount tags named t0, t1, …,
// with gold heads (a right-branching chain) on every other one when
// someGold.
func randomSentences(rng *rand.Rand, count, maxLen, tagCount int, someGold bool) []*format.Sentence {
	var out []*format.Sentence
	for i := range count {
		n := 1 + rng.IntN(maxLen)
		s := &format.Sentence{ID: fmt.Sprintf("s#%d", i+1)}
		for range n {
			s.Tags = append(s.Tags, fmt.Sprintf("t%d", rng.IntN(tagCount)))
		}
		if !someGold || i%2 == 1 { // the first sentence without: its heads are filled in later
			for k := range n {
				s.Heads = append(s.Heads, k) // token k+1's head is token k; the first is the root
			}
		}
		out = append(out, s)
	}
	return out
}

// The compact corpus gives back every sentence's tags, gold heads and id,
// with one byte per tag up to 256 tags and two beyond.
func TestCompactCorpusKeepsEverySentence(t *testing.T) {
	for _, tc := range []struct {
		tags     int
		someGold bool
		wide     bool
	}{{5, false, false}, {256, true, false}, {300, true, true}} {
		rng := rand.New(rand.NewPCG(uint64(tc.tags), 2))
		sents := randomSentences(rng, 500, 30, tc.tags, tc.someGold)
		c, err := NewCorpus(sents, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.tag16 != nil; got != tc.wide || (c.tag8 != nil) == tc.wide {
			t.Errorf("%d tags: uint16 store %v, want %v", tc.tags, got, tc.wide)
		}
		if c.Len() != len(sents) || c.HasGold() == tc.someGold {
			t.Fatalf("%d tags: %d sentences, gold %v", tc.tags, c.Len(), c.HasGold())
		}
		tokens, maxLen := 0, 0
		for i, s := range sents {
			want, err := c.Tags.Encode(s.Tags, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Sent(i, nil); !slices.Equal(got, want) {
				t.Fatalf("sentence %d: tags %v, want %v", i, got, want)
			}
			if got := c.Gold(i, nil); !slices.Equal(got, s.Heads) || (got == nil) != (s.Heads == nil) {
				t.Fatalf("sentence %d: heads %v, want %v", i, got, s.Heads)
			}
			if c.ID(i) != s.ID {
				t.Fatalf("sentence %d: id %q, want %q", i, c.ID(i), s.ID)
			}
			tokens += len(s.Tags)
			maxLen = max(maxLen, len(s.Tags))
		}
		if c.Tokens != tokens || c.MaxLen != maxLen {
			t.Errorf("tokens %d, longest %d; want %d, %d", c.Tokens, c.MaxLen, tokens, maxLen)
		}
		if !slices.IsSorted(c.Tags.Names()) {
			t.Errorf("tag set not sorted")
		}
	}
}

// A builder given a tag set numbers tags in it and refuses others; one
// finished with a set (a start model's, extended) renumbers.
func TestCorpusBuilderTagSets(t *testing.T) {
	ts := NewTagSet("B", "A", "C")
	b := NewCorpusBuilder(CorpusOptions{Tags: ts})
	if err := b.Add(&format.Sentence{Tags: []string{"A", "C"}}); err != nil {
		t.Fatal(err)
	}
	if err := b.Add(&format.Sentence{Tags: []string{"D"}}); err == nil || !strings.Contains(err.Error(), `"D"`) {
		t.Fatalf("unknown tag: %v", err)
	}
	c, _ := b.Finish(nil)
	if got := c.Sent(0, nil); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("given set: %v", got)
	}
	b = NewCorpusBuilder(CorpusOptions{})
	b.Add(&format.Sentence{Tags: []string{"C", "A"}})
	if got := b.Names(); !slices.Equal(got, []string{"C", "A"}) {
		t.Errorf("names in first-seen order: %v", got)
	}
	c, err := b.Finish(ts)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Sent(0, nil); !slices.Equal(got, []int{2, 1}) {
		t.Errorf("renumbered: %v", got)
	}
	b = NewCorpusBuilder(CorpusOptions{})
	b.Add(&format.Sentence{Tags: []string{"Z"}})
	if _, err := b.Finish(ts); err == nil {
		t.Error("a tag outside the set Finish was given: no error")
	}
}

// writeCorpusFile writes sentences as JSON lines, with the hostile parts
// a reader must get through: a byte-order mark, blank lines, CRLF
// endings, and bad records (which --skip-bad skips on every pass).
func writeCorpusFile(t *testing.T, path string, sents []*format.Sentence, bom bool) {
	var b bytes.Buffer
	if bom {
		b.Write(utf8BOM)
	}
	for i, s := range sents {
		line, err := format.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		if i%7 == 3 {
			b.WriteString("\r\n\n")
		} else {
			b.WriteString("\n")
		}
		if i%50 == 10 {
			b.WriteString(`{"tags":[]}` + "\n" + "not json\n")
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sameParams(a, b *Params) bool {
	ta, tb := a.Tables(), b.Tables()
	for k := range ta {
		if !slices.Equal(ta[k], tb[k]) {
			return false
		}
	}
	return true
}

// A streamed corpus is the corpus held in memory: the same sentences in
// the same order from any starting point (its sparse index made tiny
// here, so that its stride doubles many times), and E-steps equal to the
// bit for any number of workers.
func TestStreamedCorpusEqualsInMemory(t *testing.T) {
	defer func(m int) { maxIndex = m }(maxIndex)
	maxIndex = 4
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 7))
	sents := randomSentences(rng, 700, 12, 6, false)
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	writeCorpusFile(t, a, sents[:300], true)
	writeCorpusFile(t, b, sents[300:], false)
	src := pipeline.Source{Names: []string{a, b}, Bad: &pipeline.BadRecords{Skip: true}}
	mem := NewCorpusBuilder(CorpusOptions{Gold: true})
	if err := pipeline.EachSentence(src, func(s *format.Sentence) error { return mem.Add(s) }); err != nil {
		t.Fatal(err)
	}
	inMemory, err := mem.Finish(nil)
	if err != nil {
		t.Fatal(err)
	}
	bad := &pipeline.BadRecords{Skip: true}
	streamed, err := OpenStream(src.Names, StreamOptions{Bad: bad, Gold: true})
	if err != nil {
		t.Fatal(err)
	}
	if bad.Count != src.Bad.Count || bad.Count == 0 {
		t.Errorf("bad records: streamed %d, in memory %d", bad.Count, src.Bad.Count)
	}
	if streamed.Len() != len(sents) || streamed.Tokens != inMemory.Tokens || streamed.MaxLen != inMemory.MaxLen ||
		!slices.Equal(streamed.Tags.Names(), inMemory.Tags.Names()) || !streamed.HasGold() {
		t.Fatalf("streamed corpus: %d sentences, %d tokens, longest %d, tags %v", streamed.Len(), streamed.Tokens, streamed.MaxLen, streamed.Tags.Names())
	}
	if streamed.stream.stride < 64 {
		t.Fatalf("stride %d: the index never thinned", streamed.stream.stride)
	}
	type sent struct {
		i           int
		tags, heads []int
	}
	collect := func(c *Corpus, lo, hi int) []sent {
		var out []sent
		if err := c.Each(lo, hi, func(i int, tags, heads []int) {
			out = append(out, sent{i, slices.Clone(tags), slices.Clone(heads)})
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	for range 30 {
		lo := rng.IntN(len(sents))
		hi := lo + rng.IntN(len(sents)-lo+1)
		got, want := collect(streamed, lo, hi), collect(inMemory, lo, hi)
		if len(got) != hi-lo || len(got) != len(want) {
			t.Fatalf("Each(%d, %d): %d sentences streamed, %d in memory", lo, hi, len(got), len(want))
		}
		for k := range got {
			if got[k].i != want[k].i || !slices.Equal(got[k].tags, want[k].tags) || !slices.Equal(got[k].heads, want[k].heads) {
				t.Fatalf("Each(%d, %d): sentence %d streamed %v, in memory %v", lo, hi, lo+k, got[k], want[k])
			}
		}
	}
	w := randomWeights(rng, inMemory.Tags.Len(), true)
	for _, opts := range []EStepOptions{{}, {Hard: true}, {Gold: true}} {
		want := NewEStepper(inMemory).Run(w, EStepOptions{Workers: 1, Hard: opts.Hard, Gold: opts.Gold})
		for workers := 1; workers <= 3; workers++ {
			opts.Workers = workers
			got := NewEStepper(streamed).Run(w, opts)
			if got.Err != nil {
				t.Fatal(got.Err)
			}
			if got.LogLik != want.LogLik || !sameParams(got.Counts, want.Counts) {
				t.Errorf("%+v: streamed E-step differs (log-likelihood %v, in memory %v)", opts, got.LogLik, want.LogLik)
			}
		}
	}
}

// A file that changes under a streamed corpus stops the next pass with
// an error naming it; stdin, pipes and compressed files are refused.
func TestStreamedCorpusRefusals(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.jsonl")
	sents := randomSentences(rand.New(rand.NewPCG(1, 1)), 100, 8, 4, false)
	writeCorpusFile(t, path, sents, false)
	c, err := OpenStream([]string{path}, StreamOptions{Bad: &pipeline.BadRecords{Skip: true}})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"tags":["t1"]}` + "\n")
	f.Close()
	res := NewEStepper(c).Run(randomWeights(rand.New(rand.NewPCG(2, 2)), c.Tags.Len(), true), EStepOptions{Workers: 2})
	if res.Err == nil || !strings.Contains(res.Err.Error(), "changed") || !strings.Contains(res.Err.Error(), path) {
		t.Errorf("a changed file: %v", res.Err)
	}
	// Same size, different bytes, mtime moved on: still caught.
	writeCorpusFile(t, path, sents, false)
	c, _ = OpenStream([]string{path}, StreamOptions{Bad: &pipeline.BadRecords{Skip: true}})
	data, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(data, []byte(`"t1"`), []byte(`"t9"`), 1), 0o644)
	os.Chtimes(path, time.Now().Add(time.Hour), time.Now().Add(time.Hour))
	if err := c.Each(0, c.Len(), func(int, []int, []int) {}); err == nil {
		t.Error("a rewritten file: no error")
	}

	gz := filepath.Join(dir, "c.jsonl.gz")
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	os.WriteFile(gz, b.Bytes(), 0o644)
	for _, names := range [][]string{nil, {"-"}, {gz}, {dir}} {
		if _, err := OpenStream(names, StreamOptions{}); !errors.Is(err, ErrNotSeekable) {
			t.Errorf("OpenStream(%v): %v, want ErrNotSeekable", names, err)
		}
	}
	if _, err := OpenStream([]string{filepath.Join(dir, "missing")}, StreamOptions{}); err == nil || errors.Is(err, ErrNotSeekable) {
		t.Errorf("a missing file: %v", err)
	}
}

// DecodeEach parses every sentence, in order, as the decoder does one at
// a time, across batches and for any number of workers.
func TestDecodeEachInOrder(t *testing.T) {
	defer func(b int) { decodeBatch = b }(decodeBatch)
	decodeBatch = 7
	rng := rand.New(rand.NewPCG(5, 5))
	c, err := NewCorpus(randomSentences(rng, 100, 9, 4, true), nil)
	if err != nil {
		t.Fatal(err)
	}
	w := randomWeights(rng, c.Tags.Len(), true)
	dec, chart := NewDecoder(c.Tags, w), NewChart(c.MaxLen)
	for workers := 1; workers <= 3; workers++ {
		next := 0
		err := NewEStepper(c).DecodeEach(c.Tags, w, workers, func(i int, gold, pred []int) {
			if i != next {
				t.Fatalf("sentence %d after %d", i, next-1)
			}
			next++
			x := c.Sent(i, nil)
			want := make([]int, len(x))
			dec.Decode(chart, x, want, false)
			if !slices.Equal(pred, want) || !slices.Equal(gold, c.Gold(i, nil)) || (gold == nil) != (c.Gold(i, nil) == nil) {
				t.Fatalf("%d workers, sentence %d: parse %v gold %v, want %v and %v", workers, i, pred, gold, want, c.Gold(i, nil))
			}
		})
		if err != nil || next != c.Len() {
			t.Fatalf("%d workers: %d sentences, %v", workers, next, err)
		}
	}
}

// Builders of consecutive parts joined give the corpus of one builder
// that took every sentence: the same tags in the same first-seen order,
// gold heads, ids, and a store widened to uint16 wherever one builder
// would widen it.
func TestCorpusBuilderJoin(t *testing.T) {
	for _, tc := range []struct {
		tags     int
		someGold bool
		opts     CorpusOptions
	}{
		{5, false, CorpusOptions{}},
		{40, true, CorpusOptions{Gold: true, IDs: true}},
		{300, true, CorpusOptions{Gold: true, IDs: true}}, // uint16 in some parts, not in others
		{300, true, CorpusOptions{IDs: true}},
		{3, true, CorpusOptions{Tags: NewTagSet("t2", "t0", "t1"), Gold: true}},
	} {
		rng := rand.New(rand.NewPCG(uint64(tc.tags), 9))
		sents := randomSentences(rng, 400, 12, tc.tags, tc.someGold)
		for i := 0; i < len(sents); i += 5 { // parts of gold-only and gold-free runs too
			sents[i].Heads = nil
		}
		one := NewCorpusBuilder(tc.opts)
		for _, s := range sents {
			if err := one.Add(s); err != nil {
				t.Fatal(err)
			}
		}
		for _, cuts := range [][]int{{0, 400}, {0, 1, 400}, {0, 3, 150, 151, 399, 400}, {0, 0, 200, 200, 400}} {
			var joined *CorpusBuilder
			for k := 0; k+1 < len(cuts); k++ {
				b := NewCorpusBuilder(tc.opts)
				b.Reserve(k, 7*k) // room ahead changes nothing
				for _, s := range sents[cuts[k]:cuts[k+1]] {
					if err := b.Add(s); err != nil {
						t.Fatal(err)
					}
				}
				if joined == nil {
					joined = b
					continue
				}
				joined.Reserve(b.Len(), b.Tokens())
				if err := joined.Join(b); err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Equal(joined.Names(), one.Names()) {
				t.Fatalf("%d tags, cuts %v: names %v, want %v", tc.tags, cuts, joined.Names(), one.Names())
			}
			got, err := joined.Finish(nil)
			if err != nil {
				t.Fatal(err)
			}
			ref := NewCorpusBuilder(tc.opts)
			for _, s := range sents {
				ref.Add(s)
			}
			want, err := ref.Finish(nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.Len() != want.Len() || got.Tokens != want.Tokens || got.MaxLen != want.MaxLen || got.HasGold() != want.HasGold() ||
				(got.tag16 == nil) != (want.tag16 == nil) || !slices.Equal(got.Tags.Names(), want.Tags.Names()) {
				t.Fatalf("%d tags, cuts %v: %d sentences, %d tokens, longest %d, gold %v, wide %v; want %d, %d, %d, %v, %v", tc.tags, cuts,
					got.Len(), got.Tokens, got.MaxLen, got.HasGold(), got.tag16 != nil, want.Len(), want.Tokens, want.MaxLen, want.HasGold(), want.tag16 != nil)
			}
			for i := range want.Len() {
				if !slices.Equal(got.Sent(i, nil), want.Sent(i, nil)) || !slices.Equal(got.Gold(i, nil), want.Gold(i, nil)) ||
					(got.Gold(i, nil) == nil) != (want.Gold(i, nil) == nil) || got.ID(i) != want.ID(i) {
					t.Fatalf("%d tags, cuts %v: sentence %d: %v %v %q, want %v %v %q", tc.tags, cuts, i,
						got.Sent(i, nil), got.Gold(i, nil), got.ID(i), want.Sent(i, nil), want.Gold(i, nil), want.ID(i))
				}
			}
		}
	}
}

// A worker held up does not make the others take a count table for each
// chunk they run on alone (a one-shot estep touched up to 63 of them on
// a busy machine): they wait at most 2·workers chunks past the first
// not yet added, and the counts are those of one worker, bit for bit.
func TestEStepWorkersWaitForAHeldUpChunk(t *testing.T) {
	w := randomWeights(rand.New(rand.NewPCG(3, 3)), 35, true)
	c := CorpusFromNumbers(NewTagSet(), benchSentences(640, 6))
	want := NewEStepper(c).Run(w, EStepOptions{Workers: 1})
	for _, workers := range []int{2, 3} {
		held := func(i int, _, _ []float64) {
			if i == 0 { // chunk 0's worker, while the others run on
				time.Sleep(50 * time.Millisecond)
			}
		}
		e := NewEStepper(c)
		got := e.Run(w, EStepOptions{Workers: workers, Posteriors: held})
		if tables := len(e.free); tables > 2*workers {
			t.Errorf("%d workers, chunk 0 held up: %d count tables made, want at most %d", workers, tables, 2*workers)
		}
		if got.LogLik != want.LogLik || !sameParams(got.Counts, want.Counts) {
			t.Errorf("%d workers, chunk 0 held up: the counts differ from one worker's", workers)
		}
	}
}

// A chunk that panics while other workers wait for it reaches the caller
// as the panic, not as an E-step that never ends.
func TestEStepPanicWhileWorkersWait(t *testing.T) {
	w := randomWeights(rand.New(rand.NewPCG(3, 3)), 35, true)
	c := CorpusFromNumbers(NewTagSet(), benchSentences(640, 6))
	boom := func(i int, _, _ []float64) {
		if i == 0 {
			time.Sleep(20 * time.Millisecond) // the others run up to their bound
			panic("boom")
		}
	}
	got := make(chan any, 1)
	go func() {
		defer func() { got <- recover() }()
		NewEStepper(c).Run(w, EStepOptions{Workers: 2, Posteriors: boom})
	}()
	select {
	case r := <-got:
		if r != "boom" {
			t.Errorf("recovered %v, want the chunk's panic", r)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the E-step hung after a chunk panicked")
	}
}
