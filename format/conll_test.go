package format

import (
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/internal/lines"
)

// readAllCoNLL reads every sentence, collecting syntax errors and going on
// after them as --skip-bad does.
func readAllCoNLL(t testing.TB, text string) ([]*CoNLLSentence, []*SyntaxError) {
	return readAllTreebank(t, NewCoNLLReader(strings.NewReader(text)).Next)
}

func readAllTreebank(t testing.TB, next func() (*CoNLLSentence, error)) ([]*CoNLLSentence, []*SyntaxError) {
	t.Helper()
	var sents []*CoNLLSentence
	var errs []*SyntaxError
	for i := 0; ; i++ {
		if i > 1e6 {
			t.Fatal("reader does not stop")
		}
		s, err := next()
		if err == io.EOF {
			return sents, errs
		}
		var se *SyntaxError
		if errors.As(err, &se) {
			errs = append(errs, se)
			continue
		}
		if _, ok := lines.ErrorLine(err); ok {
			return sents, errs // not UTF-8, or a line too long: reading ends
		}
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		sents = append(sents, s)
	}
}

// conllRow and conllWord make CoNLL-U lines for short test inputs.
func conllRow(cols ...string) string { return strings.Join(cols, "\t") + "\n" }

func conllWord(id, form, upos, xpos, head, rel string) string {
	return conllRow(id, form, "_", upos, xpos, "_", head, rel, "_", "_")
}

func TestCoNLLReaderKeepsRangesSkipsEmptyNodes(t *testing.T) {
	in := "# newdoc id = d1\r\n# sent_id = s-1\r\n# text = Don't go.\r\n" +
		strings.ReplaceAll(
			conllRow("1-2", "Don't", "_", "_", "_", "_", "_", "_", "_", "_")+
				conllWord("1", "Do", "AUX", "VBP", "3", "aux")+
				conllWord("2", "n't", "PART", "RB", "3", "advmod")+
				conllWord("3", "go", "VERB", "VB", "0", "root")+
				conllRow("3.1", "went", "go", "VERB", "VBD", "_", "_", "_", "0:root", "_")+
				conllWord("4", ".", "PUNCT", ".", "3", "punct"), "\n", "\r\n") +
		"\r\n\r\n\r\n" + // several blank lines are one separator
		"# a comment without an id\n" +
		conllWord("1", "Hi", "INTJ", "UH", "0", "root") // no final blank line
	got, errs := readAllCoNLL(t, in)
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	want := []*CoNLLSentence{
		{ID: "s-1", Text: "Don't go.", Multiword: []CoNLLMultiword{{First: 1, Last: 2, Form: "Don't", Misc: "_", Line: 4}}, Tokens: []CoNLLToken{
			{Form: "Do", Lemma: "_", UPOS: "AUX", XPOS: "VBP", Feats: "_", Head: 3, Deprel: "aux", Deps: "_", Misc: "_", Line: 5},
			{Form: "n't", Lemma: "_", UPOS: "PART", XPOS: "RB", Feats: "_", Head: 3, Deprel: "advmod", Deps: "_", Misc: "_", Line: 6},
			{Form: "go", Lemma: "_", UPOS: "VERB", XPOS: "VB", Feats: "_", Head: 0, Deprel: "root", Deps: "_", Misc: "_", Line: 7},
			{Form: ".", Lemma: "_", UPOS: "PUNCT", XPOS: ".", Feats: "_", Head: 3, Deprel: "punct", Deps: "_", Misc: "_", Line: 9},
		}},
		{ID: "", Tokens: []CoNLLToken{
			{Form: "Hi", Lemma: "_", UPOS: "INTJ", XPOS: "UH", Feats: "_", Head: 0, Deprel: "root", Deps: "_", Misc: "_", Line: 14},
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\n%+v\nwant\n%+v\n%+v", got[0], got[1], want[0], want[1])
	}
}

func TestCoNLLReaderMultiwordErrors(t *testing.T) {
	mwt := func(id string) string { return conllRow(id, "xy", "_", "_", "_", "_", "_", "_", "_", "_") }
	w := func(id string) string { return conllWord(id, "x", "X", "X", "0", "root") }
	for in, want := range map[string]string{
		mwt("1-1") + w("1"):                                "1: multiword token 1-1: a range of two or more words",
		mwt("2-1") + w("1") + w("2"):                       "1: multiword token 2-1: a range of two or more words",
		w("1") + mwt("1-2") + w("2"):                       "2: multiword token 1-2: it must come before its first word",
		mwt("1-2") + mwt("2-3") + w("1") + w("2"):          "2: multiword token 2-3: it must come before its first word",
		w("1") + mwt("2-3") + w("2"):                       "2: multiword token 2-3: the sentence has 2 words",
		mwt("1-2") + w("1") + w("2") + mwt("3-4") + w("3"): "4: multiword token 3-4: the sentence has 3 words",
	} {
		_, errs := readAllCoNLL(t, in)
		if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), "line "+want) && !strings.Contains(errs[0].Error(), want) {
			t.Errorf("%q: errors %v, want %q", in, errs, want)
		}
	}
	// A range that skips ahead (the validator allows it) is read.
	got, errs := readAllCoNLL(t, mwt("2-3")+w("1")+w("2")+w("3"))
	if len(errs) > 0 || len(got) != 1 || got[0].Multiword[0].First != 2 {
		t.Errorf("got %+v, %v", got, errs)
	}
}

func TestTextComments(t *testing.T) {
	for line, want := range map[string]string{
		"# text = Hi there.": "Hi there.",
		"#text=a = b ":       "a = b",
		"# text =":           "",
	} {
		got, ok := parseText([]byte(line))
		if !ok || got != want {
			t.Errorf("parseText(%q) = %q, %v; want %q", line, got, ok, want)
		}
	}
	for _, line := range []string{"# text_en = Hi", "# text Hi", "# textual = x", "# sent_id = text = 1"} {
		if got, ok := parseText([]byte(line)); ok {
			t.Errorf("parseText(%q) = %q, want no text", line, got)
		}
	}
}

func TestCoNLLReaderUnannotated(t *testing.T) {
	got, errs := readAllCoNLL(t, conllWord("1", "a", "DET", "DT", "_", "_")+conllWord("2", "b", "NOUN", "NN", "_", "_"))
	if len(errs) > 0 || len(got) != 1 {
		t.Fatalf("got %v, errors %v", got, errs)
	}
	if got[0].HasHeads() || got[0].Tokens[1].Head != NoHead {
		t.Errorf("heads of an unannotated sentence: %+v", got[0].Tokens)
	}
}

func TestSentIDForms(t *testing.T) {
	for line, want := range map[string]string{
		"# sent_id = a-1":  "a-1",
		"#sent_id=a=b":     "a=b",
		"# sent_id 7":      "7",
		"# sent_id =  x  ": "x",
		"# sent_id =":      "",
	} {
		got, ok := parseSentID([]byte(line))
		if !ok || got != want {
			t.Errorf("parseSentID(%q) = %q, %v; want %q", line, got, ok, want)
		}
	}
	for _, line := range []string{"# sent_idx = 1", "# text = sent_id = 1", "# sent_id"} {
		if got, ok := parseSentID([]byte(line)); ok {
			t.Errorf("parseSentID(%q) = %q, want no id", line, got)
		}
	}
}

func TestCoNLLReaderErrors(t *testing.T) {
	good := conllWord("1", "ok", "X", "X", "0", "root")
	for _, c := range []struct {
		name, in string
		line     int
		msg      string
	}{
		{"columns", conllWord("1", "a", "X", "X", "0", "root") + "2\tb\tX\tX\t1\n", 2, "5 columns, CoNLL needs 10"},
		{"empty tag", conllWord("1", "a", "", "X", "0", "root"), 1, "column 4 (UPOS) is empty"},
		{"empty xpos", conllWord("1", "a", "X", "", "0", "root"), 1, "column 5 (XPOS) is empty"},
		{"head not a number", conllWord("1", "a", "X", "X", "0", "root") + conllWord("2", "b", "X", "X", "one", "dep"), 2, `head "one" is not a number`},
		{"negative head", conllWord("1", "a", "X", "X", "-1", "root"), 1, "head -1 is out of range"},
		{"head out of range", conllWord("1", "a", "X", "X", "3", "dep") + conllWord("2", "b", "X", "X", "0", "root"), 1, "head 3 is out of range 0..2"},
		{"first id not 1", conllWord("2", "a", "X", "X", "0", "root"), 1, "ID 2 where 1 was expected"},
		{"ids out of order", conllWord("1", "a", "X", "X", "0", "root") + conllWord("3", "b", "X", "X", "1", "dep"), 2, "ID 3 where 2 was expected"},
		{"id not a number", conllWord("x", "a", "X", "X", "0", "root"), 1, `ID "x" is not a number`},
		{"bad range", conllWord("1-x", "a", "X", "X", "_", "_") + conllWord("1", "a", "X", "X", "0", "root"), 1, `ID "1-x" is neither a number nor a multiword-token range`},
		{"mixed heads", conllWord("1", "a", "X", "X", "0", "root") + conllWord("2", "b", "X", "X", "_", "_"), 2, "word 2 has no head (_) but word 1 has a head"},
		{"only ranges", "# sent_id = x\n" + conllRow("1-2", "ab", "_", "_", "_", "_", "_", "_", "_", "_"), 2, "no words"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The bad sentence sits between two good ones: the reader must
			// report it at its line and go on.
			in := good + "\n" + c.in + "\n" + good
			sents, errs := readAllCoNLL(t, in)
			checkBadBetweenGood(t, sents, errs, c.line, c.msg)
		})
	}
}

// checkBadBetweenGood checks what a reader made of a bad sentence, its
// error at line (counted in the bad sentence) mentioning msg, between two
// good one-line sentences: one error there, and both good sentences.
func checkBadBetweenGood(t *testing.T, sents []*CoNLLSentence, errs []*SyntaxError, line int, msg string) {
	t.Helper()
	if len(errs) != 1 {
		t.Fatalf("errors %v, want one", errs)
	}
	if wantLine := line + 2; errs[0].Line != wantLine || !strings.Contains(errs[0].Error(), msg) {
		t.Errorf("error %q, want line %d and %q", errs[0], wantLine, msg)
	}
	if len(sents) != 2 {
		t.Errorf("%d good sentences read around the bad one, want 2", len(sents))
	}
}

func TestCoNLLReaderReadError(t *testing.T) {
	boom := errors.New("boom")
	r := NewCoNLLReader(io.MultiReader(strings.NewReader(conllWord("1", "a", "X", "X", "0", "root")), conllFailingReader{boom}))
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Fatalf("got %v, want the read error", err)
	}
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Fatalf("read error is not sticky: %v", err)
	}
}

type conllFailingReader struct{ err error }

func (e conllFailingReader) Read([]byte) (int, error) { return 0, e.err }

func TestCoNLLWriter(t *testing.T) {
	s := &CoNLLSentence{ID: "x-1", Text: "Hi there", Tokens: []CoNLLToken{
		{Form: "Hi", Lemma: "hi", UPOS: "INTJ", XPOS: "UH", Feats: "_", Head: 2, Deprel: "discourse", Deps: "_", Misc: "_"},
		{Form: "the", Lemma: "the", UPOS: "DET", XPOS: "DT", Feats: "_", Head: 3, Deprel: "det", Deps: "_", Misc: "_"},
		{Form: "re", Lemma: "there", UPOS: "ADV", XPOS: "RB", Feats: "_", Head: 0, Deprel: "root", Deps: "_", Misc: "_"},
	}, Multiword: []CoNLLMultiword{{First: 2, Last: 3, Form: "there", Misc: "SpaceAfter=No"}}}
	words := "1\tHi\thi\tINTJ\tUH\t_\t2\tdiscourse\t_\t_\n" +
		"2\tthe\tthe\tDET\tDT\t_\t3\tdet\t_\t_\n" +
		"3\tre\tthere\tADV\tRB\t_\t0\troot\t_\t_\n\n"
	wantU := "# sent_id = x-1\n# text = Hi there\n" + strings.Replace(words, "2\tthe", "2-3\tthere\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n2\tthe", 1)
	var b strings.Builder
	if err := WriteCoNLL(&b, s, CoNLLU); err != nil || b.String() != wantU {
		t.Errorf("CoNLL-U: %v\n%q\nwant\n%q", err, b.String(), wantU)
	}
	b.Reset()
	if err := WriteCoNLL(&b, s, CoNLLX); err != nil || b.String() != words {
		t.Errorf("CoNLL-X: %v\n%q", err, b.String())
	}

	for name, bad := range map[string]func(*CoNLLSentence){
		"tab in form":        func(s *CoNLLSentence) { s.Tokens[0].Form = "a\tb" },
		"newline in id":      func(s *CoNLLSentence) { s.ID = "a\nb" },
		"empty lemma":        func(s *CoNLLSentence) { s.Tokens[1].Lemma = "" },
		"head too large":     func(s *CoNLLSentence) { s.Tokens[1].Head = 4 },
		"no words":           func(s *CoNLLSentence) { s.Tokens = nil },
		"misc ends \\r":      func(s *CoNLLSentence) { s.Tokens[1].Misc = "x\r" },
		"range of one":       func(s *CoNLLSentence) { s.Multiword[0].Last = 2 },
		"range past the end": func(s *CoNLLSentence) { s.Multiword[0].Last = 4 },
		"ranges overlap": func(s *CoNLLSentence) {
			s.Multiword = []CoNLLMultiword{{First: 1, Last: 2, Form: "a", Misc: "_"}, {First: 2, Last: 3, Form: "b", Misc: "_"}}
		},
		"range out of order": func(s *CoNLLSentence) {
			s.Multiword = []CoNLLMultiword{{First: 2, Last: 3, Form: "a", Misc: "_"}, {First: 1, Last: 2, Form: "b", Misc: "_"}}
		},
		"tab in a range's form": func(s *CoNLLSentence) { s.Multiword[0].Form = "a\tb" },
	} {
		c := *s
		c.Tokens = append([]CoNLLToken(nil), s.Tokens...)
		c.Multiword = append([]CoNLLMultiword(nil), s.Multiword...)
		bad(&c)
		if out, err := AppendCoNLL([]byte("keep"), &c, CoNLLU); err == nil || string(out) != "keep" {
			t.Errorf("%s: got %q, %v; want an error and nothing appended", name, out, err)
		}
	}
}

// forgetLines forgets input line numbers, which a round trip changes.
func forgetLines(sents []*CoNLLSentence) []*CoNLLSentence {
	for _, s := range sents {
		for i := range s.Tokens {
			s.Tokens[i].Line = 0
		}
		for i := range s.Multiword {
			s.Multiword[i].Line = 0
		}
	}
	return sents
}

func FuzzCoNLLReader(f *testing.F) {
	f.Add("# sent_id = a\n" + conllWord("1", "The", "DET", "DT", "2", "det") + conllWord("2", "dog", "NOUN", "NN", "0", "root") + "\n")
	f.Add(conllRow("1-2", "du", "_", "_", "_", "_", "_", "_", "_", "_") + conllWord("1", "de", "ADP", "P", "_", "_") +
		conllWord("2", "le", "DET", "D", "_", "_") + conllRow("2.1", "x", "_", "X", "_", "_", "_", "_", "_", "_"))
	f.Add("1\ta\tb\tc\td\te\t0\tf\tg\th\r\n\r\n1\ta\tb\tc\td\te\t1\tf\tg\th")
	f.Add("#\n\n\n# sent_id x\n" + conllWord("2", "a", "X", "X", "0", "root") + "\n" + conllWord("1", "a", "X", "X", "1", "x"))
	f.Fuzz(func(t *testing.T, in string) {
		sents, _ := readAllCoNLL(t, in)
		for _, d := range []CoNLLDialect{CoNLLU, CoNLLX} {
			var b strings.Builder
			for _, s := range sents {
				if err := WriteCoNLL(&b, s, d); err != nil {
					t.Fatalf("%v cannot write what the reader accepted: %v\n%+v", d, err, s)
				}
			}
			again, errs := readAllCoNLL(t, b.String())
			if len(errs) > 0 {
				t.Fatalf("%v: reading the written text: %v\n%q", d, errs, b.String())
			}
			if d == CoNLLX {
				for _, s := range sents {
					s.ID, s.Text, s.Multiword = "", "", nil // CoNLL-X has no comments and no multiword tokens
				}
			}
			if !reflect.DeepEqual(forgetLines(again), forgetLines(sents)) {
				t.Fatalf("%v round trip changed the sentences\nin:  %+v\nout: %+v", d, sents, again)
			}
		}
	})
}

func BenchmarkCoNLLReader(b *testing.B) {
	var text strings.Builder
	for s := 0; s < 1000; s++ {
		text.WriteString("# sent_id = s\n")
		for i := 1; i <= 20; i++ {
			head := strconv.Itoa(i - 1)
			text.WriteString(conllWord(strconv.Itoa(i), "word", "NOUN", "NN", head, "dep"))
		}
		text.WriteString("\n")
	}
	b.SetBytes(int64(text.Len()))
	for b.Loop() {
		r := NewCoNLLReader(strings.NewReader(text.String()))
		for {
			if _, err := r.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}
