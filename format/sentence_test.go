package format

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSentenceRoundTrip(t *testing.T) {
	for _, s := range []Sentence{
		{Tags: []string{"DT", "NN"}},
		{ID: "wsj_0001.mrg#1", Words: []string{"Pierre", "Vinken"}, Tags: []string{"NNP", "NNP"}, Heads: []int{2, 0}},
		{ID: `a"b\c`, Words: []string{"é", "\t", "\u2028", `"`}, Tags: []string{"``", "''", `\`, "-LRB-"}, Heads: []int{0, 1, 2, 3}, Pred: []int{2, 0, 2, 3}, Tree: "(S (X a))"},
		{ID: "d", Words: []string{"zu", "dem", "Haus", "."}, Tags: []string{"ADP", "DET", "NOUN", "PUNCT"}, UPOS: nil, XPOS: []string{"APPR", "ART", "NN", "$."},
			Text: "zum Haus.", Multiword: []Multiword{{First: 1, Last: 2, Form: "zum"}}, NoSpaceAfter: []int{3}},
		{Tags: []string{"NN"}, UPOS: []string{"NOUN"}, Text: `"\`},
	} {
		line, err := Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back Sentence
		if err := Unmarshal(line, &back); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if !reflect.DeepEqual(s, back) {
			t.Errorf("round trip of %s gave %+v", line, back)
		}
	}
}

func TestSentenceDecodeErrors(t *testing.T) {
	// Errors are in grind's words, naming the field, never the parser's.
	for line, want := range map[string]string{
		`{"tags":["a"]} x`:                      "data after the end of the sentence",
		`{"tags":["a"]}{}`:                      "data after the end of the sentence",
		`["a"]`:                                 "a sentence must be a JSON object {…}, not an array",
		`{"tags":"a"}`:                          `field "tags": expected an array [...], found a string`,
		`{"tags":[1]}`:                          `field "tags": expected a string, found a number`,
		`{"tags":["a"],"heads":[1.5]}`:          `field "heads": expected an integer, found a number with a fraction or exponent`,
		`{"tags":["a"],"heads":["x"]}`:          `field "heads": expected a non-negative integer, found a string`,
		`{"tags":["a"],"heads":[x]}`:            `field "heads": expected a non-negative integer, found 'x'`,
		`{"tags":["a"],"id":7}`:                 `field "id": expected a string, found a number`,
		`{"tags":["a",`:                         `field "tags": the line ends in the middle of the value`,
		`{"tags":["a"]`:                         `the line ends in the middle of the value`,
		`{"tags":["a"],"pred_spans":[[0,1,2]]}`: `field "pred_spans": a span is a pair [i, j]`,
		// The parser would take a ',' or ']' where an array starts as one
		// already open: "tags":,"a"] as ["a"], "pred_spans":] as [].
		`{"tags":,"a"]}`:                             `field "tags": expected a JSON value, found ','`,
		`{"tags":]}`:                                 `field "tags": expected a JSON value, found ']'`,
		`{"tags":["a"],"heads":]}`:                   `field "heads": expected a JSON value, found ']'`,
		`{"tags":["a"],"pred_spans":]}`:              `field "pred_spans": expected a JSON value, found ']'`,
		`{"tags":["a"],"pred_spans":[,]}`:            `field "pred_spans": expected a JSON value, found ','`,
		`{"tags":["a"],"pred_spans":[[0,1],]}`:       `field "pred_spans": expected a JSON value, found ']'`,
		`{"tags":["a"],"multiword":[{"first":"x"}]}`: `field "multiword": expected a non-negative integer, found a string`,
		`{"tags":["a"],"multiword":{}}`:              `field "multiword": expected an array [...], found an object`,
		`{"tags":["a"],"multiword":[[1,2]]}`:         `field "multiword": expected a field "name": value, or the end of the object, found an array`,
	} {
		var s Sentence
		err := Unmarshal([]byte(line), &s)
		if err == nil || err.Error() != want && !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", line, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "error found in") {
			t.Errorf("%s: the parser's words in %v", line, err)
		}
	}
	// Unknown fields are skipped; null and [] are told apart.
	var s Sentence
	if err := Unmarshal([]byte(`{"extra":{"x":[1,{"y":null}]},"tags":["a"],"heads":null,"pred":[]}`), &s); err != nil {
		t.Fatal(err)
	}
	if s.Heads != nil || s.Pred == nil || len(s.Pred) != 0 {
		t.Errorf("heads %#v pred %#v", s.Heads, s.Pred)
	}
}

// A line in a format a converter reads names the converter; other text
// gets the plain message.
func TestSentenceDecodeHints(t *testing.T) {
	for line, want := range map[string]string{
		`(S (NP (DT The) (NN dog)) (VP (VBZ barks)))`: `a sentence must be a JSON object {…}, not '(' (a bracketed treebank? ptb2deps converts one to sentence records)`,
		"# sent_id = 1":                         "a sentence must be a JSON object {…}, not '#' (CoNLL-U or CoNLL-X? conll2deps converts it to sentence records)",
		"1\tThe\tthe\tDET\tDT\t_\t2\tdet\t_\t_": "a sentence must be a JSON object {…}, not a number (CoNLL-U or CoNLL-X? conll2deps converts it to sentence records)",
		"The/at Fulton/np-tl County/nn-tl":      "a sentence must be a JSON object {…}, not 'T' (tagged text, word/TAG? tagged2sents converts it to sentence records)",
		"the dog barks":                         "a sentence must be a JSON object {…}, not 't'",
		"12 3":                                  "a sentence must be a JSON object {…}, not a number",
	} {
		var s Sentence
		if err := Unmarshal([]byte(line), &s); err == nil || err.Error() != want {
			t.Errorf("%q: error %v, want %q", line, err, want)
		}
	}
}

// The CoNLL-U fields are checked as the tags are: lengths, ranges, order.
func TestSentenceValidateCoNLLFields(t *testing.T) {
	base := func() Sentence {
		return Sentence{Words: []string{"a", "b", "c", "d"}, Tags: []string{"A", "B", "C", "D"}}
	}
	for _, c := range []struct {
		edit func(*Sentence)
		want string
	}{
		{func(s *Sentence) {}, ""},
		{func(s *Sentence) { s.XPOS = []string{"x", "y", "z", "w"} }, ""},
		{func(s *Sentence) { s.UPOS, s.XPOS = []string{"A", "B", "C", "D"}, []string{"x", "y", "z", "w"} }, `both "upos" and "xpos"`},
		{func(s *Sentence) { s.XPOS = []string{"x"} }, "1 xpos but 4 tags"},
		{func(s *Sentence) { s.UPOS = []string{"A", "", "C", "D"} }, "token 2 has an empty upos"},
		{func(s *Sentence) { s.Multiword = []Multiword{{1, 2, "ab"}, {3, 4, "cd"}} }, ""},
		{func(s *Sentence) { s.Multiword = []Multiword{{1, 2, "ab"}, {2, 3, "bc"}} }, "multiword: words 2-3 are not a range"},
		{func(s *Sentence) { s.Multiword = []Multiword{{3, 3, "c"}} }, "multiword: words 3-3"},
		{func(s *Sentence) { s.Multiword = []Multiword{{3, 5, "cde"}} }, "multiword: words 3-5"},
		{func(s *Sentence) { s.Multiword = []Multiword{{3, 4, ""}} }, "multiword: words 3-4 have an empty form"},
		{func(s *Sentence) { s.NoSpaceAfter = []int{2, 4} }, ""},
		{func(s *Sentence) { s.NoSpaceAfter = []int{2, 2} }, "no_space_after: word 2 is not one"},
		{func(s *Sentence) { s.NoSpaceAfter = []int{5} }, "no_space_after: word 5"},
		{func(s *Sentence) { s.NoSpaceAfter = []int{0} }, "no_space_after: word 0"},
		{func(s *Sentence) { s.Multiword, s.NoSpaceAfter = []Multiword{{2, 4, "bcd"}}, []int{1, 4} }, ""},
		{func(s *Sentence) { s.Multiword, s.NoSpaceAfter = []Multiword{{2, 4, "bcd"}}, []int{3} }, "inside the multiword token 2-4"},
	} {
		s := base()
		c.edit(&s)
		err := s.Validate()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", s, err, c.want)
		}
	}
}

// Fields grind does not know survive a round trip, in their order, after
// the known ones, with their values exactly as written.
func TestSentenceKeepsUnknownFields(t *testing.T) {
	line := `{"lang":"en","tags":["A","B"],"meta":{"src":[1, 2.50, "x\u00e9"]},"heads":[0,1],"z":null,"w":true}`
	var s Sentence
	if err := Unmarshal([]byte(line), &s); err != nil {
		t.Fatal(err)
	}
	got, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"tags":["A","B"],"heads":[0,1],"lang":"en","meta":{"src":[1, 2.50, "x\u00e9"]},"z":null,"w":true}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if err := Unmarshal([]byte(`{"tags":["A"],"x":[1,}`), &s); err == nil || strings.Contains(err.Error(), "skip") {
		t.Errorf("a broken unknown field: %v", err)
	}
}

// A field given twice is refused, among few fields or very many; many
// fields take linear time.
func TestSentenceDuplicateFields(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"tags":["A"]`)
	for i := range 200000 {
		fmt.Fprintf(&b, `,"f%d":%d`, i, i)
	}
	var s Sentence
	start := time.Now()
	if err := Unmarshal([]byte(b.String()+"}"), &s); err != nil || len(s.Unknown) != 200000 {
		t.Fatalf("%d unknown fields, %v", len(s.Unknown), err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("200,000 fields took %v", d)
	}
	for _, line := range []string{`{"tags":["A"],"x":1,"tags":["B"]}`, b.String() + `,"f199999":0}`, b.String() + `,"tags":[]}`} {
		if err := Unmarshal([]byte(line), &s); err == nil || !strings.Contains(err.Error(), "given twice") {
			t.Errorf("%.40s…: %v", line, err)
		}
	}
}

// headsInto reads what intsInto reads, to the same place, or refuses
// what it refuses: on arrays as grind writes heads and on every kind of
// number and spacing it leaves to intsInto.
func TestHeadsIntoAsIntsInto(t *testing.T) {
	inputs := []string{
		"[]", "[0]", "[2,0,4,2]", "[10,0,12,9999]", "[12345,1]", "[99999]", "[1,2", "[1,", "[", "", "x",
		"[ ]", " [1]", "[1 ,2]", "[1, 2]", "[-1]", "[01]", "[00]", "[0,0]", "[1.5]", "[1e2]", "[1]x", "[1]]",
		"[2,]", "[,2]", "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]", "[123456789012345678901]", "[\"1\"]", "[true]",
	}
	rng := rand.New(rand.NewPCG(3, 1))
	for range 2000 {
		var b strings.Builder
		b.WriteByte('[')
		for k := range rng.IntN(6) {
			if k > 0 {
				b.WriteString([]string{",", ",", ",", " ,", ", "}[rng.IntN(5)])
			}
			b.WriteString([]string{"0", "7", "42", "100", "1000", "65535", "-3", "05", "2.0"}[rng.IntN(9)])
		}
		if rng.IntN(8) > 0 {
			b.WriteByte(']')
		}
		inputs = append(inputs, b.String()+[]string{"", "}", ",\"x\":1}"}[rng.IntN(3)])
	}
	for _, in := range inputs {
		fast := scanner{data: []byte(in)}
		slow := scanner{data: []byte(in)}
		got, gotOK := fast.headsInto(make([]int, 3))
		want, wantOK := slow.intsInto(nil)
		if gotOK != wantOK || gotOK && (!slices.Equal(got, want) || got == nil || fast.i != slow.i) {
			t.Errorf("%q: headsInto %v %v at %d, intsInto %v %v at %d", in, got, gotOK, fast.i, want, wantOK, slow.i)
		}
	}
}

// countWords and tagsInto read what skipStrings and stringsInto read, to
// the same place, or refuse what they refuse: on arrays as grind writes
// them and on every kind of string and spacing they leave to those.
func TestWordsAndTagsAsStrings(t *testing.T) {
	inputs := []string{
		`[]`, `["a"]`, `["NN","VBD","NN"]`, `[ ]`, ` ["a"]`, `["a" ,"b"]`, `["a", "b"]`, `["a",]`, `[,"a"]`, `["a"`, `["a`, `[`, ``,
		`["a\"b"]`, "[\"a\tb\"]", `["é","€"]`, `["a"]]`, `["a"]x`, `[1]`, `["` + strings.Repeat("long", 9) + `","x"]`, `[""]`, `["",""]`,
	}
	rng := rand.New(rand.NewPCG(4, 1))
	for range 3000 {
		var b strings.Builder
		if rng.IntN(10) == 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('[')
		for k := range rng.IntN(6) {
			if k > 0 {
				b.WriteString([]string{",", ",", ",", " ,", ", ", ""}[rng.IntN(6)])
			}
			b.WriteString([]string{`"NN"`, `"a"`, `""`, `"word12345"`, `"x\"y"`, `"\u00e9"`, "\"t\x01\"", `"é"`, `7`, `"unterminated`}[rng.IntN(10)])
		}
		if rng.IntN(8) > 0 {
			b.WriteByte(']')
		}
		b.WriteString([]string{"", "}", `,"tags":["A"]}`}[rng.IntN(3)])
		inputs = append(inputs, b.String())
	}
	for _, in := range inputs {
		fast, slow := scanner{data: []byte(in)}, scanner{data: []byte(in)}
		n, okN := fast.countWords()
		m, okM := slow.skipStrings()
		if okN != okM || okN && (n != m || fast.i != slow.i) {
			t.Errorf("%q: countWords %d %v at %d, skipStrings %d %v at %d", in, n, okN, fast.i, m, okM, slow.i)
		}
		fast, slow = scanner{data: []byte(in)}, scanner{data: []byte(in)}
		got, gotOK := fast.tagsInto(make([]string, 2))
		want, wantOK := slow.stringsInto(nil, tagNames)
		if gotOK != wantOK || gotOK && (!slices.Equal(got, want) || got == nil || fast.i != slow.i) {
			t.Errorf("%q: tagsInto %q %v at %d, stringsInto %q %v at %d", in, got, gotOK, fast.i, want, wantOK, slow.i)
		}
	}
}

// Ids read into a reused record share their allocations and stay as they
// were read, however many are read after them.
func TestReusedRecordIDs(t *testing.T) {
	var r SentenceOrLatticeNoWords
	var got, want []string
	for i := range 3000 {
		id := fmt.Sprintf("corpus.conllu#%d", i)
		switch i % 500 {
		case 7:
			id = strings.Repeat("long", 2000) // past what an arena takes
		case 8:
			id = ""
		}
		line := fmt.Sprintf(`{"id":%q,"words":["a","b"],"tags":["A","B"],"heads":[2,0]}`, id)
		r.ResetForReuse()
		if err := Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		got, want = append(got, r.Sentence.ID), append(want, id)
	}
	if !slices.Equal(got, want) {
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("id %d read as %.40q, want %.40q", i, got[i], want[i])
			}
		}
	}
	line := []byte(`{"id":"en-ud-train-nopunct-len15.conllu#8","words":["a"],"tags":["A"],"heads":[0]}`)
	if n := testing.AllocsPerRun(1000, func() {
		r.ResetForReuse()
		Unmarshal(line, &r)
	}); n > 0.1 {
		t.Errorf("%.2f allocations a line", n)
	}
}

// ValidateWords takes a sentence of words without tags and checks its
// other fields against the words; with tags it is Validate; without words
// it leaves the sentence to Validate (and the reader).
func TestValidateWords(t *testing.T) {
	cases := []struct {
		line, want string // want "" for no error
	}{
		{`{"words":["a","b"]}`, ""},
		{`{"words":["a","b"],"gold_tags":["X","Y"],"heads":[2,0]}`, ""},
		{`{"words":["a","b"],"gold_tags":["X"]}`, "1 gold_tags but 2 words"},
		{`{"words":["a","b"],"heads":[1,0]}`, "heads: token 1 is its own head"},
		{`{"words":["a","b"],"pred":[0,0,0]}`, "pred: 3 heads for 2 tokens"},
		{`{"words":["a","b"],"pred_spans":[[0,3]]}`, "pred_spans: [0, 3]"},
		{`{"words":["a","b"],"tags":["X"]}`, "2 words but 1 tags"},
		{`{"tags":["X"]}`, ""},
		{`{"ev":"root","arg":"X","p":1}`, "an event record"},
	}
	for _, c := range cases {
		var s Sentence
		if err := s.UnmarshalJSON([]byte(c.line)); err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		err := s.ValidateWords()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.line, err, c.want)
		}
	}
}
