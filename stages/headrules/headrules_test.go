package headrules

import (
	"bytes"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/golden"
	"github.com/grind-nlp/grind/internal/testenv"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/ptbstrip"
)

// heads converts one bracketed tree.
func heads(t *testing.T, tree string, opts Options) []int {
	t.Helper()
	parsed, err := format.ParseTree(tree)
	if err != nil {
		t.Fatal(err)
	}
	stripped := ptbstrip.StripTree(parsed, opts.KeepPunct)
	conv, err := New(opts.Rules, opts.Coord)
	if err != nil {
		t.Fatal(err)
	}
	conv.DTHeads = opts.DTHeads
	s := conv.Sentence(stripped)
	if err := s.Validate(); err != nil {
		t.Fatalf("%s: %v", tree, err)
	}
	return s.Heads
}

// Heads worked out by hand from the tables of HEADRULES.md.
func TestHeadRules(t *testing.T) {
	collins := Options{Rules: Collins}
	always := Options{Rules: Collins, Coord: CoordAlways}
	never := Options{Rules: Collins, Coord: CoordNever}
	ym := Options{Rules: YM}
	keep := func(o Options) Options { o.KeepPunct = true; return o }
	dt := func(o Options) Options { o.DTHeads = true; return o }
	tests := []struct {
		name, tree string
		opts       Options
		want       []int
	}{
		// NP: a final POS heads the possessor; the possessed noun the whole.
		{"possessive collins", "(NP (NP (NNP John) (POS 's)) (NN dog))", collins, []int{2, 3, 0}},
		{"possessive ym", "(NP (NP (NNP John) (POS 's)) (NN dog))", ym, []int{2, 3, 0}},

		// Coordination in a base NP: only --coord always moves the head.
		{"base NP coord collins", "(NP (NN salt) (CC and) (NN pepper))", collins, []int{3, 3, 0}},
		{"base NP coord always", "(NP (NN salt) (CC and) (NN pepper))", always, []int{0, 1, 1}},
		{"base NP coord never", "(NP (NN salt) (CC and) (NN pepper))", never, []int{3, 3, 0}},
		{"base NP coord ym", "(NP (NN salt) (CC and) (NN pepper))", ym, []int{3, 3, 0}},
		// Outside a base NP the head moves to the conjunct before the CC.
		{"NP coord collins", "(NP (NP (NN salt)) (CC and) (NN pepper))", collins, []int{0, 1, 1}},
		{"NP coord never", "(NP (NP (NN salt)) (CC and) (NN pepper))", never, []int{3, 3, 0}},
		{"NP coord ym", "(NP (NP (NN salt)) (CC and) (NN pepper))", ym, []int{3, 3, 0}},
		{"ADVP coord collins", "(ADVP (RB here) (RB there) (CC and) (RB everywhere))", collins, []int{2, 0, 2, 2}},
		{"ADVP coord never", "(ADVP (RB here) (RB there) (CC and) (RB everywhere))", never, []int{4, 4, 4, 0}},
		{"ADVP coord ym", "(ADVP (RB here) (RB there) (CC and) (RB everywhere))", ym, []int{0, 1, 1, 1}},
		// ... skipping punctuation before the CC.
		{"coord skips punctuation", "(ADVP (RB here) (, ,) (RB there) (, ,) (CC and) (RB everywhere))", keep(collins), []int{3, 3, 0, 3, 3, 3}},
		{"coord needs something before the CC", "(ADVP (, ,) (CC and) (RB so))", keep(collins), []int{3, 3, 0}},
		{"CC first child", "(ADVP (CC and) (RB so))", collins, []int{2, 0}},
		{"UCP coord collins", "(UCP (ADJP (JJ big)) (CC and) (NP (NN value)))", collins, []int{0, 1, 1}},
		{"UCP coord never", "(UCP (ADJP (JJ big)) (CC and) (NP (NN value)))", never, []int{3, 3, 0}},

		// QP: Collins from the left, Yamada & Matsumoto from the right.
		{"QP IN", "(NP (QP (IN about) (CD 20)) (NNS shares))", collins, []int{3, 1, 0}},
		{"QP IN ym", "(NP (QP (IN about) (CD 20)) (NNS shares))", ym, []int{3, 1, 0}},
		{"QP $ collins", "(NP (QP ($ $) (CD 5) (CD million)) (-NONE- *U*))", keep(collins), []int{0, 1, 1}},
		{"QP $ ym", "(NP (QP ($ $) (CD 5) (CD million)) (-NONE- *U*))", keep(ym), []int{0, 1, 1}},
		{"QP without $ collins", "(NP (QP ($ $) (CD 5) (CD million)) (-NONE- *U*))", collins, []int{0, 1}},
		{"QP without $ ym", "(NP (QP ($ $) (CD 5) (CD million)) (-NONE- *U*))", ym, []int{2, 0}},

		// PRN: Collins takes its first child, even a bracket; Y&M skips
		// punctuation; without punctuation the PRN is unary.
		{"PRN collins", "(NP (NP (NNP Dow) (NNP Jones)) (PRN (-LRB- -LRB-) (NP (NNP DJ)) (-RRB- -RRB-)))", keep(collins), []int{2, 0, 2, 3, 3}},
		{"PRN ym", "(NP (NP (NNP Dow) (NNP Jones)) (PRN (-LRB- -LRB-) (NP (NNP DJ)) (-RRB- -RRB-)))", keep(ym), []int{2, 0, 4, 2, 4}},
		{"PRN without brackets", "(NP (NP (NNP Dow) (NNP Jones)) (PRN (-LRB- -LRB-) (NP (NNP DJ)) (-RRB- -RRB-)))", collins, []int{2, 0, 2}},

		// Empty elements go before heads are found, and so do the
		// constituents they leave empty.
		{"empty subject collins", "(S (NP-SBJ-1 (NNP Mary)) (VP (VBD tried) (S (NP-SBJ (-NONE- *-1)) (VP (TO to) (VP (VB leave))))))", collins, []int{2, 0, 2, 3}},
		{"empty subject ym", "(S (NP-SBJ-1 (NNP Mary)) (VP (VBD tried) (S (NP-SBJ (-NONE- *-1)) (VP (TO to) (VP (VB leave))))))", ym, []int{2, 0, 4, 2}},
		{"trace only", "(S (NP-SBJ (-NONE- *-1)) (VP (VBD left)))", collins, []int{0}},

		// Punctuation: attached by the rules when kept; passed over by
		// Y&M's defaults.
		{"final period", "(S (NP (NNP John)) (VP (VBD left)) (. .))", keep(collins), []int{2, 0, 2}},
		{"final period removed", "(S (NP (NNP John)) (VP (VBD left)) (. .))", collins, []int{2, 0}},
		{"FRAG collins", "(FRAG (`` ``) (NP (NN Yes)) (. !) ('' ''))", keep(collins), []int{4, 4, 4, 0}},
		{"FRAG ym", "(FRAG (`` ``) (NP (NN Yes)) (. !) ('' ''))", keep(ym), []int{2, 0, 2, 2}},
		{"label not in table collins", "(XYZ (, ,) (NN a) (NN b))", keep(collins), []int{0, 1, 1}},
		{"label not in table ym", "(XYZ (, ,) (NN a) (NN b))", keep(ym), []int{2, 0, 2}},

		// --dt-heads: an NP's DT child heads it (Klein 2005 §6.2), and
		// what the NP's head was hangs from the DT.
		{"NP with DT", "(NP (DT the) (JJ big) (NN dog))", collins, []int{3, 3, 0}},
		{"NP with DT dt", "(NP (DT the) (JJ big) (NN dog))", dt(collins), []int{0, 1, 1}},
		{"NP with DT dt ym", "(NP (DT the) (JJ big) (NN dog))", dt(ym), []int{0, 1, 1}},
		{"NP without DT dt", "(NP (JJ big) (NNS dogs))", dt(collins), []int{2, 0}},
		{"only DT counts dt", "(NP (PRP$ his) (NN dog))", dt(collins), []int{2, 0}},
		{"predeterminer dt", "(NP (PDT all) (DT the) (NNS people))", dt(collins), []int{2, 0, 2}},
		{"nested NPs", "(S (NP (NP (DT the) (NN man)) (PP (IN in) (NP (DT the) (NN park)))) (VP (VBD left)))", collins, []int{2, 6, 2, 5, 3, 0}},
		{"nested NPs dt", "(S (NP (NP (DT the) (NN man)) (PP (IN in) (NP (DT the) (NN park)))) (VP (VBD left)))", dt(collins), []int{6, 1, 1, 3, 4, 0}},
		{"possessor dt", "(NP (NP (DT the) (NN company) (POS 's)) (NN stock))", dt(collins), []int{4, 1, 1, 0}},
		{"NP coordination", "(NP (NP (DT the) (NN cat)) (CC and) (NP (DT a) (NN dog)))", collins, []int{2, 0, 2, 5, 2}},
		{"NP coordination dt", "(NP (NP (DT the) (NN cat)) (CC and) (NP (DT a) (NN dog)))", dt(collins), []int{0, 1, 1, 1, 4}},
		{"base NP coordination dt always", "(NP (DT the) (NN salt) (CC and) (NN pepper))", dt(always), []int{0, 1, 1, 1}},
		{"DT not first dt", "(NP (NNS shares) (DT each))", dt(collins), []int{2, 0}},

		// Labels lose function tags and indices before the lookup.
		{"stripped labels", "(S-1 (NP-SBJ=2 (PRP it)) (VP-TPC|X (VBZ works)))", collins, []int{2, 0}},
		{"ADVP|PRT is ADVP", "(VP (VBD looked) (ADVP|PRT (RB up)))", ym, []int{0, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := heads(t, tc.tree, tc.opts); !slices.Equal(got, tc.want) {
				t.Errorf("%s: heads %v, want %v", tc.tree, got, tc.want)
			}
		})
	}
}

func TestNewRejectsUnknownChoices(t *testing.T) {
	if _, err := New("stanford", ""); err == nil {
		t.Error("unknown rules accepted")
	}
	if _, err := New(Collins, "sometimes"); err == nil {
		t.Error("unknown coordination accepted")
	}
}

// goldenVariants are the conversions the golden files hold.
var goldenVariants = []struct {
	suffix string
	opts   Options
}{
	{"collins", Options{Rules: Collins, Tree: true}},
	{"collins-always", Options{Rules: Collins, Coord: CoordAlways, Tree: true}},
	{"collins-never", Options{Rules: Collins, Coord: CoordNever, Tree: true}},
	{"collins-punct", Options{Rules: Collins, KeepPunct: true, Tree: true}},
	{"ym-punct", Options{Rules: YM, KeepPunct: true, Tree: true}},
	{"collins-dt", Options{Rules: Collins, DTHeads: true, Tree: true}},
}

// TestGolden converts the hand-made trees of testdata/*.mrg with each
// variant and compares with testdata/<name>.<variant>.jsonl (go test
// -update rewrites them).
func TestGolden(t *testing.T) {
	inputs, _ := filepath.Glob("testdata/*.mrg")
	if len(inputs) == 0 {
		t.Fatal("no testdata/*.mrg")
	}
	for _, in := range inputs {
		for _, v := range goldenVariants {
			golden := strings.TrimSuffix(in, ".mrg") + "." + v.suffix + ".jsonl"
			checkGolden(t, []string{in}, golden, v.opts)
		}
	}
}

// TestGoldenExamples converts the project's hand-made treebank in
// examples/treebank with the default options.
func TestGoldenExamples(t *testing.T) {
	inputs, _ := filepath.Glob(testenv.Examples("treebank", "*.mrg"))
	if len(inputs) == 0 {
		t.Skip("no examples/treebank/*.mrg yet")
	}
	checkGolden(t, inputs, filepath.Join("testdata", "examples-treebank.collins.jsonl"), Options{Rules: Collins})
}

func checkGolden(t *testing.T, inputs []string, path string, opts Options) {
	t.Helper()
	var out bytes.Buffer
	if _, err := Convert(pipeline.Source{Names: inputs}, &out, opts); err != nil {
		t.Fatalf("%v: %v", inputs, err)
	}
	golden.Check(t, path, out.Bytes())
}

// A tree a million brackets deep converts without overflowing the stack:
// reading, stripping, head finding and the bracketing all walk with
// stacks of their own. The -NONE- at the bottom is stripped, leaving every
// phrase above it but the innermost.
func TestMillionDeepTree(t *testing.T) {
	const depth = 1000000
	// With recursion, this depth needs hundreds of MB of stack: under a
	// 16 MB cap the test would die.
	defer debug.SetMaxStack(debug.SetMaxStack(16 << 20))
	var in strings.Builder
	in.WriteString(strings.Repeat("(NP ", depth))
	in.WriteString("(NN a) (VP (-NONE- *T*)) (CD 1)")
	in.WriteString(strings.Repeat(")", depth))
	in.WriteString("\n")
	var out bytes.Buffer
	sum, err := Convert(pipeline.Source{Stdin: strings.NewReader(in.String())}, &out, Options{Rules: Collins, Coord: CoordCollins, Tree: true})
	if err != nil || sum.Trees != 1 {
		t.Fatalf("%v, %d trees", err, sum.Trees)
	}
	var s format.Sentence
	if err := format.Unmarshal(bytes.TrimSpace(out.Bytes()), &s); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Tags, []string{"NN", "CD"}) || !slices.Equal(s.Heads, []int{2, 0}) && !slices.Equal(s.Heads, []int{0, 1}) {
		t.Errorf("tags %v heads %v", s.Tags, s.Heads)
	}
	if want := strings.Repeat("(NP ", depth) + "(NN a) (CD 1)" + strings.Repeat(")", depth); s.Tree != want {
		t.Errorf("tree of %d bytes, want %d", len(s.Tree), len(want))
	}
}
