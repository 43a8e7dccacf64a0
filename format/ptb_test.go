package format

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"testing/iotest"

	linereader "github.com/grind-nlp/grind/internal/lines"
	"github.com/grind-nlp/grind/internal/testenv"
)

// readPTBAll returns the bracketing of every tree of input, and the errors in
// between as "ERR line N: message".
func readPTBAll(t testing.TB, input string) []string {
	t.Helper()
	r := NewPTBReader(strings.NewReader(input))
	var got []string
	for i := 0; ; i++ {
		if i > len(input)+2 {
			t.Fatalf("reader does not stop on %q", input)
		}
		tree, err := r.Next()
		if err == io.EOF {
			return got
		}
		var se *SyntaxError
		switch {
		case errors.As(err, &se):
			got = append(got, "ERR "+se.Error())
		case err != nil:
			t.Fatalf("unexpected error %v", err)
		default:
			got = append(got, tree.String())
		}
	}
}

func TestPTBReader(t *testing.T) {
	tests := []struct {
		name, input string
		want        []string
	}{
		{"mrg layout", `
( (S 
    (NP-SBJ (NNP Pierre) (NNP Vinken) )
    (VP (MD will) 
      (VP (VB join) ))
    (. .) ))
( (S 
    (NP-SBJ (NNP Mr.) (NNP Vinken) )
    (VP (VBZ is) (NP-PRD (-NONE- *-1) ))))
`, []string{
			"(S (NP-SBJ (NNP Pierre) (NNP Vinken)) (VP (MD will) (VP (VB join))) (. .))",
			"(S (NP-SBJ (NNP Mr.) (NNP Vinken)) (VP (VBZ is) (NP-PRD (-NONE- *-1))))",
		}},
		{"one per line, CRLF, no final newline", "(S (NP (DT a)) (VP (VBD b)))\r\n(X (Y y))",
			[]string{"(S (NP (DT a)) (VP (VBD b)))", "(X (Y y))"}},
		{"several on one line", "(A a) (B b)", []string{"(A a)", "(B b)"}},
		{"ROOT and TOP removed", "(ROOT (S (NN x)))\n(TOP (S (NN y)))\n( (ROOT (NN z)))",
			[]string{"(S (NN x))", "(S (NN y))", "(NN z)"}},
		{"unlabelled bracket with two trees is an error, not one merged sentence", "( (S (NN x)) (S (NN y)))\n(S (NN z))",
			[]string{"ERR line 1: an unlabelled bracket holds 2 trees: ( (S …) (S …) ) is not one sentence; give each tree its own brackets", "(S (NN z))"}},
		{"unlabelled bracket with a tree and a word is one sentence", "( (S (NN x)) (. .))",
			[]string{"( (S (NN x)) (. .))"}},
		{"preterminal alone", "( (NN x) )", []string{"(NN x)"}},
		{"ROOT word is a preterminal", "(ROOT x)", []string{"(ROOT x)"}},
		{"brackets as tags", "( (-LRB- -LCB-) (-RRB- -RCB-))", []string{"( (-LRB- -LCB-) (-RRB- -RCB-))"}},
		{"LDC header skipped", "*x*  Copyright (C) 1995  *x*\n*x*  *x*\n( (S (NN x)))",
			[]string{"(S (NN x))"}},
		{"empty input", "", nil},
		{"blank input", " \n\n\t\n", nil},

		{"missing ) at end of file", "( (S (NN x)\n  (VB y))\n",
			[]string{`ERR line 2: unbalanced brackets: 1 ")" missing to close the tree that starts at line 1`}},
		{"missing ) before the next tree", "( (S (NN x)\n  (VB y))\n\n( (S (NN z)))\n",
			[]string{`ERR line 2: unbalanced brackets: 1 ")" missing to close the tree that starts at line 1`, "(S (NN z))"}},
		{"missing ) in one-per-line layout", "(S (NN x)\n(S (NN z))\n",
			[]string{`ERR line 1: unbalanced brackets: 1 ")" missing to close the tree that starts at line 1`, "(S (NN z))"}},
		{"extra ) at end of tree", "( (S (NN x)\n  (VB y))))\n( (S (NN z)))\n",
			[]string{`ERR line 2: unbalanced brackets: extra ")"`, "(S (NN z))"}},
		{"extra ) on its own line", "( (S (NN x)\n  (VB y)))\n)\n( (S (NN z)))\n",
			[]string{`ERR line 3: unbalanced brackets: extra ")"`, "(S (NN z))"}},
		{"extra ) inside a tree", "( (S (NP (NN x))))\n    (VP (VB y)))\n  )\n( (S (NN z)))\n",
			[]string{`ERR line 1: unbalanced brackets: extra ")": the tree that starts at line 1 closes here, but its brackets go on at line 2`, "(S (NN z))"}},
		{"extra ) before any tree", ") (A a)", []string{`ERR line 1: unbalanced brackets: extra ")"`, "(A a)"}},
		{"text outside brackets", "( (A a))\nhello world\n( (B b))",
			[]string{"(A a)", `ERR line 2: text outside brackets: "hello"`, "(B b)"}},
		{"word outside a preterminal", "( (S (NP (DT the)\n   dog) (VP (VB ran))))\n( (B b))",
			[]string{`ERR line 2: word "dog" outside a preterminal (in NP)`, "(B b)"}},
		{"word in the outer bracket", "( (S (NN x)) y)",
			[]string{`ERR line 1: word "y" outside a preterminal (in an unlabelled bracket)`}},
		{"preterminal with children", "( (S (NN dog (X y))))\n( (B b))",
			[]string{`ERR line 1: preterminal (NN dog) has a constituent after its word`, "(B b)"}},
		{"preterminal with two words", "( (S (NN dog cat)))",
			[]string{`ERR line 1: preterminal (NN dog) has a second word "cat"`}},
		{"empty brackets", "( (S () (NN x)))", []string{`ERR line 1: empty brackets ()`}},
		{"empty bracket", "( (S (NP ) (NN x)))", []string{`ERR line 1: empty bracket (NP)`}},
		{"nested unlabelled bracket", "( (S ( (NN x))))", []string{`ERR line 1: bracket without a label`}},
		{"first problem wins", "( (S (NN a b)\n (NP )))", []string{`ERR line 1: preterminal (NN a) has a second word "b"`}},
		{"more open than closed at end", "(A (B (C c", []string{`ERR line 1: unbalanced brackets: 3 ")" missing to close the tree that starts at line 1`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := readPTBAll(t, tc.input)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

// A tree read through a reader that returns one byte at a time comes out
// the same, however the input is cut.
func TestPTBReaderSmallReads(t *testing.T) {
	input := "( (S (NP-SBJ (NNP Pierre) (NNP Vinken))\n    (VP (MD will))))\n( (X (Y yyyyyyyyyyyyyyyyyyyy)))\n"
	r := NewPTBReader(iotest.OneByteReader(strings.NewReader(input)))
	r.buf = make([]byte, 4) // force refills and growth in the middle of atoms
	var got []string
	for {
		tree, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, tree.String())
	}
	want := "(S (NP-SBJ (NNP Pierre) (NNP Vinken)) (VP (MD will)))|(X (Y yyyyyyyyyyyyyyyyyyyy))"
	if strings.Join(got, "|") != want {
		t.Errorf("got %q", got)
	}
	if r.Count() != 2 {
		t.Errorf("Count = %d, want 2", r.Count())
	}
}

func TestPTBReaderReadError(t *testing.T) {
	boom := errors.New("boom")
	r := NewPTBReader(io.MultiReader(strings.NewReader("( (A a))\n( (B\n"), iotest.ErrReader(boom)))
	if tree, err := r.Next(); err != nil || tree.String() != "(A a)" {
		t.Fatalf("first tree: %v, %v", tree, err)
	}
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Fatalf("got %v, want the read error", err)
	}
	if r.Line() != 3 {
		t.Errorf("Line = %d, want 3", r.Line())
	}
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Fatalf("read error not sticky: %v", err)
	}
}

func TestParseTree(t *testing.T) {
	tree, err := ParseTree(" (S (NP (DT a)) (VP (VBD b))) \n")
	if err != nil || tree.String() != "(S (NP (DT a)) (VP (VBD b)))" {
		t.Errorf("got %v, %v", tree, err)
	}
	for in, want := range map[string]string{
		"":             "no tree",
		"(A a) (B b)":  "line 1: more than one tree",
		"(A a":         `line 1: unbalanced brackets: 1 ")" missing to close the tree that starts at line 1`,
		"(A a) extra":  `line 1: text outside brackets: "extra"`,
		"(A (B b) c)":  `line 1: word "c" outside a preterminal (in A)`,
		"(A (B b)))":   `line 1: unbalanced brackets: extra ")"`,
		"(A a)\n(B (C": `line 2: unbalanced brackets: 2 ")" missing to close the tree that starts at line 2`,
	} {
		if _, err := ParseTree(in); err == nil || err.Error() != want {
			t.Errorf("ParseTree(%q) = %v, want %q", in, err, want)
		}
	}
}

// ptbSampleFiles are the .mrg files of the shared PTB sample, in order.
func ptbSampleFiles(t testing.TB) []string {
	dir := testenv.SharedData(t, "ptb-sample", "wsj")
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.mrg"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no .mrg files in %s: %v", dir, err)
	}
	return files
}

// The reader sees every tree and leaf of the sample (numbers from
// ../shared/data/README.md), and each tree reads back from its String.
func TestPTBReaderSample(t *testing.T) {
	var trees, leaves, none int
	for _, file := range ptbSampleFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		r := NewPTBReader(bytes.NewReader(data))
		for {
			tree, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			trees++
			walkPTB(tree, func(n *Tree) {
				if n.IsPreterminal() {
					leaves++
					if n.Label == "-NONE-" {
						none++
					}
				}
			})
			s := tree.String()
			back, err := ParseTree(s)
			if err != nil || back.String() != s {
				t.Fatalf("%s: %s does not read back: %v", file, s, err)
			}
		}
	}
	if trees != 3914 || leaves != 100676 || none != 6592 {
		t.Errorf("trees %d, leaves %d, -NONE- %d; want 3914, 100676, 6592", trees, leaves, none)
	}
}

func walkPTB(t *Tree, fn func(*Tree)) {
	fn(t)
	for _, c := range t.Children {
		walkPTB(c, fn)
	}
}

func BenchmarkPTBReader(b *testing.B) {
	var all bytes.Buffer
	for _, file := range ptbSampleFiles(b) {
		data, err := os.ReadFile(file)
		if err != nil {
			b.Fatal(err)
		}
		all.Write(data)
	}
	b.SetBytes(int64(all.Len()))
	b.ReportAllocs()
	trees := 0
	for b.Loop() {
		r := NewPTBReader(bytes.NewReader(all.Bytes()))
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			trees++
		}
	}
	b.ReportMetric(float64(trees)/b.Elapsed().Seconds(), "trees/s")
}

// FuzzPTBReader: no input makes the reader panic or loop, errors carry a
// line inside the input, and every tree it accepts reads back from its
// String as the same tree.
func FuzzPTBReader(f *testing.F) {
	for _, seed := range []string{
		"( (S (NP-SBJ (NNP Pierre)) (VP (VBD left)) (. .)))\n",
		"( (S (NN x)\n  (VB y))\n\n( (S (NN z)))\n",
		"( (S (NP (NN x)))\n    (VP (VB y)))\n  )\n",
		"(ROOT (S (NN a b)\n (NP )))",
		"*x* header *x*\n( (A a)) junk ) ( ( (B b)))",
		"( (-LRB- -LCB-) (-RRB- -RCB-))\r\n(A (B (C c",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := bytes.Count(data, []byte("\n")) + 1
		r := NewPTBReader(bytes.NewReader(data))
		// The same input a byte at a time into a tiny buffer must read the
		// same: refills in the middle of words and lookahead change nothing.
		slow := NewPTBReader(iotest.OneByteReader(bytes.NewReader(data)))
		slow.buf = make([]byte, 1)
		for i := 0; ; i++ {
			if i > len(data)+1 {
				t.Fatalf("reader does not stop")
			}
			tree, err := r.Next()
			slowTree, slowErr := slow.Next()
			if fmt.Sprint(tree, err) != fmt.Sprint(slowTree, slowErr) {
				t.Fatalf("whole input: %v, %v; byte by byte: %v, %v", tree, err, slowTree, slowErr)
			}
			if err == io.EOF {
				return
			}
			var se *SyntaxError
			if n, ok := linereader.ErrorLine(err); ok {
				if n < 1 || n > lines {
					t.Fatalf("error at line %d of %d: %v", n, lines, err)
				}
				return // not UTF-8: reading ends
			}
			if !errors.As(err, &se) && err != nil {
				t.Fatalf("error that is not a SyntaxError: %v", err)
			}
			if err != nil {
				if se.Line < 1 || se.Line > lines {
					t.Fatalf("error at line %d of a %d-line input: %v", se.Line, lines, err)
				}
				continue
			}
			s := tree.String()
			back, err := ParseTree(s)
			if err != nil {
				t.Fatalf("%q does not read back: %v", s, err)
			}
			if back.String() != s {
				t.Fatalf("%q reads back as %q", s, back.String())
			}
		}
	})
}

// EachPhrase gives every phrase's children's starts and its end, children
// before parents, as a recursive walk does, on random trees; and a deep
// tree is walked without Go's stack.
func TestEachPhrase(t *testing.T) {
	var recursive func(t *Tree, i int, out *[][]int) int
	recursive = func(t *Tree, i int, out *[][]int) int {
		if t.IsPreterminal() {
			return i + 1
		}
		ends := []int{i}
		for _, c := range t.Children {
			ends = append(ends, recursive(c, ends[len(ends)-1], out))
		}
		*out = append(*out, ends)
		return ends[len(ends)-1]
	}
	seed := uint64(1)
	var random func(depth int) *Tree
	random = func(depth int) *Tree {
		seed = seed*6364136223846793005 + 1442695040888963407
		if depth == 0 || seed>>60 < 5 {
			return &Tree{Label: "X", Word: "w"}
		}
		t := &Tree{Label: "P"}
		for range 1 + int(seed>>61) {
			t.Children = append(t.Children, random(depth-1))
		}
		return t
	}
	for range 200 {
		tree := random(6)
		var want, got [][]int
		wantN := recursive(tree, 0, &want)
		gotN := tree.EachPhrase(func(ends []int) { got = append(got, append([]int(nil), ends...)) })
		if gotN != wantN || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: %d %v, want %d %v", tree, gotN, got, wantN, want)
		}
	}
	deep := func(depth int) string {
		return strings.Repeat("(S ", depth) + "(X a)" + strings.Repeat(")", depth)
	}
	const depth = 150000 // recursion would need some 30 MB of stack: capped at 16
	defer debug.SetMaxStack(debug.SetMaxStack(16 << 20))
	tree, err := ParseTree(deep(depth))
	if err != nil {
		t.Fatal(err)
	}
	phrases := 0
	if n := tree.EachPhrase(func(ends []int) { phrases++ }); n != 1 || phrases != depth {
		t.Fatalf("%d tokens, %d phrases", n, phrases)
	}
}

// A tree nested deeper than MaxTreeDepth is refused at the bracket that
// goes past it, and the reader goes on with the next tree.
func TestTreeTooDeep(t *testing.T) {
	in := strings.Repeat("(S ", MaxTreeDepth) + "(X a)" + strings.Repeat(")", MaxTreeDepth) + "\n(S (X b))\n"
	r := NewPTBReader(strings.NewReader(in))
	_, err := r.Next()
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 1 || !strings.Contains(err.Error(), "a tree nested more than 1048576 brackets deep") {
		t.Fatalf("got %v", err)
	}
	if tree, err := r.Next(); err != nil || tree.String() != "(S (X b))" {
		t.Fatalf("next: %v %v", tree, err)
	}
}
