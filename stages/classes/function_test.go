package classes

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// With FunctionWords n, exactly the n most frequent lowercased forms (by
// a count done here by hand) have classes of their own, every other word
// keeps its cluster's, the class survives --prefix and a model read back,
// and an unseen capitalisation of a function word is that word's.
func TestFunctionWords(t *testing.T) {
	sents := classCorpus(5, 400, 4, 12)
	for i, s := range sents { // "The" and "the" are one form
		s.Words = append([]string{"the"}, s.Words...)
		s.Tags = append([]string{"D"}, s.Tags...)
		if i%3 == 0 {
			s.Words[0] = "The"
		}
	}
	count := map[string]int{}
	for _, s := range sents {
		for _, w := range s.Words {
			count[strings.ToLower(w)]++
		}
	}
	const n = 3
	for _, method := range Methods {
		plain, err := Train(sents, TrainOptions{Method: method, Classes: 5, Workers: 1, Klein: KleinOptions{Contexts: 50, Rank: 10, MaxIter: 50, Seed: 1}})
		if err != nil {
			t.Fatal(err)
		}
		m, err := Train(sents, TrainOptions{Method: method, Classes: 5, Workers: 1, FunctionWords: n, Klein: KleinOptions{Contexts: 50, Rank: 10, MaxIter: 50, Seed: 1}})
		if err != nil {
			t.Fatal(err)
		}
		// The n-th count of a function word is above every other word's.
		least, most := 1<<30, 0
		functions := map[string]bool{}
		for _, w := range m.Words {
			c, _ := m.Class(w)
			form := strings.ToLower(w)
			if IsFunctionClass(c) {
				if c != FunctionPrefix+form {
					t.Fatalf("%s: %q in class %q", method, w, c)
				}
				functions[form] = true
				least = min(least, count[form])
			} else {
				most = max(most, count[form])
				if pc, _ := plain.Class(w); pc != c {
					t.Errorf("%s: %q: class %q, without function words %q", method, w, c, pc)
				}
			}
		}
		if len(functions) != n || least < most || !functions["the"] {
			t.Fatalf("%s: function words %v (least count %d, other words up to %d)", method, functions, least, most)
		}
		if c := cut(FunctionPrefix+"the", 1); c != FunctionPrefix+"the" {
			t.Errorf("--prefix cut a function word's class to %q", c)
		}
		path := filepath.Join(t.TempDir(), "m.jsonl")
		var b bytes.Buffer
		if err := m.Write(&b); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o666); err != nil {
			t.Fatal(err)
		}
		read, err := ReadModel(path)
		if err != nil {
			t.Fatal(err)
		}
		if c, seen := read.Class("THE"); seen != read.Lowercase || c != FunctionPrefix+"the" {
			t.Errorf("%s: unseen THE: %q (seen %v)", method, c, seen)
		}
		// A function word's class in a model whose header has none is refused.
		bad := strings.Replace(b.String(), `,"function_words":3`, "", 1)
		if bad == b.String() {
			t.Fatalf("%s: no function_words in the header: %.200s", method, bad)
		}
		if err := os.WriteFile(path, []byte(bad), 0o666); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadModel(path); err == nil || !strings.Contains(err.Error(), "function word") {
			t.Errorf("%s: a function class without function_words: %v", method, err)
		}
	}
}
