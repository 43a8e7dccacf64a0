package pipeline

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/grind-nlp/grind/format"
)

// FuzzSentenceReader feeds arbitrary bytes to the sentence reader: it
// never panics, and every sentence it accepts is valid and comes back the
// same from its own JSON line.
func FuzzSentenceReader(f *testing.F) {
	for _, seed := range []string{
		`{"id":"a","words":["x","y"],"tags":["A","B"],"heads":[2,0],"pred":[0,1]}` + "\n",
		"\ufeff" + `{"tags":["A"],"extra":{"k":[1,"\u00e9",null]},"pred_spans":[[0,1]]}`,
		`{"tags":["A","B"],"heads":[0,1],"gold_tags":["x","y"],"tree":"(S (A a) (B b))"}` + "\n\n" + `{"tags":"A"}`,
		`{"tags":["A"],"heads":[1.5]}`, `["A"]`, `{"tags":["\xff"]}`, `{"tags":["A"]} x`, "{\"tags\":[\"A\",",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		src := Source{Stdin: bytes.NewReader(data), Bad: &BadRecords{Skip: true}}
		EachSentence(src, func(s *format.Sentence) error {
			if err := s.Validate(); err != nil {
				t.Fatalf("accepted an invalid sentence: %v", err)
			}
			line, err := format.Marshal(s)
			if err != nil {
				t.Fatalf("cannot write an accepted sentence: %v", err)
			}
			var back format.Sentence
			if err := format.Unmarshal(line, &back); err != nil {
				t.Fatalf("cannot read back %s: %v", line, err)
			}
			if !reflect.DeepEqual(*s, back) {
				t.Fatalf("round trip changed the sentence:\n%+v\n%+v", *s, back)
			}
			return nil
		})
	})
}
