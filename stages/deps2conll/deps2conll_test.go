package deps2conll

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
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
	want := "# sent_id = x\n1\tDT\t_\tDT\tDT\t_\t2\tdep\t_\t_\n2\tNN\t_\tNN\tNN\t_\t0\troot\t_\t_\n\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	s.Heads = nil
	cs, err := ToCoNLL(s, false)
	if err != nil || cs.HasHeads() || cs.Tokens[0].Deprel != "_" {
		t.Errorf("no heads: %+v, %v", cs, err)
	}
	cs, err = ToCoNLL(s, true)
	if err != nil || cs.Tokens[0].Head != 0 || cs.Tokens[0].Deprel != "root" || cs.Tokens[1].Head != 1 {
		t.Errorf("--pred: %+v, %v", cs, err)
	}
	s.Pred = nil
	if _, err := ToCoNLL(s, true); err == nil {
		t.Error("--pred on a record without pred is not an error")
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
