package format

import (
	"reflect"
	"strings"
	"testing"
)

func TestSentenceRoundTrip(t *testing.T) {
	for _, s := range []Sentence{
		{Tags: []string{"DT", "NN"}},
		{ID: "wsj_0001.mrg#1", Words: []string{"Pierre", "Vinken"}, Tags: []string{"NNP", "NNP"}, Heads: []int{2, 0}},
		{ID: `a"b\c`, Words: []string{"é", "\t", "\u2028", `"`}, Tags: []string{"``", "''", `\`, "-LRB-"}, Heads: []int{0, 1, 2, 3}, Pred: []int{2, 0, 2, 3}, Tree: "(S (X a))"},
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
	for line, want := range map[string]string{
		`{"tags":["a"]} x`:             "data after the end",
		`{"tags":["a"]}{}`:             "data after the end",
		`["a"]`:                        "must be a JSON object",
		`{"tags":"a"}`:                 "ReadArray",
		`{"tags":["a"],"heads":[1.5]}`: "float",
		`{"tags":["a",`:                "",
	} {
		var s Sentence
		err := Unmarshal([]byte(line), &s)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", line, err, want)
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
