package conll2deps

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/golden"
	"github.com/grind-nlp/grind/internal/testenv"
	"github.com/grind-nlp/grind/pipeline"
)

// convert runs Convert on files and decodes what it wrote.
func convert(t testing.TB, opts Options, files ...string) ([]*format.Sentence, Summary) {
	t.Helper()
	var out bytes.Buffer
	sum, err := Convert(pipeline.Source{Names: files}, &out, opts)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, out.Bytes()), sum
}

func decode(t testing.TB, jsonl []byte) []*format.Sentence {
	t.Helper()
	var sents []*format.Sentence
	for line := range bytes.Lines(jsonl) {
		s := new(format.Sentence)
		if err := format.Unmarshal(line, s); err != nil {
			t.Fatalf("output is not a sentence record: %v: %s", err, line)
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("invalid output record %s: %v", s.ID, err)
		}
		sents = append(sents, s)
	}
	return sents
}

// TestGolden converts the hand-made files in testdata/ and compares with
// the golden outputs (go test -update rewrites them).
func TestGolden(t *testing.T) {
	for _, c := range []struct {
		golden, input string
		opts          Options
		empty, lost   int
	}{
		{"small.conllu.default.jsonl", "small.conllu", Options{}, 1, 0},
		{"small.conllu.xpos-sym.jsonl", "small.conllu", Options{Tag: XPOS, Punct: []string{"PUNCT", "SYM"}}, 1, 0},
		{"small.conllu.keep.jsonl", "small.conllu", Options{KeepPunct: true}, 0, 1}, // toy-5's text is not its words
		{"small.dp.default.jsonl", "small.dp", Options{}, 1, 0},
		{"small.dp.forced.jsonl", "small.dp", Options{Format: DP, Punct: []string{"$"}}, 0, 0},
	} {
		t.Run(c.golden, func(t *testing.T) {
			var out bytes.Buffer
			sum, err := Convert(pipeline.Source{Names: []string{filepath.Join("testdata", c.input)}}, &out, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Empty != c.empty || sum.TextLost != c.lost {
				t.Errorf("%d sentences left empty, %d texts left out; want %d and %d", sum.Empty, sum.TextLost, c.empty, c.lost)
			}
			golden.Check(t, filepath.Join("testdata", c.golden), out.Bytes())
		})
	}
}

// TestSmallByHand spells out what the golden file for the default flags
// must hold, so that -update cannot bless a wrong re-attachment.
func TestSmallByHand(t *testing.T) {
	got, sum := convert(t, Options{}, filepath.Join("testdata", "small.conllu"))
	want := []*format.Sentence{
		{ID: "toy-1", Words: []string{"Hello", "she", "said"}, Tags: []string{"INTJ", "PRON", "VERB"}, Heads: []int{3, 3, 0},
			XPOS: []string{"UH", "PRP", "VBD"}, Text: "Hello she said"},
		{ID: "toy-2", Words: []string{"a", "b", "c"}, Tags: []string{"NOUN", "NOUN", "NOUN"}, Heads: []int{0, 1, 1},
			XPOS: []string{"NN", "NN", "NN"}, Text: "a b c"},
		{ID: "toy-3", Words: []string{"Wow", "really"}, Tags: []string{"INTJ", "ADV"}, Heads: []int{0, 0},
			XPOS: []string{"UH", "RB"}, Text: "Wow really"},
		{ID: "small.conllu#4", Words: []string{"de", "le", "chat"}, Tags: []string{"ADP", "DET", "NOUN"}, Heads: []int{3, 3, 0},
			XPOS: []string{"IN", "DT", "NN"}, Text: "du chat", Multiword: []format.Multiword{{First: 1, Last: 2, Form: "du"}}},
		{ID: "toy-6", Words: []string{"Hi", "$"}, Tags: []string{"INTJ", "SYM"}, XPOS: []string{"UH", "$"}, Text: "Hi $"},
		// No space between x and ray: none was in any gap between them.
		{ID: "toy-7", Words: []string{"x", "ray", "yes"}, Tags: []string{"NOUN", "NOUN", "INTJ"}, Heads: []int{0, 1, 1},
			XPOS: []string{"NN", "NN", "UH"}, Text: "xray yes", NoSpaceAfter: []int{1}},
		// A multiword token that lost a word is undone, its words kept together.
		{ID: "toy-8", Words: []string{"it", "'s", "Ok"}, Tags: []string{"PRON", "AUX", "INTJ"}, Heads: []int{0, 1, 1},
			XPOS: []string{"PRP", "VBZ", "UH"}, Text: "it's Ok", NoSpaceAfter: []int{1}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", dump(got), dump(want))
	}
	for _, s := range got {
		if err := s.CheckText(); err != nil {
			t.Errorf("%s: %v", s.ID, err)
		}
	}
	// toy-5's text "..." is not its two words "." ".", but it is all
	// punctuation and goes.
	if sum != (Summary{Sentences: 7, Tokens: 19, Empty: 1}) {
		t.Errorf("summary %+v", sum)
	}
}

func dump(sents []*format.Sentence) string {
	var b bytes.Buffer
	for _, s := range sents {
		pipeline.WriteRecord(&b, s)
	}
	return b.String()
}

func TestDropTokens(t *testing.T) {
	for _, c := range []struct {
		name      string
		tags      []string
		heads     []int
		wantTags  []string
		wantHeads []int
	}{
		{name: "nothing dropped", tags: []string{"A", "B"}, heads: []int{2, 0},
			wantTags: []string{"A", "B"}, wantHeads: []int{2, 0}},
		{name: "leaf punctuation", tags: []string{"A", "P", "B"}, heads: []int{3, 3, 0},
			wantTags: []string{"A", "B"}, wantHeads: []int{2, 0}},
		{name: "chain of punctuation", // B -> P -> P -> A
			tags: []string{"A", "P", "P", "B"}, heads: []int{0, 1, 2, 3},
			wantTags: []string{"A", "B"}, wantHeads: []int{0, 1}},
		{name: "punctuation as root gives several roots",
			tags: []string{"A", "P", "B", "C"}, heads: []int{2, 0, 2, 3},
			wantTags: []string{"A", "B", "C"}, wantHeads: []int{0, 0, 2}},
		{name: "chain up to a punctuation root",
			tags: []string{"P", "A", "P", "B"}, heads: []int{0, 3, 1, 2},
			wantTags: []string{"A", "B"}, wantHeads: []int{0, 1}},
		{name: "renumbering past dropped tokens",
			tags: []string{"P", "A", "P", "P", "B", "C"}, heads: []int{2, 0, 5, 2, 4, 5},
			wantTags: []string{"A", "B", "C"}, wantHeads: []int{0, 1, 2}},
		{name: "unannotated", tags: []string{"P", "A", "P"}, wantTags: []string{"A"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			words := make([]string, len(c.tags))
			drop := make([]bool, len(c.tags))
			for i, tag := range c.tags {
				words[i] = strings.ToLower(tag) + string(rune('0'+i))
				drop[i] = tag == "P"
			}
			s := &format.Sentence{Words: words, Tags: c.tags, Heads: c.heads}
			if err := s.Validate(); err != nil {
				t.Fatalf("bad test tree: %v", err)
			}
			DropTokens(s, drop)
			if !reflect.DeepEqual(s.Tags, c.wantTags) || !reflect.DeepEqual(s.Heads, c.wantHeads) {
				t.Errorf("got tags %v heads %v, want %v %v", s.Tags, s.Heads, c.wantTags, c.wantHeads)
			}
			for i, w := range s.Words {
				if !strings.HasPrefix(w, strings.ToLower(s.Tags[i])) {
					t.Errorf("word %d is %q: words and tags out of step", i+1, w)
				}
			}
			if err := s.Validate(); err != nil {
				t.Errorf("result is not a tree: %v", err)
			}
		})
	}
}

// TestDropTokensKeepsAncestry checks on every tree the PTB sample has that
// re-attachment keeps the ancestor relation among kept words: a kept word
// dominates another after removal exactly when it did before.
func TestDropTokensKeepsAncestry(t *testing.T) {
	dir := testenv.SharedData(t, "ptb-sample-deps-ym")
	files, _ := filepath.Glob(filepath.Join(dir, "wsj_00[0-4]*.dp"))
	full, _ := convert(t, Options{KeepPunct: true}, files...)
	checked := 0
	for _, s := range full {
		drop := make([]bool, s.Len())
		var keptOld []int // old 1-based positions of the kept words
		for i, tag := range s.Tags {
			drop[i] = isPTBPunct(tag)
			if !drop[i] {
				keptOld = append(keptOld, i+1)
			}
		}
		if len(keptOld) == 0 {
			continue
		}
		before := ancestors(s.Heads)
		r := &format.Sentence{Tags: append([]string(nil), s.Tags...), Heads: append([]int(nil), s.Heads...)}
		DropTokens(r, drop)
		after := ancestors(r.Heads)
		for a, oa := range keptOld {
			for d, od := range keptOld {
				if before[od][oa] != after[d+1][a+1] {
					t.Fatalf("%s: kept word %d dominates %d before removal: %v, after: %v", s.ID, oa, od, before[od][oa], after[d+1][a+1])
				}
			}
		}
		checked++
	}
	if checked < 100 {
		t.Errorf("only %d trees checked", checked)
	}
}

func isPTBPunct(tag string) bool {
	for _, p := range DefaultDPPunct {
		if tag == p {
			return true
		}
	}
	return false
}

// ancestors[d][a] says whether a (1-based) is a proper ancestor of d.
func ancestors(heads []int) [][]bool {
	n := len(heads)
	anc := make([][]bool, n+1)
	for d := 1; d <= n; d++ {
		anc[d] = make([]bool, n+1)
		for h := heads[d-1]; h != 0; h = heads[h-1] {
			anc[d][h] = true
		}
	}
	return anc
}

// counts are the statistics of /work/shared/data/README.md that a
// conversion must reproduce.
type counts struct {
	sentences, tokens int
	le10, le10Tokens  int
	empty             int // sentences left empty, excluded from the rest
	multiRoot         int // sentences with more than one root after removal
}

func measure(sents []*format.Sentence, sum Summary) counts {
	c := counts{sentences: len(sents), empty: sum.Empty}
	for _, s := range sents {
		c.tokens += s.Len()
		if s.Len() <= 10 {
			c.le10++
			c.le10Tokens += s.Len()
		}
		roots := 0
		for _, h := range s.Heads {
			if h == 0 {
				roots++
			}
		}
		if roots > 1 {
			c.multiRoot++
		}
	}
	return c
}

// The ud/ table of the data README, PUNCT and SYM removed. Every tree has
// one root before removal; removal can give several, which the README
// does not count, so multiRoot is -1 (not checked) here.
var udCounts = map[string]counts{
	"en_ewt-ud-dev.conllu":    {1978, 21991, 1157, 5703, 23, -1},
	"de_gsd-ud-dev.conllu":    {799, 10805, 291, 2045, 0, -1},
	"bg_btb-ud-dev.conllu":    {1115, 13822, 537, 3553, 0, -1},
	"zh_gsd-ud-dev.conllu":    {500, 10892, 53, 474, 0, -1},
	"tr_imst-ud-dev.conllu":   {1090, 8564, 855, 3959, 10, -1},
	"pt_bosque-ud-dev.conllu": {1172, 24567, 301, 1846, 0, -1},
	"ja_gsd-ud-dev.conllu":    {507, 11043, 97, 660, 0, -1},
}

// The ud-nopunct/ table: nothing is left to remove with the default PUNCT
// (SYM is kept), so the counts are those of the files as they are.
var udNoPunctCounts = map[string]counts{
	"en-ud-train-nopunct-len15.conllu": {7647, 57223, 5387, 27974, 0, 1},
	"en-ud-dev-nopunct.conllu":         {1963, 20863, 1163, 5703, 0, 0},
	"de-ud-dev-nopunct.conllu":         {799, 10730, 293, 2056, 0, 0},
	"bg-ud-dev-nopunct.conllu":         {1108, 13490, 537, 3553, 0, 0},
	"zh-ud-train-nopunct-len15.conllu": {1446, 17177, 426, 3752, 0, 0},
	"zh-ud-dev-nopunct.conllu":         {470, 9395, 53, 474, 0, 0},
	"tr-ud-train-nopunct-len15.conllu": {3380, 21271, 2886, 14963, 0, 3},
	"tr-ud-dev-nopunct.conllu":         {842, 7173, 621, 3306, 0, 0},
	"pt-ud-train-nopunct-len15.conllu": {3580, 30946, 2233, 13477, 0, 0},
	"pt-ud-dev-nopunct.conllu":         {267, 4262, 84, 550, 0, 0},
	"ja-ud-train-nopunct-len15.conllu": {7441, 54582, 5908, 35219, 0, 0},
	"ja-ud-dev-nopunct.conllu":         {916, 8017, 645, 3834, 0, 0},
	// The six languages added later (the README's second table gives
	// no root counts for them: -1, not checked).
	"eu-ud-train-nopunct-len15.conllu": {4271, 38804, 2720, 18912, 0, -1},
	"eu-ud-dev-nopunct.conllu":         {1798, 20122, 935, 6398, 0, -1},
	"fr-ud-train-nopunct-len15.conllu": {4976, 53410, 2182, 17013, 0, -1},
	"fr-ud-dev-nopunct.conllu":         {1488, 29275, 221, 1764, 0, -1},
	"it-ud-train-nopunct-len15.conllu": {6492, 55846, 4243, 26828, 0, -1},
	"it-ud-dev-nopunct.conllu":         {448, 7554, 146, 1034, 0, -1},
	"pl-ud-train-nopunct-len15.conllu": {6201, 46897, 4827, 29593, 0, -1},
	"pl-ud-dev-nopunct.conllu":         {700, 5761, 518, 3045, 0, -1},
	"es-ud-train-nopunct-len15.conllu": {4177, 44906, 1779, 13477, 0, -1},
	"es-ud-dev-nopunct.conllu":         {1397, 28928, 188, 1434, 0, -1},
	"nl-ud-dev-nopunct.conllu":         {345, 5520, 90, 733, 0, -1},
}

func checkCounts(t *testing.T, dir string, table map[string]counts, opts Options) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.conllu"))
	if len(files) != len(table) {
		t.Errorf("%d files in %s, the table has %d", len(files), dir, len(table))
	}
	for _, file := range files {
		name := filepath.Base(file)
		want, ok := table[name]
		if !ok {
			t.Errorf("no expected counts for %s", name)
			continue
		}
		sents, sum := convert(t, opts, file)
		got := measure(sents, sum)
		if want.multiRoot < 0 {
			got.multiRoot = -1
		}
		if got != want {
			t.Errorf("%s: got %+v, want %+v", name, got, want)
		}
	}
}

func TestUD(t *testing.T) {
	checkCounts(t, testenv.SharedData(t, "ud"), udCounts, Options{Punct: []string{"PUNCT", "SYM"}})
}

func TestUDNoPunct(t *testing.T) {
	dir := testenv.SharedData(t, "ud-nopunct")
	checkCounts(t, dir, udNoPunctCounts, Options{})

	// XPOS tags leave the lengths alone: ≤10 is still 5,387 / 27,974.
	sents, sum := convert(t, Options{Tag: XPOS}, filepath.Join(dir, "en-ud-train-nopunct-len15.conllu"))
	if got := measure(sents, sum); got.le10 != 5387 || got.le10Tokens != 27974 {
		t.Errorf("--tag xpos: ≤10 is %d / %d, want 5387 / 27974", got.le10, got.le10Tokens)
	}
	if sents[0].Tags[0] != "DT" {
		t.Errorf("--tag xpos: first tag %q, want the PTB tag DT", sents[0].Tags[0])
	}
	// The README names the sentence with three roots.
	if s := sents[1737]; s.ID != "en-ud-train-nopunct-len15.conllu#1738" || countRoots(s.Heads) != 3 {
		t.Errorf("sentence 1,738: id %s, %d roots, want 3", s.ID, countRoots(s.Heads))
	}
}

func countRoots(heads []int) int {
	n := 0
	for _, h := range heads {
		if h == 0 {
			n++
		}
	}
	return n
}

func TestPTBDependencies(t *testing.T) {
	dir := testenv.SharedData(t, "ptb-sample-deps-ym")
	files, _ := filepath.Glob(filepath.Join(dir, "*.dp"))
	if len(files) != 199 {
		t.Fatalf("%d .dp files, want 199", len(files))
	}
	all, sum := convert(t, Options{KeepPunct: true}, files...)
	if got := measure(all, sum); got.sentences != 3914 || got.tokens != 94084 || got.multiRoot != 0 {
		t.Errorf("--keep-punct: %+v, want 3,914 sentences, 94,084 tokens, one root each", got)
	}
	kept, sum := convert(t, Options{}, files...)
	got := measure(kept, sum)
	want := counts{sentences: 3914, tokens: 82369, le10: 555, le10Tokens: 3856, multiRoot: 6}
	if got != want {
		t.Errorf("punctuation removed: %+v, want %+v", got, want)
	}
	// Check one of the six sentences whose root is $: its dependents all
	// become roots, and nothing else changes.
	checked := false
	for i, s := range all {
		root := 0
		for j, h := range s.Heads {
			if h == 0 {
				root = j + 1
			}
		}
		if s.Tags[root-1] != "$" {
			continue
		}
		r := kept[i]
		if r.ID != s.ID {
			t.Fatalf("sentence %d: ids %s and %s differ", i, s.ID, r.ID)
		}
		var wantRoots []string // words hanging from $, bar punctuation
		for j, h := range s.Heads {
			if h == root && !isPTBPunct(s.Tags[j]) {
				wantRoots = append(wantRoots, s.Words[j])
			}
		}
		var gotRoots []string
		for j, h := range r.Heads {
			if h == 0 {
				gotRoots = append(gotRoots, r.Words[j])
			}
		}
		if len(gotRoots) < 2 || !reflect.DeepEqual(gotRoots, wantRoots) {
			t.Errorf("%s: roots %v after removal, want the dependents of $: %v", s.ID, gotRoots, wantRoots)
		}
		checked = true
		break
	}
	if !checked {
		t.Error("no sentence has $ as its root")
	}
}

func TestDetect(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Format
	}{
		{"# sent_id = 1\n1\ta\t_\tX\tX\t_\t0\troot\t_\t_\n", CoNLLU},
		{"\n\nPierre\tNNP\t0\n", DP},
		{"#\t#\t0\n", DP},        // PTB's tag # is a word, not a comment
		{"a\tDT\t0\tROOT\n", DP}, // labelled .dp
		{"# only a comment\n", CoNLLU},
		{"", CoNLLU},
	} {
		f, r, err := detect(&pipeline.Input{Name: "x", Reader: strings.NewReader(c.in)}, Auto)
		if err != nil || f != c.want {
			t.Errorf("detect(%q) = %v, %v; want %v", c.in, f, err, c.want)
			continue
		}
		var rest bytes.Buffer
		rest.ReadFrom(r)
		if rest.String() != c.in {
			t.Errorf("detect(%q) lost input: %q", c.in, rest.String())
		}
	}
	_, _, err := detect(&pipeline.Input{Name: "x.txt", Reader: strings.NewReader("# c\n\na b c\n")}, Auto)
	if err == nil || !strings.HasPrefix(err.Error(), "x.txt:3: cannot tell the format") {
		t.Errorf("unknown format: %v", err)
	}
}
