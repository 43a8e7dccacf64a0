package headrules

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/testenv"
	"github.com/grind-nlp/grind/pipeline"
)

// These tests run on the PTB sample in ../shared/data and skip without it.

func sampleMRG(t testing.TB) []string {
	t.Helper()
	dir := testenv.SharedData(t, "ptb-sample", "wsj")
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.mrg"))
	if err != nil || len(files) != 199 {
		t.Fatalf("want the 199 .mrg files of %s, found %d (%v)", dir, len(files), err)
	}
	return files
}

// convertSample runs the conversion over the whole sample in memory.
func convertSample(t testing.TB, opts Options) []*format.Sentence {
	t.Helper()
	var out bytes.Buffer
	sum, err := Convert(pipeline.Source{Names: sampleMRG(t)}, &out, opts)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Trees != 3914 || sum.Empty != 0 {
		t.Fatalf("read %d trees, %d left empty; want 3914 and 0", sum.Trees, sum.Empty)
	}
	var sents []*format.Sentence
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		s := new(format.Sentence)
		if err := format.Unmarshal(sc.Bytes(), s); err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("%s: %v", s.ID, err)
		}
		sents = append(sents, s)
	}
	return sents
}

// dpToken is one line of an NLTK .dp file: word, tag, head.
type dpToken struct {
	word, tag string
	head      int
}

// readDP reads a .dp file: word TAB tag TAB head per line, a blank line
// between sentences. (The project's .dp reader lives in format; this test
// keeps its own so that it checks the conversion independently.)
func readDP(t *testing.T, path string) [][]dpToken {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sents [][]dpToken
	var cur []dpToken
	for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if line == "" {
			sents, cur = append(sents, cur), nil
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 3 {
			t.Fatalf("%s:%d: %d columns", path, i+1, len(f))
		}
		h, err := strconv.Atoi(f[2])
		if err != nil {
			t.Fatalf("%s:%d: head %q", path, i+1, f[2])
		}
		cur = append(cur, dpToken{f[0], f[1], h})
	}
	return append(sents, cur)
}

// Yamada & Matsumoto's rules with punctuation kept reproduce the heads of
// NLTK's dependency version of the sample, token for token.
func TestYMMatchesSampleDeps(t *testing.T) {
	dpDir := testenv.SharedData(t, "ptb-sample-deps-ym")
	got := convertSample(t, Options{Rules: YM, KeepPunct: true})
	byFile := map[string][]*format.Sentence{}
	for _, s := range got {
		file, _, _ := strings.Cut(s.ID, "#")
		byFile[file] = append(byFile[file], s)
	}
	var tokens, same, shown int
	for _, mrg := range sampleMRG(t) {
		base := filepath.Base(mrg)
		gold := readDP(t, filepath.Join(dpDir, strings.TrimSuffix(base, ".mrg")+".dp"))
		sents := byFile[base]
		if len(sents) != len(gold) {
			t.Fatalf("%s: %d sentences, .dp has %d", base, len(sents), len(gold))
		}
		for i, s := range sents {
			if len(s.Tags) != len(gold[i]) {
				t.Fatalf("%s: %d tokens, .dp has %d", s.ID, len(s.Tags), len(gold[i]))
			}
			for j, g := range gold[i] {
				if s.Words[j] != g.word || s.Tags[j] != g.tag {
					t.Fatalf("%s token %d: %s/%s, .dp has %s/%s", s.ID, j+1, s.Words[j], s.Tags[j], g.word, g.tag)
				}
				tokens++
				if s.Heads[j] == g.head {
					same++
				} else if shown < 10 {
					shown++
					t.Errorf("%s token %d (%s): head %d, .dp has %d", s.ID, j+1, g.word, s.Heads[j], g.head)
				}
			}
		}
	}
	pct := 100 * float64(same) / float64(tokens)
	t.Logf("ym vs ptb-sample-deps-ym: %d of %d tokens, %.2f%%", same, tokens, pct)
	if tokens != 94084 || same != tokens {
		t.Errorf("%d of %d tokens agree (%.2f%%); want all of 94084", same, tokens, pct)
	}
}

// The default conversion (Collins, punctuation removed) gives the WSJ10,
// WSJ20 and full sizes of ../shared/data/README.md.
func TestDefaultSampleCounts(t *testing.T) {
	sents := convertSample(t, Options{Rules: Collins})
	for _, tc := range []struct{ max, sentences, tokens int }{
		{10, 555, 3856}, {20, 2036, 27318}, {1 << 30, 3914, 82369},
	} {
		n, tok := 0, 0
		for _, s := range sents {
			if l := s.Len(); l >= 1 && l <= tc.max {
				n++
				tok += l
			}
		}
		if n != tc.sentences || tok != tc.tokens {
			t.Errorf("length ≤ %d: %d sentences, %d tokens; want %d, %d", tc.max, n, tok, tc.sentences, tc.tokens)
		}
	}
	for _, s := range sents {
		for _, tag := range s.Tags {
			if tag == "-NONE-" || tag == "," || tag == "$" {
				t.Fatalf("%s keeps tag %s", s.ID, tag)
			}
		}
	}
}

// Collins' rules agree with Yamada & Matsumoto's on most tokens:
// HEADRULES.md gives 84.1–85.9% with punctuation kept, depending on
// choices such as the coordination rule.
func TestCollinsAgreementWithYM(t *testing.T) {
	ym := convertSample(t, Options{Rules: YM, KeepPunct: true})
	for _, coord := range []string{CoordCollins, CoordAlways, CoordNever} {
		col := convertSample(t, Options{Rules: Collins, Coord: coord, KeepPunct: true})
		same, tokens := 0, 0
		for i, s := range col {
			for j, h := range s.Heads {
				tokens++
				if h == ym[i].Heads[j] {
					same++
				}
			}
		}
		pct := 100 * float64(same) / float64(tokens)
		t.Logf("collins --coord %s vs ym, punctuation kept: %d of %d tokens, %.2f%%", coord, same, tokens, pct)
		if pct < 84.1 || pct > 85.9 {
			t.Errorf("--coord %s: agreement %.2f%% outside 84.1–85.9%%", coord, pct)
		}
	}
}

func BenchmarkPTB2Deps(b *testing.B) {
	files := sampleMRG(b)
	var size int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			b.Fatal(err)
		}
		size += st.Size()
	}
	b.SetBytes(size)
	b.ReportAllocs()
	trees := 0
	for b.Loop() {
		sum, err := Convert(pipeline.Source{Names: files}, discard{}, Options{Rules: Collins})
		if err != nil {
			b.Fatal(err)
		}
		trees += sum.Trees
	}
	b.ReportMetric(float64(trees)/b.Elapsed().Seconds(), "trees/s")
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// With DTHeads, every NP of the sample with a DT child is headed by its
// leftmost DT: the DT is the only token of the NP's span attached outside
// it. The words, tags and trees are Collins' own.
func TestDTHeadsOnSample(t *testing.T) {
	plain := convertSample(t, Options{Rules: Collins, Tree: true})
	dt := convertSample(t, Options{Rules: Collins, Tree: true, DTHeads: true})
	var nps, changed, tokens int
	for i, s := range dt {
		p := plain[i]
		if !slices.Equal(s.Words, p.Words) || !slices.Equal(s.Tags, p.Tags) || s.Tree != p.Tree {
			t.Fatalf("%s: the DT-headed conversion changed the tokens or the tree", s.ID)
		}
		tree, err := format.ParseTree(s.Tree)
		if err != nil {
			t.Fatal(err)
		}
		var walk func(n *format.Tree, start int) int // returns the end
		walk = func(n *format.Tree, start int) int {
			if n.IsPreterminal() {
				return start + 1
			}
			end, det := start, -1
			for _, kid := range n.Children {
				if det < 0 && kid.IsPreterminal() && kid.Label == "DT" {
					det = end
				}
				end = walk(kid, end)
			}
			if n.Label != "NP" || det < 0 || end-start < 2 {
				return end
			}
			nps++
			for k := start; k < end; k++ {
				h := s.Heads[k] - 1 // −1: the root
				inside := h >= start && h < end
				if k == det && inside || k != det && !inside {
					t.Fatalf("%s: NP [%d,%d) headed by the DT at %d, but token %d has head %d", s.ID, start, end, det, k, h+1)
				}
			}
			return end
		}
		walk(tree, 0)
		for k := range s.Heads {
			tokens++
			if s.Heads[k] != p.Heads[k] {
				changed++
			}
		}
	}
	if nps == 0 {
		t.Fatal("no NP with a DT in the sample")
	}
	t.Logf("%d NPs with a DT child; %d of %d heads differ from Collins'", nps, changed, tokens)
}
