package format

import (
	"reflect"
	"strings"
	"testing"
)

const trans1Line = `{"id":"s1","tags":["DT","NN","VBD"],"nbhd":"trans1","states":6,"start":0,"final":[5],"arcs":[[0,1,"DT"],[0,2,"NN"],[1,3,"NN"],[2,4,"DT"],[3,5,"VBD"],[4,5,"VBD"]]}`

func TestLatticeRoundTrip(t *testing.T) {
	var l Lattice
	if err := Unmarshal([]byte(trans1Line), &l); err != nil {
		t.Fatal(err)
	}
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	want := Lattice{ID: "s1", Tags: []string{"DT", "NN", "VBD"}, Nbhd: "trans1", States: 6, Start: 0, Final: []int{5},
		Arcs: []Arc{{0, 1, "DT", ""}, {0, 2, "NN", ""}, {1, 3, "NN", ""}, {2, 4, "DT", ""}, {3, 5, "VBD", ""}, {4, 5, "VBD", ""}}}
	if !reflect.DeepEqual(l, want) {
		t.Fatalf("read %+v\nwant %+v", l, want)
	}
	b, err := Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != trans1Line {
		t.Fatalf("wrote %s\nwant  %s", b, trans1Line)
	}
	// A tag that needs escaping survives the trip.
	l.Arcs[0].Tag = `"quote"\`
	b, _ = Marshal(l)
	var back Lattice
	if err := Unmarshal(b, &back); err != nil || back.Arcs[0].Tag != l.Arcs[0].Tag {
		t.Fatalf("escaped tag: %v %q", err, back.Arcs[0].Tag)
	}
}

func TestLatticeErrors(t *testing.T) {
	cases := []struct{ line, err string }{
		{`[1,2]`, "must be a JSON object"},
		{`{"tags":["A"],"start":0,"final":[0],"arcs":[]}`, `without "states"`},
		{`{"tags":["A"],"states":2,"start":0,"final":[1],"arcs":[[0,1]]}`, "arc 1 has 2 fields"},
		{`{"tags":["A"],"states":2,"start":0,"final":[1],"arcs":[[0,"x","A"]]}`, ""},
		{`{"tags":[],"states":2,"start":0,"final":[1],"arcs":[[0,1,"A"]]}`, "no sentence tags"},
		{`{"tags":["A"],"states":0,"start":0,"final":[],"arcs":[]}`, "0 states"},
		{`{"tags":["A"],"states":2,"start":2,"final":[1],"arcs":[[0,1,"A"]]}`, "start state 2 is outside 0..1"},
		{`{"tags":["A"],"states":2,"start":0,"final":[],"arcs":[[0,1,"A"]]}`, "no final state"},
		{`{"tags":["A"],"states":2,"start":0,"final":[1,1],"arcs":[[0,1,"A"]]}`, "listed twice"},
		{`{"tags":["A"],"states":2,"start":0,"final":[3],"arcs":[[0,1,"A"]]}`, "final state 3 is outside"},
		{`{"tags":["A","B"],"states":2000000000,"start":0,"final":[2],"arcs":[[0,1,"A"],[1,2,"B"]]}`, "claims 2000000000 states, but its 2 arcs can reach at most 3"},
		{`{"tags":["A"],"states":2,"start":0,"final":[1],"arcs":[[0,2,"A"]]}`, "arc 1 [0,2,\"A\"]: state outside 0..1"},
		{`{"tags":["A"],"states":2,"start":0,"final":[1],"arcs":[[1,1,"A"]]}`, "topological order"},
		{`{"tags":["A"],"states":3,"start":0,"final":[2],"arcs":[[1,2,"A"],[0,1,"A"],[0,2,"A"]]}`, "arcs 2 and 3 both leave state 0 with tag \"A\""},
		{`{"tags":["A"],"states":2,"start":0,"final":[1],"arcs":[[0,1,""]]}`, "empty tag"},
		{`{"tags":["A"],"states":2,"start":0,"final":[1],"arcs":]}`, "expected a JSON value, found ']'"},
		{`{"tags":["A"],"states":2,"start":0,"final":[1],"arcs":[,0,1,"A"]]}`, "expected a JSON value, found ','"},
	}
	for _, c := range cases {
		var l Lattice
		err := Unmarshal([]byte(c.line), &l)
		if err == nil {
			err = l.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: error %v, want one containing %q", c.line, err, c.err)
		}
	}
}

func TestSentenceOrLattice(t *testing.T) {
	var r SentenceOrLattice
	if err := Unmarshal([]byte(trans1Line), &r); err != nil || r.Lattice == nil || r.Sentence != nil || r.Validate() != nil {
		t.Fatalf("lattice line read as %+v (%v)", r, err)
	}
	if err := Unmarshal([]byte(`{"id":"x","tags":["A","B"],"heads":[0,1],"extra":{"arcs":1}}`), &r); err != nil || r.Sentence == nil || r.Lattice != nil {
		t.Fatalf("sentence line read as %+v (%v)", r, err)
	}
	if r.Sentence.ID != "x" || len(r.Sentence.Heads) != 2 || r.Validate() != nil {
		t.Fatalf("sentence %+v", r.Sentence)
	}
	if err := Unmarshal([]byte(`"text"`), &r); err == nil {
		t.Fatal("a string is not a record")
	}
}

// A lattice over words (nbhd --words) writes "words" where one over tags
// writes "tags", reads back the same, and may not have both.
func TestWordLatticeRoundTrip(t *testing.T) {
	line := `{"id":"1","words":["a","dog"],"nbhd":"trans1","states":4,"start":0,"final":[3],"arcs":[[0,2,"a"],[0,1,"dog"],[1,3,"a"],[2,3,"dog"]]}`
	var l Lattice
	if err := Unmarshal([]byte(line), &l); err != nil {
		t.Fatal(err)
	}
	if err := l.Validate(); err != nil || l.Tags != nil || len(l.Words) != 2 {
		t.Fatalf("%+v: %v", l, err)
	}
	back, err := Marshal(l)
	if err != nil || string(back) != line {
		t.Fatalf("written back as %s (%v)", back, err)
	}
	l.Tags = []string{"DT", "NN"}
	if err := l.Validate(); err == nil {
		t.Fatal("a lattice with both tags and words is valid")
	}
}
