package ptbstrip

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/golden"
	"github.com/grind-nlp/grind/internal/testenv"
	"github.com/grind-nlp/grind/pipeline"
)

func TestStripLabel(t *testing.T) {
	for in, want := range map[string]string{
		"NP": "NP", "NP-SBJ": "NP", "NP-SBJ-1": "NP", "NP=2": "NP", "NP-SBJ=3": "NP",
		"PP-LOC-CLR": "PP", "S-TPC-1": "S", "ADVP|PRT": "ADVP", "PRT|ADVP": "PRT",
		"-NONE-": "-NONE-", "-LRB-": "-LRB-", "-RRB-": "-RRB-", "PRP$": "PRP$", "": "",
	} {
		if got := StripLabel(in); got != want {
			t.Errorf("StripLabel(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsPunct(t *testing.T) {
	var punct []string
	for _, tag := range strings.Fields("`` '' , . : -LRB- -RRB- # $ NN PRP$ SYM -NONE- CC POS") {
		if IsPunct(tag) {
			punct = append(punct, tag)
		}
	}
	if got := strings.Join(punct, " "); got != "`` '' , . : -LRB- -RRB- # $" {
		t.Errorf("punctuation tags: %s", got)
	}
}

func TestStripTree(t *testing.T) {
	tests := []struct {
		in        string
		keepPunct bool
		want      string // "" when nothing is left
	}{
		{"(S (NP-SBJ (-NONE- *-1)) (VP (VBD left)) (. .))", false, "(S (VP (VBD left)))"},
		{"(S (NP-SBJ (-NONE- *-1)) (VP (VBD left)) (. .))", true, "(S (VP (VBD left)) (. .))"},
		// Constituents left empty go, at every level.
		{"(S (SBAR (-NONE- 0) (S (-NONE- *T*-1))) (VP (VB go)))", false, "(S (VP (VB go)))"},
		{"(NP (NP (, ,)) (NN x))", false, "(NP (NN x))"},
		{"(NP (NP (, ,)) (NN x))", true, "(NP (NP (, ,)) (NN x))"},
		{"(S (NP (-NONE- *)) (: --))", false, ""},
		{"(S (NP (-NONE- *)) (: --))", true, "(S (: --))"},
		// Tags stay as they are; phrase labels lose function tags.
		{"(NP-SBJ=2 (PRP$ his) (NN-X dog))", false, "(NP (PRP$ his) (NN-X dog))"},
		{"(PRN (-LRB- -LRB-) (NP (NNP Q3)) (-RRB- -RRB-))", true, "(PRN (-LRB- -LRB-) (NP (NNP Q3)) (-RRB- -RRB-))"},
		{"(QP ($ $) (CD 5) (# #))", false, "(QP (CD 5))"},
	}
	for _, tc := range tests {
		tree, err := format.ParseTree(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		before := tree.String()
		got := ""
		if s := StripTree(tree, tc.keepPunct); s != nil {
			got = s.String()
		}
		if got != tc.want {
			t.Errorf("StripTree(%s, keepPunct=%v) = %q, want %q", tc.in, tc.keepPunct, got, tc.want)
		}
		if tree.String() != before {
			t.Errorf("StripTree changed its input %s into %s", before, tree)
		}
	}
}

func strip(t *testing.T, src pipeline.Source, opts Options) (string, Summary, error) {
	t.Helper()
	var out bytes.Buffer
	sum, err := Strip(src, &out, opts)
	return out.String(), sum, err
}

// Golden: testdata/strip.mrg with and without punctuation (go test -update
// rewrites the expected files).
func TestGolden(t *testing.T) {
	for _, v := range []struct {
		golden string
		opts   Options
	}{
		{"testdata/strip.jsonl", Options{}},
		{"testdata/strip.keep-punct.jsonl", Options{KeepPunct: true}},
	} {
		got, sum, err := strip(t, pipeline.Source{Names: []string{"testdata/strip.mrg"}}, v.opts)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Trees != 4 || sum.Empty != map[bool]int{false: 1, true: 0}[v.opts.KeepPunct] {
			t.Errorf("%+v: summary %+v", v.opts, sum)
		}
		golden.Check(t, v.golden, []byte(got))
	}
}

// Stripping is idempotent: records read back (through their "tree") and
// stripped again come out the same, ids included.
func TestRecordsReadBack(t *testing.T) {
	first, _, err := strip(t, pipeline.Source{Names: []string{"testdata/strip.mrg"}}, Options{KeepPunct: true})
	if err != nil {
		t.Fatal(err)
	}
	again, _, err := strip(t, pipeline.Source{Stdin: strings.NewReader("\n  " + first)}, Options{KeepPunct: true})
	if err != nil {
		t.Fatal(err)
	}
	if again != first {
		t.Errorf("records read back differently:\n%s\nwant:\n%s", again, first)
	}
}

func TestEachTreeInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.mrg", "( (S (NN a)))\n( (S (NN b)))\n")
	empty := write("empty.mrg", "\n \n")
	bad := write("bad.mrg", "( (S (NN a)))\n( (S (NN b) c))\n( (S (NN d)))\n")
	recs := write("recs.jsonl", `{"id":"x#1","tags":["NN"],"tree":"(S (NN a))"}`+"\n"+`{"tags":["NN"],"tree":"(S (NN b))"}`+"\n")
	noTree := write("notree.jsonl", `{"tags":["NN"]}`+"\n")
	badTree := write("badtree.jsonl", `{"tags":["NN"],"tree":"(S (NN b)"}`+"\n")

	ids := func(src pipeline.Source) (string, error) {
		var got []string
		_, err := EachTree(src, false, func(id string, t *format.Tree) error {
			got = append(got, id+" "+t.String())
			return nil
		})
		return strings.Join(got, "; "), err
	}
	for _, tc := range []struct {
		name    string
		src     pipeline.Source
		want    string
		wantErr string
	}{
		{"files", pipeline.Source{Names: []string{good, good}}, "good.mrg#1 (S (NN a)); good.mrg#2 (S (NN b)); good.mrg#1 (S (NN a)); good.mrg#2 (S (NN b))", ""},
		{"stdin", pipeline.Source{Stdin: strings.NewReader("(S (NN a))")}, "<stdin>#1 (S (NN a))", ""},
		{"records", pipeline.Source{Names: []string{recs}}, "x#1 (S (NN a)); recs.jsonl#2 (S (NN b))", ""},
		{"empty file", pipeline.Source{Names: []string{good, empty}}, "", empty + ": no trees"},
		{"empty stdin", pipeline.Source{Stdin: strings.NewReader("")}, "", "<stdin>: no trees"},
		{"bad tree", pipeline.Source{Names: []string{bad}}, "", bad + `:2: word "c" outside a preterminal (in S)`},
		{"skip bad tree", pipeline.Source{Names: []string{bad}, Bad: &pipeline.BadRecords{Skip: true}}, "bad.mrg#1 (S (NN a)); bad.mrg#3 (S (NN d))", ""},
		{"record without tree", pipeline.Source{Names: []string{noTree}}, "", noTree + `:1: record has no "tree"`},
		{"record with a bad tree", pipeline.Source{Names: []string{badTree}}, "", badTree + `:1: tree: unbalanced brackets: 1 ")" missing to close the tree that starts at line 1`},
		{"missing file", pipeline.Source{Names: []string{filepath.Join(dir, "nope.mrg")}}, "", "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ids(tc.src)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			case tc.wantErr == "" && got != tc.want:
				t.Errorf("got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// On the PTB sample: every token is kept with --keep-punct, and removing
// punctuation leaves the 82,369 tokens of ../shared/data/README.md.
func TestSampleTokens(t *testing.T) {
	dir := testenv.SharedData(t, "ptb-sample", "wsj")
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.mrg"))
	for _, tc := range []struct {
		keepPunct bool
		tokens    int
	}{{true, 94084}, {false, 82369}} {
		tokens := 0
		sum, err := EachTree(pipeline.Source{Names: files}, tc.keepPunct, func(id string, tree *format.Tree) error {
			_, tags := Leaves(tree)
			for _, tag := range tags {
				if tag == "-NONE-" || !tc.keepPunct && IsPunct(tag) {
					t.Fatalf("%s keeps %s", id, tag)
				}
			}
			tokens += len(tags)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Trees != 3914 || sum.Empty != 0 || tokens != tc.tokens {
			t.Errorf("keepPunct=%v: %d trees, %d empty, %d tokens; want 3914, 0, %d", tc.keepPunct, sum.Trees, sum.Empty, tokens, tc.tokens)
		}
	}
}
