package classes

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// The class model, written and read back, tags the training text with
// the classes the method gave its words (Klein's lowercased), and writes
// itself again byte for byte.
func TestModelTagsTrainingText(t *testing.T) {
	sents := classCorpus(3, 300, 5, 10)
	// Some capitals, so that Klein's lowercasing matters.
	for i, s := range sents {
		if i%7 == 0 {
			s.Words[0] = strings.ToUpper(s.Words[0][:1]) + s.Words[0][1:]
		}
	}
	dir := t.TempDir()
	corpus := filepath.Join(dir, "c.jsonl")
	var cb bytes.Buffer
	for _, s := range sents {
		if err := pipeline.WriteRecord(&cb, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(corpus, cb.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}
	for _, method := range Methods {
		m, err := Train(sents, TrainOptions{Method: method, Classes: 6, Workers: 2,
			Klein: KleinOptions{Contexts: 500, Rank: 50, MaxIter: 100, Seed: 1}})
		if err != nil {
			t.Fatal(err)
		}
		// The method's own answer, word by word.
		lower := method == MethodKlein
		c := NewCorpus(sents, lower)
		var names []string
		if lower {
			res, _ := Klein(c, KleinOptions{Classes: 6, Contexts: 500, Rank: 50, MaxIter: 100, Seed: 1, Workers: 1})
			for _, cl := range res.Class {
				names = append(names, fmt.Sprintf("c%d", cl))
			}
		} else {
			res, _ := Brown(c, BrownOptions{Classes: 6, Workers: 1})
			names = res.Paths
		}
		var mb bytes.Buffer
		if err := m.Write(&mb); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, method+".jsonl")
		if err := os.WriteFile(path, mb.Bytes(), 0o666); err != nil {
			t.Fatal(err)
		}
		read, err := ReadModel(path)
		if err != nil {
			t.Fatal(err)
		}
		var again bytes.Buffer
		if err := read.Write(&again); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(mb.Bytes(), again.Bytes()) {
			t.Errorf("%s: the model read back writes other bytes", method)
		}
		var tagged bytes.Buffer
		rep, err := read.Tag(pipeline.Source{Names: []string{corpus}}, &tagged, 0)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Unseen != 0 || rep.Tokens != c.Tokens {
			t.Errorf("%s: %+v", method, rep)
		}
		var train bytes.Buffer
		if err := WriteTagged(&train, sents, m.TagTraining(sents, 0)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(tagged.Bytes(), train.Bytes()) {
			t.Errorf("%s: the saved model tags the training text otherwise than train-classes", method)
		}
		i := 0
		err = pipeline.EachSentence(pipeline.Source{Names: []string{"-"}, Stdin: &tagged}, func(s *format.Sentence) error {
			for j, tag := range s.Tags {
				if want := names[c.Sents[i][j]]; tag != want {
					t.Fatalf("%s: sentence %d token %d (%s): %s, the method gave %s", method, i, j, s.Words[j], tag, want)
				}
				if !slices.Equal(s.GoldTags, sents[i].Tags) {
					t.Fatalf("%s: sentence %d: gold_tags %v", method, i, s.GoldTags)
				}
			}
			i++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// The unseen rule: the longest suffix seen with the word's shape among the
// hapaxes, then the shape, then the commonest class of all hapaxes; ties
// to the class that comes first.
func TestUnseenRule(t *testing.T) {
	words := []string{"the", "walking", "talking", "cats", "Smith", "42", "dogs"}
	counts := []int{9, 1, 1, 1, 1, 1, 5}
	classOf := []int{0, 1, 1, 2, 3, 4, 2}
	table := buildUnseen(words, counts, classOf)
	for _, tc := range []struct {
		word string
		want int
	}{
		{"running", 1}, // -ing
		{"hats", 2},    // -ats
		{"bugs", 2},    // -s (dogs is no hapax: cats votes)
		{"Jones", 3},   // capital, no capital suffix in -s
		{"Keith", 3},   // capital -ith
		{"1999", 4},    // digit
		{"zz", 1},      // lower: 2 votes for 1, 1 for 2
		{"%%", 1},      // other: none; all hapaxes: class 1 has 2
		{"IBM", 1},     // upper: none
	} {
		if got := lookupUnseen(table, tc.word); got != tc.want {
			t.Errorf("%q: class %d, want %d", tc.word, got, tc.want)
		}
	}
	// Without hapaxes every word votes; ties go to the first class.
	table = buildUnseen([]string{"ab", "cb"}, []int{2, 2}, []int{1, 0})
	if got := lookupUnseen(table, "xb"); got != 0 {
		t.Errorf("tie: class %d, want 0", got)
	}
	for w, want := range map[string]string{"IBM": "upper", "Smith": "capital", "x-ray": "lower", "3rd": "digit", "--": "other", "É": "capital", "ÉTÉ": "upper"} {
		if got := Shape(w); got != want {
			t.Errorf("Shape(%q) = %s, want %s", w, got, want)
		}
	}
}

// The rule's table, kept sparse, is the table of every class's votes for
// every key, counted densely, with its ties to the first class: 3,000
// random words of two scripts in 40 classes, most of them hapaxes.
func TestUnseenSparseIsDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	letters := []rune("abcdeXYZ19-é中文字")
	var words []string
	var counts, classOf []int
	for range 3000 {
		w := make([]rune, 1+rng.IntN(6))
		for i := range w {
			w[i] = letters[rng.IntN(len(letters))]
		}
		words, counts, classOf = append(words, string(w)), append(counts, 1+rng.IntN(2)*rng.IntN(3)), append(classOf, rng.IntN(40))
	}
	hapax := slices.Contains(counts, 1)
	dense := map[unseenKey][]int{}
	vote := func(k unseenKey, c int) {
		if dense[k] == nil {
			dense[k] = make([]int, 40)
		}
		dense[k][c]++
	}
	for i, w := range words {
		if hapax && counts[i] != 1 {
			continue
		}
		for _, suf := range suffixes(w) {
			vote(unseenKey{Shape(w), suf}, classOf[i])
		}
		vote(unseenKey{Shape(w), ""}, classOf[i])
		vote(unseenKey{}, classOf[i])
	}
	table := buildUnseen(words, counts, classOf)
	if len(table) != len(dense) {
		t.Fatalf("%d keys, want %d", len(table), len(dense))
	}
	for k, v := range dense {
		best := 0
		for c, n := range v {
			if n > v[best] {
				best = c
			}
		}
		if got, ok := table[k]; !ok || got != best {
			t.Errorf("%+v: class %d (%v), want %d of %v", k, got, ok, best, v)
		}
	}
}
