package tageval

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/score"
)

// handTokens are TestHandComputed's 8 tokens as two sentences.
func handTokens() []*format.Sentence {
	return []*format.Sentence{
		{Words: []string{"the", "the", "a", "dog"}, Tags: []string{"x", "x", "x", "y"}, GoldTags: []string{"A", "A", "A", "A"}},
		{Words: []string{"dog", "dog", "runs", "runs"}, Tags: []string{"y", "y", "z", "z"}, GoldTags: []string{"A", "B", "B", "C"}},
	}
}

// TestAnalysesHandComputed: TestHandComputed's table, (gold, induced) =
// (A,x)×3, (A,y)×2, (B,y), (B,z), (C,z), worked by hand.
//
// Many-to-1: x → A (3), y → A (2 against B's 1), z → B (B and C 1 each,
// ties by name). 1-to-1: x → A, y → B, z → C.
//
// By gold tag under many-to-1: A is predicted for x's and y's 6 tokens, 5
// of them A: P 5/6, R 5/5, F1 10/11, two induced tags map to it; B for
// z's 2, one B: P 1/2, R 1/2; C for none: all 0. The correct ones sum to
// many-to-1's 6. Under 1-to-1: A for x's 3, all A: P 1, R 3/5, F1 3/4; B
// for y's 3, one B: P 1/3, R 1/2, F1 2/5; C for z's 2, one C: P 1/2,
// R 1, F1 2/3 — 5 correct, 1-to-1's 5.
//
// Sizes: gold A 5, B 2, C 1; induced x 3, y 3 (ties by name), z 2. Words:
// x has "the" ×2 and "a", y "dog" ×3, z "runs" ×2.
func TestAnalysesHandComputed(t *testing.T) {
	r, err := Score(handTokens(), Options{Analyses: Analyses, Words: 1})
	if err != nil {
		t.Fatal(err)
	}
	tc := func(tag string, n int, share float64) TagCount { return TagCount{Tag: tag, Tokens: n, Share: share} }
	wantConfusion := &Confusion{
		Induced: []InducedRow{
			{Tag: "x", Tokens: 3, ManyToOne: "A", OneToOne: "A", Gold: []TagCount{tc("A", 3, 1)}},
			{Tag: "y", Tokens: 3, ManyToOne: "A", OneToOne: "B", Gold: []TagCount{tc("A", 2, 2.0/3), tc("B", 1, 1.0/3)}},
			{Tag: "z", Tokens: 2, ManyToOne: "B", OneToOne: "C", Gold: []TagCount{tc("B", 1, 0.5), tc("C", 1, 0.5)}},
		},
		Gold: []GoldRow{
			{Tag: "A", Tokens: 5, Induced: []TagCount{tc("x", 3, 0.6), tc("y", 2, 0.4)}},
			{Tag: "B", Tokens: 2, Induced: []TagCount{tc("y", 1, 0.5), tc("z", 1, 0.5)}},
			{Tag: "C", Tokens: 1, Induced: []TagCount{tc("z", 1, 1)}},
		},
	}
	if !reflect.DeepEqual(r.Confusion, wantConfusion) {
		t.Errorf("confusion\n%+v, want\n%+v", r.Confusion, wantConfusion)
	}
	p := func(correct, predicted, gold int) score.PRF {
		return score.NewPRF(correct, predicted, gold)
	}
	wantTags := []GoldTagRow{
		{Tag: "A", Tokens: 5, ManyToOneTags: 2, ManyToOne: p(5, 6, 5), OneToOne: p(3, 3, 5)},
		{Tag: "B", Tokens: 2, ManyToOneTags: 1, ManyToOne: p(1, 2, 2), OneToOne: p(1, 3, 2)},
		{Tag: "C", Tokens: 1, ManyToOneTags: 0, ManyToOne: p(0, 0, 1), OneToOne: p(1, 2, 1)},
	}
	if r.ByGoldTag == nil || !reflect.DeepEqual(*r.ByGoldTag, wantTags) {
		t.Errorf("by gold tag\n%+v, want\n%+v", r.ByGoldTag, wantTags)
	}
	for _, f := range []struct {
		got, want float64
	}{
		{wantTags[0].ManyToOne.F1, 10.0 / 11}, {wantTags[0].OneToOne.F1, 0.75},
		{wantTags[1].OneToOne.F1, 0.4}, {wantTags[2].OneToOne.F1, 2.0 / 3},
	} {
		if !near(f.got, f.want) {
			t.Errorf("F1 %v, want %v", f.got, f.want)
		}
	}
	wantSizes := &Sizes{
		Gold:    []TagCount{tc("A", 5, 0.625), tc("B", 2, 0.25), tc("C", 1, 0.125)},
		Induced: []TagCount{tc("x", 3, 0.375), tc("y", 3, 0.375), tc("z", 2, 0.25)},
	}
	if !reflect.DeepEqual(r.Sizes, wantSizes) {
		t.Errorf("sizes %+v, want %+v", r.Sizes, wantSizes)
	}
	// Words: 1 kept of each, its share of the induced tag's tokens.
	wantWords := []InducedWord{
		{Tag: "x", Tokens: 3, Types: 2, ManyToOne: "A", Words: []WordCount{{"the", 2, 2.0 / 3}}},
		{Tag: "y", Tokens: 3, Types: 1, ManyToOne: "A", Words: []WordCount{{"dog", 3, 1}}},
		{Tag: "z", Tokens: 2, Types: 1, ManyToOne: "B", Words: []WordCount{{"runs", 2, 1}}},
	}
	if r.Words == nil || !reflect.DeepEqual(*r.Words, wantWords) {
		t.Errorf("words %+v, want %+v", r.Words, wantWords)
	}
	// Without --analysis none is computed, and the measures are the same.
	plain, err := Score(handTokens(), Options{})
	if err != nil || plain.Confusion != nil || plain.ByGoldTag != nil || plain.Sizes != nil || plain.Words != nil || plain.ManyToOne != r.ManyToOne {
		t.Errorf("no analyses asked: %+v, %v", plain, err)
	}
}

// TestAnalysesNamed: tags named by the gold ones are also scored as
// themselves. (MD, MD) ×2, (NN, MD), (DT, DT): MD is predicted 3 times,
// 2 right, of 2 gold; NN never, of 1; DT once, right.
func TestAnalysesNamed(t *testing.T) {
	s := []*format.Sentence{{Words: []string{"can", "can", "can", "the"}, Tags: []string{"MD", "MD", "MD", "DT"}, GoldTags: []string{"MD", "NN", "MD", "DT"}}}
	r, err := Score(s, Options{Analyses: []Analysis{AnalysisTags}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]score.PRF{"MD": score.NewPRF(2, 3, 2), "NN": score.NewPRF(0, 0, 1), "DT": score.NewPRF(1, 1, 1)}
	for _, row := range *r.ByGoldTag {
		if row.Named == nil || *row.Named != want[row.Tag] {
			t.Errorf("%s named %+v, want %+v", row.Tag, row.Named, want[row.Tag])
		}
	}
}

// TestAnalysesNoWords: the words analysis of sentences without words is
// an error when asked for by name, and left out by all.
func TestAnalysesNoWords(t *testing.T) {
	s := []*format.Sentence{{Tags: []string{"s1", "s2"}, GoldTags: []string{"A", "B"}}}
	if _, err := Score(s, Options{Analyses: []Analysis{AnalysisWords}}); !errors.Is(err, errNoWords) {
		t.Errorf("words of no words: %v", err)
	}
	r, err := Score(s, Options{Analyses: Analyses, AllAnalyses: true})
	if err != nil || r.Words != nil || r.Sizes == nil {
		t.Errorf("all of no words: %v, words %v", err, r.Words)
	}
}

// TestAnalysesBruteForce: on random taggings, each gold tag's counts
// under the maps equal those of a token-by-token count with the maps
// found by brute force (many-to-1: each induced tag's most frequent gold
// tag, ties by name), the correct tokens sum to many-to-1's and 1-to-1's
// accuracy, and the confusion table's cells to every token.
func TestAnalysesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		nGold, nInd := 1+rng.IntN(5), 1+rng.IntN(6)
		var gold, ind []string
		for range 1 + rng.IntN(40) {
			gold = append(gold, "G"+strconv.Itoa(rng.IntN(nGold)))
			ind = append(ind, "s"+strconv.Itoa(rng.IntN(nInd)))
		}
		s := []*format.Sentence{{Tags: ind, GoldTags: gold}}
		r, err := Score(s, Options{Analyses: Analyses, AllAnalyses: true})
		if err != nil {
			t.Fatal(err)
		}
		count := map[[2]string]int{}
		for k := range gold {
			count[[2]string{ind[k], gold[k]}]++
		}
		manyToOne := map[string]string{}
		for k, i := range ind {
			best, ok := manyToOne[i]
			g := gold[k]
			if !ok || count[[2]string{i, g}] > count[[2]string{i, best}] || (count[[2]string{i, g}] == count[[2]string{i, best}] && g < best) {
				manyToOne[i] = g
			}
		}
		type tally struct{ correct, predicted, gold int }
		m1, o1 := map[string]*tally{}, map[string]*tally{}
		for _, g := range gold {
			m1[g], o1[g] = &tally{}, &tally{}
		}
		for k := range gold {
			m1[gold[k]].gold++
			o1[gold[k]].gold++
			if x := m1[manyToOne[ind[k]]]; x != nil {
				x.predicted++
				if manyToOne[ind[k]] == gold[k] {
					x.correct++
				}
			}
			if x := o1[r.OneToOneMap[ind[k]]]; x != nil {
				x.predicted++
				if r.OneToOneMap[ind[k]] == gold[k] {
					x.correct++
				}
			}
		}
		sumM1, sumO1 := 0, 0
		for _, row := range *r.ByGoldTag {
			m, o := m1[row.Tag], o1[row.Tag]
			if row.ManyToOne != score.NewPRF(m.correct, m.predicted, m.gold) || row.OneToOne != score.NewPRF(o.correct, o.predicted, o.gold) {
				t.Fatalf("trial %d, %s: %+v, want many-to-1 %+v, 1-to-1 %+v", trial, row.Tag, row, *m, *o)
			}
			sumM1 += row.ManyToOne.Correct
			sumO1 += row.OneToOne.Correct
		}
		n := float64(len(gold))
		if !near(float64(sumM1)/n, r.ManyToOne) || !near(float64(sumO1)/n, r.OneToOne) {
			t.Fatalf("trial %d: correct %d and %d of %v, measures %v and %v", trial, sumM1, sumO1, n, r.ManyToOne, r.OneToOne)
		}
		cells := 0
		for _, row := range r.Confusion.Induced {
			if row.ManyToOne != manyToOne[row.Tag] {
				t.Fatalf("trial %d: %s maps to %s, want %s", trial, row.Tag, row.ManyToOne, manyToOne[row.Tag])
			}
			for _, c := range row.Gold {
				if c.Tokens != count[[2]string{row.Tag, c.Tag}] {
					t.Fatalf("trial %d: cell (%s, %s) %d, want %d", trial, row.Tag, c.Tag, c.Tokens, count[[2]string{row.Tag, c.Tag}])
				}
				cells += c.Tokens
			}
		}
		if cells != len(gold) {
			t.Fatalf("trial %d: cells hold %d tokens of %d", trial, cells, len(gold))
		}
	}
}
