package hmmce

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tinyTagger is tiny's model named, with a dictionary when dict.
func tinyTagger(t *testing.T, order int, dict bool) *Tagger {
	t.Helper()
	words := []string{"The", "dog-s", "ran", "42", "runs"}
	m, _ := tiny(true, 9)
	m.Order = order
	if dict {
		forbid(m)
	}
	theta := make([]float64, m.Dim())
	for i := range theta {
		theta[i] = math.Sin(float64(3*i + 1))
	}
	// The weights of no transition (the empty sentence's, a tag then the
	// boundary as a context) are not written: 0.
	k, k1 := m.K, m.K+1
	theta[m.trans(m.contexts()-1, k)] = 0
	for a := 0; order == 2 && a < k; a++ {
		for c := 0; c <= k; c++ {
			theta[m.trans(a*k1+k, c)] = 0
		}
	}
	_, features := SpellingFeatures(words)
	for w := 0; dict && w < m.V; w++ {
		for s := 0; s < k; s++ {
			if !m.Allowed[w*k+s] {
				theta[m.emit(s, w)] = 0 // forbidden: not written
			}
		}
	}
	return NewTagger(m, theta, []string{"A", "B", "C"}, words, features, "trans1")
}

// A tagger written and read back is the same model — layout, weights,
// dictionary, spelling lists — and writes the same bytes again.
func TestTaggerRoundTrip(t *testing.T) {
	for _, order := range []int{1, 2} {
		for _, dict := range []bool{false, true} {
			tg := tinyTagger(t, order, dict)
			var b bytes.Buffer
			if err := tg.Write(&b); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "m.jsonl")
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := ReadTagger(path, 0)
			if err != nil {
				t.Fatalf("order %d dict %v: %v", order, dict, err)
			}
			if got.M.K != tg.M.K || got.M.V != tg.M.V || got.M.F != tg.M.F || got.M.Order != tg.M.Order ||
				!slices.Equal(got.Theta, tg.Theta) || !slices.Equal(got.M.Allowed, tg.M.Allowed) ||
				!slices.EqualFunc(got.M.Spell, tg.M.Spell, func(a, b []int) bool { return slices.Equal(a, b) }) {
				t.Errorf("order %d dict %v: the model read back differs", order, dict)
			}
			var again bytes.Buffer
			if err := got.Write(&again); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again.Bytes(), b.Bytes()) {
				t.Errorf("order %d dict %v: written again, the file differs", order, dict)
			}
			if Hash(got) != Hash(tg) {
				t.Errorf("order %d dict %v: hash differs", order, dict)
			}
		}
	}
}

// A word the tagger never saw scores, under each state, the weights of
// its spelling features the tagger knows (emission 0), with every state
// allowed; known words keep their weights.
func TestTaggerExtendUnseenWords(t *testing.T) {
	tg := tinyTagger(t, 1, true)
	m, theta, ids := tg.Extend([][]string{{"The", "Walks", "dog-s"}})
	if !slices.Equal(ids[0], []int{0, 5, 1}) || m.V != 6 {
		t.Fatalf("ids %v, V %d", ids[0], m.V)
	}
	for s := 0; s < m.K; s++ {
		for w := 0; w < tg.M.V; w++ {
			if m.local(theta, s, w) != tg.M.local(tg.Theta, s, w) {
				t.Errorf("known word %d state %d: score changed", w, s)
			}
		}
		want := 0.0
		for _, name := range Spelling("Walks") {
			if f := slices.Index(tg.Features, name); f >= 0 {
				want += tg.Theta[tg.M.spell(s, f)]
			}
		}
		if got := m.local(theta, s, 5); math.Abs(got-want) > 1e-15 || want == 0 {
			t.Errorf("unseen word, state %d: score %v, want %v", s, got, want)
		}
	}
}

// Bad tagger files are refused with their line.
func TestReadTaggerRefuses(t *testing.T) {
	var b bytes.Buffer
	if err := tinyTagger(t, 1, false).Write(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(b.String(), "\n")
	cases := map[string]struct{ file, want string }{
		"cut":        {strings.Join(lines[:len(lines)-2], ""), "cut off"},
		"no header":  {strings.Join(lines[1:], ""), ":1: not a CE tagger"},
		"dmv":        {`{"ev":"header","family":"dmv","unit":"p","events":1}` + "\n", `family "dmv"`},
		"sentence":   {`{"words":["a"],"tags":["A"]}` + "\n", "a sentence"},
		"twice":      {lines[0] + lines[1] + strings.Join(lines[1:len(lines)-2], ""), "given twice"},
		"bad state":  {lines[0] + strings.Replace(strings.Join(lines[1:], ""), `"next":"A"`, `"next":"Z"`, 1), `state "Z"`},
		"empty file": {"", "empty"},
	}
	for name, c := range cases {
		path := filepath.Join(t.TempDir(), "m.jsonl")
		os.WriteFile(path, []byte(c.file), 0o644)
		if _, err := ReadTagger(path, 0); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", name, err, c.want)
		}
	}
}
