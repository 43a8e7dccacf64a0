package treebanks

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/internal/testenv"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/score"
)

// stats strips src and counts all sentences and those of length ≤ 10,
// checking that each tree reads back with as many tokens as the record.
func stats(t *testing.T, src pipeline.Source, f Format) (sum Summary, all, tokens, le10, tokens10 int) {
	t.Helper()
	var out bytes.Buffer
	sum, err := Strip(src, &out, f, false)
	if err != nil {
		t.Fatal(err)
	}
	sents, err := pipeline.ReadSentences(pipeline.Source{Stdin: &out})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sents {
		_, n, err := score.GoldBrackets(s.Tree)
		if err != nil || n != s.Len() {
			t.Fatalf("%s: tree %q: %v (%d tokens, record %d)", s.ID, s.Tree, err, n, s.Len())
		}
		all++
		tokens += s.Len()
		if s.Len() <= 10 {
			le10++
			tokens10 += s.Len()
		}
	}
	return sum, all, tokens, le10, tokens10
}

// TestCESSStatistics reproduces ../shared/data/README.md: 6,016 trees,
// 164,629 tokens without punctuation, ≤10: 829 sentences / 5,188 tokens.
func TestCESSStatistics(t *testing.T) {
	dir := testenv.SharedData(t, "cess_esp")
	names, _ := filepath.Glob(filepath.Join(dir, "*.tbf"))
	sum, all, tokens, le10, tokens10 := stats(t, pipeline.Source{Names: names}, CESS)
	if all != 6016 || tokens != 164629 || le10 != 829 || tokens10 != 5188 || sum.Empty != 0 {
		t.Errorf("%d trees / %d tokens, ≤10 %d / %d, %d empty; want 6016 / 164629, 829 / 5188, 0", all, tokens, le10, tokens10, sum.Empty)
	}
	if sum.Repaired != 3 {
		t.Errorf("%d trees repaired, want the README's 3 unbalanced ones", sum.Repaired)
	}
}

// TestSinicaStatistics reproduces ../shared/data/README.md: 10,000 trees,
// 91,634 tokens without punctuation, ≤10: 5,500 sentences / 31,961 tokens.
func TestSinicaStatistics(t *testing.T) {
	path := testenv.SharedData(t, "sinica_treebank", "parsed")
	_, all, tokens, le10, tokens10 := stats(t, pipeline.Source{Names: []string{path}}, Sinica)
	if all != 10000 || tokens != 91634 || le10 != 5500 || tokens10 != 31961 {
		t.Errorf("%d trees / %d tokens, ≤10 %d / %d; want 10000 / 91634, 5500 / 31961", all, tokens, le10, tokens10)
	}
}

func TestSinicaLine(t *testing.T) {
	tr, err := parseSinicaLine("#3:3.[39029] S(theme:NP(Head:N(DUMMY1:Nba:嘉珍|Head:Caa[P1}:和|DUMMY2:Nhaa:我))|Head:VC1:住在|goal:NP(quantifier:DM:同一條|head:Head:Nab:巷子))#，(COMMACATEGORY)")
	if err != nil {
		t.Fatal(err)
	}
	want := "(S (NP (N (Nba 嘉珍) (Caa 和) (Nhaa 我))) (VC1 住在) (NP (DM 同一條) (Nab 巷子)) (COMMA ，))"
	if got := tr.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if s := strip(tr, false, Sinica).String(); strings.Contains(s, "COMMA") {
		t.Errorf("punctuation kept: %s", s)
	}
}

func TestCESSTree(t *testing.T) {
	text := "(\n  (S\n    (sn.e-SUJ *0*)\n    (grup.verb\n      (vmis3s0 anunció anunciar))\n    (sn-CD\n      (Fpa -Fpa- -Fpa-)\n      (np00000 EDF EDF)))\n"
	tr, fixed, err := parseCESS([]byte(text)) // one ")" missing
	if err != nil {
		t.Fatal(err)
	}
	if !fixed {
		t.Error("missing bracket not reported")
	}
	if got, want := strip(tr, false, CESS).String(), "(S (grup.verb (vmis3s0 anunció)) (sn (np00000 EDF)))"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// The CESS and Sinica readers, which descend a tree by recursion, refuse
// one nested deeper than maxDepth before Go's stack could overflow (a
// million levels would hold hundreds of MB of it), and take one within.
func TestTreeTooDeep(t *testing.T) {
	const d = maxDepth
	cess := func(depth int) []byte {
		return []byte(strings.Repeat("(S ", depth) + "(n a a)" + strings.Repeat(")", depth))
	}
	sinica := func(depth int) string {
		return "#1 " + strings.Repeat("S(x:", depth) + "N:a" + strings.Repeat(")", depth) + "#"
	}
	if _, _, err := parseCESS(cess(d + 1)); err == nil || !strings.Contains(err.Error(), "nested more than 100000") {
		t.Errorf("CESS: %v", err)
	}
	if _, _, err := parseCESS(cess(1000)); err != nil {
		t.Errorf("CESS within the bound: %v", err)
	}
	if _, err := parseSinicaLine(sinica(d + 1)); err == nil || !strings.Contains(err.Error(), "nested more than 100000") {
		t.Errorf("Sinica: %v", err)
	}
	if _, err := parseSinicaLine(sinica(1000)); err != nil {
		t.Errorf("Sinica within the bound: %v", err)
	}
}
