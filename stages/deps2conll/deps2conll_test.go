package deps2conll

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/golden"
	"github.com/grind-nlp/grind/internal/testenv"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/conll2deps"
)

func TestGolden(t *testing.T) {
	for _, c := range []struct {
		golden string
		opts   Options
	}{
		{"sentences.conllu", Options{Dialect: format.CoNLLU}},
		{"sentences.conllx", Options{Dialect: format.CoNLLX}},
		{"sentences.pred.conllx", Options{Dialect: format.CoNLLX, Pred: true}},
	} {
		t.Run(c.golden, func(t *testing.T) {
			var out bytes.Buffer
			src := pipeline.Source{Names: []string{filepath.Join("testdata", "sentences.jsonl")}}
			if _, err := Write(src, &out, c.opts); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", c.golden), out.Bytes())
		})
	}
}

// TestColumns spells out one sentence's columns, so that -update cannot
// bless a wrong layout.
func TestColumns(t *testing.T) {
	s := &format.Sentence{ID: "x", Tags: []string{"DT", "NN"}, Heads: []int{2, 0}, Pred: []int{0, 1}}
	var out bytes.Buffer
	if _, err := Write(pipeline.Source{Stdin: strings.NewReader(mustJSON(t, s))}, &out, Options{}); err != nil {
		t.Fatal(err)
	}
	want := "# sent_id = x\n# text = DT NN\n1\tDT\t_\tDT\tDT\t_\t2\tdep\t_\t_\n2\tNN\t_\tNN\tNN\t_\t0\troot\t_\t_\n\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	s.Heads = nil
	cs, err := ToCoNLL(s, Options{})
	if err != nil || cs.HasHeads() || cs.Tokens[0].Deprel != "_" {
		t.Errorf("no heads: %+v, %v", cs, err)
	}
	cs, err = ToCoNLL(s, Options{Pred: true})
	if err != nil || cs.Tokens[0].Head != 0 || cs.Tokens[0].Deprel != "root" || cs.Tokens[1].Head != 1 {
		t.Errorf("--pred: %+v, %v", cs, err)
	}
	s.Pred = nil
	if _, err := ToCoNLL(s, Options{Pred: true}); err == nil {
		t.Error("--pred on a record without pred is not an error")
	}
}

// TestUDColumns spells out a UD sentence: UPOS and XPOS, the multiword
// token's line with its SpaceAfter=No, a word's, and the text.
func TestUDColumns(t *testing.T) {
	s := &format.Sentence{ID: "d-1", Words: []string{"Ich", "gehe", "zu", "dem", "Haus", "!"}, Tags: []string{"PRON", "VERB", "ADP", "DET", "NOUN", "PUNCT"},
		Heads: []int{2, 0, 5, 5, 2, 2}, XPOS: []string{"PPER", "VVFIN", "APPR", "ART", "NN", "$."}, Text: "Ich gehe zum Haus!",
		Multiword: []format.Multiword{{First: 3, Last: 4, Form: "zum"}}, NoSpaceAfter: []int{5}}
	want := "# sent_id = d-1\n# text = Ich gehe zum Haus!\n" +
		"1\tIch\t_\tPRON\tPPER\t_\t2\tdep\t_\t_\n" +
		"2\tgehe\t_\tVERB\tVVFIN\t_\t0\troot\t_\t_\n" +
		"3-4\tzum\t_\t_\t_\t_\t_\t_\t_\t_\n" +
		"3\tzu\t_\tADP\tAPPR\t_\t5\tdep\t_\t_\n" +
		"4\tdem\t_\tDET\tART\t_\t5\tdep\t_\t_\n" +
		"5\tHaus\t_\tNOUN\tNN\t_\t2\tdep\t_\tSpaceAfter=No\n" +
		"6\t!\t_\tPUNCT\t$.\t_\t2\tdep\t_\t_\n\n"
	for name, edit := range map[string]func(*format.Sentence){
		"as it is": func(*format.Sentence) {},
		// Without a text, the tokens' text is the same.
		"no text": func(s *format.Sentence) { s.Text = "" },
		// The multiword token's own SpaceAfter=No, on its line.
		"no space after zum": func(s *format.Sentence) { s.NoSpaceAfter, s.Text = []int{4, 5}, "Ich gehe zumHaus!" },
		// Tags from XPOS, UPOS kept.
		"upos kept": func(s *format.Sentence) { s.Tags, s.UPOS, s.XPOS = s.XPOS, s.Tags, nil },
	} {
		c := *s
		edit(&c)
		var out bytes.Buffer
		if _, err := Write(pipeline.Source{Stdin: strings.NewReader(mustJSON(t, &c))}, &out, Options{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		w := want
		if name == "no space after zum" {
			w = strings.Replace(strings.Replace(w, "zum Haus", "zumHaus", 1), "3-4\tzum\t_\t_\t_\t_\t_\t_\t_\t_", "3-4\tzum\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No", 1)
		}
		if out.String() != w {
			t.Errorf("%s: got\n%s\nwant\n%s", name, out.String(), w)
		}
	}
	// CoNLL-X: no comments, no multiword tokens, no MISC.
	var out bytes.Buffer
	if _, err := Write(pipeline.Source{Stdin: strings.NewReader(mustJSON(t, s))}, &out, Options{Dialect: format.CoNLLX}); err != nil {
		t.Fatal(err)
	}
	x := strings.ReplaceAll(strings.ReplaceAll(want, "SpaceAfter=No", "_"), "3-4\tzum\t_\t_\t_\t_\t_\t_\t_\t_\n", "")
	if x = x[strings.Index(x, "1\t"):]; out.String() != x {
		t.Errorf("CoNLL-X: got\n%s\nwant\n%s", out.String(), x)
	}
}

// TestRefused: what CoNLL-U cannot hold, or the record contradicts, is an
// error at the record's line.
func TestRefused(t *testing.T) {
	for _, c := range []struct {
		in   string
		opts Options
		want string
	}{
		{`{"id":"a","tags":["A"],"xpos":["x"]}`, Options{Tag: XPOS}, `<stdin>:1: the record keeps its XPOS in "xpos"`},
		{`{"id":"a","tags":["A"],"upos":["X"]}`, Options{Tag: UPOS}, `<stdin>:1: the record keeps its UPOS in "upos"`},
		{`{"id":"a","words":["x  y"],"tags":["A"]}`, Options{}, `<stdin>:1: word 1: word "x  y" holds two white-space characters in a row`},
		{`{"id":"a","words":[" x"],"tags":["A"]}`, Options{}, `<stdin>:1: word 1: word " x" starts or ends with white space`},
		{`{"id":"a","tags":["A B"]}`, Options{}, `<stdin>:1: word 1: tag "A B" holds white space`},
		{`{"id":"a b","tags":["A"]}`, Options{}, `<stdin>:1: id "a b" holds white space`},
		{`{"id":"a","words":["x","y"],"tags":["A","B"],"text":"x z"}`, Options{}, `<stdin>:1: text "x z" does not match token 2 "y"`},
		// CoNLL-X writes no ids, so it does not mind them.
		{`{"id":"a b","tags":["A"]}`, Options{Dialect: format.CoNLLX}, ""},
		{"", Options{}, "<stdin>: no sentences to write"},
		{"\n\n", Options{}, "<stdin>: no sentences to write"},
	} {
		var out bytes.Buffer
		_, err := Write(pipeline.Source{Stdin: strings.NewReader(c.in)}, &out, c.opts)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.in, err, c.want)
		}
	}
	// Sentences without ids are named after their input and place in it;
	// ids given twice are counted.
	var out bytes.Buffer
	sum, err := Write(pipeline.Source{Stdin: strings.NewReader(`{"tags":["A"]}` + "\n" + `{"tags":["B"]}` + "\n" + `{"id":"<stdin>#1","tags":["C"]}`)}, &out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out.String(), "# sent_id = <stdin>#2\n"); got != 1 {
		t.Errorf("ids made for sentences without them:\n%s", out.String())
	}
	if sum.RepeatedID != 1 || sum.FirstRepeatedID != "<stdin>#1 at <stdin>:3, first at <stdin>:1" {
		t.Errorf("repeated ids: %+v", sum)
	}
}

func mustJSON(t *testing.T, s *format.Sentence) string {
	b, err := format.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func TestBadRecords(t *testing.T) {
	in := `{"id":"a","tags":["A","B"],"heads":[0,1]}
{"id":"b","words":["x\ty","z"],"tags":["A","B"],"heads":[0,1]}
{"id":"c","tags":["A","B","C"],"heads":[0,1]}
{"id":"d","tags":["A"],"heads":[0]}
`
	var out bytes.Buffer
	_, err := Write(pipeline.Source{Stdin: strings.NewReader(in)}, &out, Options{})
	if err == nil || err.Error() != `<stdin>:2: word 1: FORM "x\ty" holds a tab or a line break` {
		t.Errorf("error %v", err)
	}
	out.Reset()
	bad := &pipeline.BadRecords{Skip: true}
	if _, err := Write(pipeline.Source{Stdin: strings.NewReader(in), Bad: bad}, &out, Options{}); err != nil {
		t.Fatal(err)
	}
	if bad.Count != 2 || strings.Count(out.String(), "# sent_id") != 2 {
		t.Errorf("skipped %d, wrote\n%s", bad.Count, out.String())
	}
}

// roundTrip runs conll2deps on files, deps2conll on its output, and
// conll2deps again on that, with the same options; it returns the first
// and the last sentence lists.
func roundTrip(t *testing.T, opts conll2deps.Options, dialect format.CoNLLDialect, files ...string) (first, last []*format.Sentence) {
	t.Helper()
	var a, b, c bytes.Buffer
	if _, err := conll2deps.Convert(pipeline.Source{Names: files}, &a, opts); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(pipeline.Source{Stdin: bytes.NewReader(a.Bytes())}, &b, Options{Dialect: dialect}); err != nil {
		t.Fatal(err)
	}
	again := opts
	again.Format = conll2deps.Auto
	if _, err := conll2deps.Convert(pipeline.Source{Stdin: &b}, &c, again); err != nil {
		t.Fatal(err)
	}
	return decode(t, a.Bytes()), decode(t, c.Bytes())
}

func decode(t *testing.T, jsonl []byte) []*format.Sentence {
	var sents []*format.Sentence
	for line := range bytes.Lines(jsonl) {
		s := new(format.Sentence)
		if err := format.Unmarshal(line, s); err != nil {
			t.Fatal(err)
		}
		sents = append(sents, s)
	}
	return sents
}

// checkIdentity compares ids, words, tags and heads. CoNLL-X has no
// comments to keep ids in, so there the second pass numbers the
// sentences of its input instead.
func checkIdentity(t *testing.T, name string, dialect format.CoNLLDialect, first, last []*format.Sentence) {
	t.Helper()
	if len(first) != len(last) {
		t.Fatalf("%s %v: %d sentences, %d after the round trip", name, dialect, len(first), len(last))
	}
	if len(first) == 0 {
		t.Fatalf("%s: no sentences", name)
	}
	for i, s := range first {
		if dialect == format.CoNLLX {
			s.ID = fmt.Sprintf("<stdin>#%d", i+1)
			s.Text, s.Multiword, s.NoSpaceAfter = "", nil, nil // CoNLL-X has no comments, multiword tokens or MISC
		}
		// A record that keeps no second tag column has its tags written
		// in both: the second pass keeps them twice. One without a text
		// gets its tokens'.
		if l := last[i]; s.UPOS == nil && s.XPOS == nil && (slices.Equal(l.UPOS, l.Tags) || slices.Equal(l.XPOS, l.Tags)) {
			l.UPOS, l.XPOS = nil, nil
		}
		if l := last[i]; s.Text == "" && l.Text == l.TokenText() {
			l.Text = ""
		}
		if !reflect.DeepEqual(s, last[i]) {
			t.Fatalf("%s %v: sentence %d changed:\n%+v\n%+v", name, dialect, i+1, s, last[i])
		}
	}
}

func TestRoundTripOwnData(t *testing.T) {
	dir := filepath.Join("..", "conll2deps", "testdata")
	for _, c := range []struct {
		file string
		opts conll2deps.Options
	}{
		{"small.conllu", conll2deps.Options{}},
		{"small.conllu", conll2deps.Options{KeepPunct: true}},
		{"small.conllu", conll2deps.Options{Tag: conll2deps.XPOS, Punct: []string{"PUNCT", "SYM"}}},
		{"small.dp", conll2deps.Options{}},
		{"small.dp", conll2deps.Options{KeepPunct: true}},
	} {
		for _, d := range []format.CoNLLDialect{format.CoNLLU, format.CoNLLX} {
			first, last := roundTrip(t, c.opts, d, filepath.Join(dir, c.file))
			checkIdentity(t, c.file, d, first, last)
		}
	}
}

func TestRoundTripSharedData(t *testing.T) {
	data := testenv.SharedData(t)
	for _, c := range []struct {
		glob string
		opts conll2deps.Options
	}{
		{"ud/*.conllu", conll2deps.Options{Punct: []string{"PUNCT", "SYM"}}},
		{"ud/*.conllu", conll2deps.Options{KeepPunct: true, Tag: conll2deps.XPOS}},
		{"ud-nopunct/*.conllu", conll2deps.Options{}},
		{"ptb-sample-deps-ym/*.dp", conll2deps.Options{}},
		{"ptb-sample-deps-ym/*.dp", conll2deps.Options{KeepPunct: true}},
	} {
		files, _ := filepath.Glob(filepath.Join(data, c.glob))
		if c.opts.Tag == conll2deps.XPOS {
			files = withXPOS(files)
		}
		if len(files) == 0 {
			t.Errorf("no files match %s", c.glob)
			continue
		}
		for _, d := range []format.CoNLLDialect{format.CoNLLU, format.CoNLLX} {
			if d == format.CoNLLX {
				files = files[:1] // CoNLL-X differs only in the comments
			}
			first, last := roundTrip(t, c.opts, d, files...)
			checkIdentity(t, c.glob, d, first, last)
		}
	}
}

// withXPOS leaves out Portuguese-Bosque, which has no XPOS column.
func withXPOS(files []string) []string {
	var keep []string
	for _, f := range files {
		if !strings.Contains(f, "pt_bosque") {
			keep = append(keep, f)
		}
	}
	return keep
}
