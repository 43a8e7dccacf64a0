package format

import (
	"reflect"
	"strings"
	"testing"
)

func readAllDP(t testing.TB, text string) ([]*CoNLLSentence, []*SyntaxError) {
	return readAllTreebank(t, NewDPReader(strings.NewReader(text)).Next)
}

func dpWord(form, tag string, head int) CoNLLToken {
	return CoNLLToken{Form: form, Lemma: "_", UPOS: tag, XPOS: tag, Feats: "_", Head: head, Deprel: "_", Deps: "_", Misc: "_"}
}

func TestDPReader(t *testing.T) {
	in := "Pierre\tNNP\t2\r\nVinken\tNNP\t0\r\n\r\n#\t#\t0\tROOT\n$\t$\t1\n" // no blank line at the end
	got, errs := readAllDP(t, in)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	root := dpWord("#", "#", 0)
	root.Deprel = "ROOT"
	want := []*CoNLLSentence{
		{Tokens: []CoNLLToken{dpWord("Pierre", "NNP", 2), dpWord("Vinken", "NNP", 0)}},
		{Tokens: []CoNLLToken{root, dpWord("$", "$", 1)}},
	}
	if !reflect.DeepEqual(forgetLines(got), want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestDPReaderErrors(t *testing.T) {
	good := "ok\tUH\t0\n"
	for _, c := range []struct {
		name, in string
		line     int
		msg      string
	}{
		{"spaces for tabs", "a\tDT\t2\nb NN 0\n", 2, "1 columns, .dp needs 3"},
		{"five columns", "a\tDT\t0\tx\ty\n", 1, "5 columns"},
		{"empty tag", "a\t\t0\n", 1, "empty tag"},
		{"empty word", "\tDT\t0\n", 1, "empty word"},
		{"empty label", "a\tDT\t0\t\n", 1, "empty label"},
		{"head not a number", "a\tDT\t2\nb\tNN\tx\n", 2, `head "x" is not a number`},
		{"head out of range", "a\tDT\t3\nb\tNN\t0\n", 1, "head 3 is out of range 0..2"},
		{"negative head", "a\tDT\t-2\n", 1, "head -2 is out of range"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sents, errs := readAllDP(t, good+"\n"+c.in+"\n"+good)
			checkBadBetweenGood(t, sents, errs, c.line, c.msg)
		})
	}
}

func TestDPWriter(t *testing.T) {
	s1 := &CoNLLSentence{Tokens: []CoNLLToken{dpWord("Pierre", "NNP", 2), dpWord("Vinken", "NNP", 0)}}
	s2 := &CoNLLSentence{Tokens: []CoNLLToken{dpWord("Hi", "UH", 0)}}
	s2.Tokens[0].Deprel = "ROOT"
	var b strings.Builder
	w := NewDPWriter(&b)
	for _, s := range []*CoNLLSentence{s1, s2} {
		if err := w.Write(s); err != nil {
			t.Fatal(err)
		}
	}
	if want := "Pierre\tNNP\t2\nVinken\tNNP\t0\n\nHi\tUH\t0\tROOT\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	if err := w.Write(&CoNLLSentence{Tokens: []CoNLLToken{dpWord("x", "X", NoHead)}}); err == nil {
		t.Error("wrote a sentence without heads")
	}
}

func FuzzDPReader(f *testing.F) {
	f.Add("Pierre\tNNP\t2\nVinken\tNNP\t0\n\n#\t#\t0\tROOT\n")
	f.Add("a\tb\t1\r\n\r\n\r\nc\td\t0\te\r\n")
	f.Add("a\tb\t0\nbad\n\nc\td\t5\n\n\n")
	f.Fuzz(func(t *testing.T, in string) {
		sents, _ := readAllDP(t, in)
		var dp strings.Builder
		w := NewDPWriter(&dp)
		for _, s := range sents {
			if err := w.Write(s); err != nil {
				t.Fatalf("cannot write what the reader accepted: %v\n%+v", err, s)
			}
		}
		again, errs := readAllDP(t, dp.String())
		if len(errs) > 0 || !reflect.DeepEqual(forgetLines(again), forgetLines(sents)) {
			t.Fatalf(".dp round trip: errors %v\nin:  %+v\nout: %+v", errs, sents, again)
		}
		// .dp is a subset of CoNLL: what it holds survives CoNLL-U too.
		var u strings.Builder
		for _, s := range sents {
			if err := WriteCoNLL(&u, s, CoNLLU); err != nil {
				t.Fatalf("CoNLL-U cannot write a .dp sentence: %v\n%+v", err, s)
			}
		}
		again, errs = readAllCoNLL(t, u.String())
		if len(errs) > 0 || !reflect.DeepEqual(forgetLines(again), sents) {
			t.Fatalf("CoNLL-U round trip of .dp: errors %v\nin:  %+v\nout: %+v", errs, sents, again)
		}
	})
}
