package tagged2sents

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/testenv"
	"github.com/grind-nlp/grind/pipeline"
)

func convert(t *testing.T, in string, opts Options) (string, error) {
	t.Helper()
	var out bytes.Buffer
	_, err := Convert(pipeline.Source{Stdin: strings.NewReader(in)}, &out, opts)
	return out.String(), err
}

func TestBrown(t *testing.T) {
	in := "\n\n\tThe/at Fulton/np-tl said/vbd 1/2/cd //in ./.\n\t \n  It's/pps+bez fw-at+nn-tl/fw-at+nn-tl\n"
	got, err := convert(t, in, Options{Format: Brown})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"<stdin>#1","words":["The","Fulton","said","1/2","/","."],"tags":["at","np-tl","vbd","cd","in","."]}
{"id":"<stdin>#2","words":["It's","fw-at+nn-tl"],"tags":["pps+bez","fw-at+nn-tl"]}
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	got, err = convert(t, in, Options{Format: Brown, Simplify: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, `"tags":["at","np","vbd","cd","in","."]`) || !strings.Contains(got, `"tags":["pps+bez","at+nn"]`) {
		t.Errorf("simplified: %s", got)
	}
}

func TestSimplifyBrown(t *testing.T) {
	for in, want := range map[string]string{
		"nn-tl-hl": "nn", "---hl": "--", ",-hl": ",", "fw-in+at-t": "in+at-t", "nn-tl-nc": "nn",
		"pp$$": "pp$$", "md*": "md*", "-hl": "-hl", "fw-": "fw-", "np$-tl": "np$",
	} {
		if got := SimplifyBrown(in); got != want {
			t.Errorf("SimplifyBrown(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBrownBadToken(t *testing.T) {
	_, err := convert(t, "a/at dog/nn\nthe dog/nn\n", Options{Format: Brown})
	if err == nil || !strings.Contains(err.Error(), "<stdin>:2:") || !strings.Contains(err.Error(), `"the"`) {
		t.Fatalf("err = %v", err)
	}
	var out bytes.Buffer
	bad := &pipeline.BadRecords{Skip: true}
	sum, err := Convert(pipeline.Source{Stdin: strings.NewReader("a/at dog/nn\nthe dog/nn\nb/at\n"), Bad: bad}, &out, Options{Format: Brown})
	if err != nil || sum.Sentences != 2 || bad.Count != 1 {
		t.Fatalf("skip-bad: %v %+v %d", err, sum, bad.Count)
	}
}

func TestCoNLL2000(t *testing.T) {
	in := "Confidence NN B-NP\nin IN B-PP\n. . O\n\n\nHe PRP B-NP\n( ( O\n"
	got, err := convert(t, in, Options{Format: CoNLL2000})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"<stdin>#1","words":["Confidence","in","."],"tags":["NN","IN","."]}
{"id":"<stdin>#2","words":["He","("],"tags":["PRP","("]}
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	_, err = convert(t, "a DT B-NP\nb NN\n\n", Options{Format: CoNLL2000})
	if err == nil || !strings.Contains(err.Error(), "<stdin>:2:") {
		t.Fatalf("err = %v", err)
	}
}

// TestSharedCounts reproduces the data README's counts.
func TestSharedCounts(t *testing.T) {
	brown := testenv.SharedData(t, "brown")
	files, err := filepath.Glob(filepath.Join(brown, "c[a-r][0-9][0-9]"))
	if err != nil {
		t.Fatal(err)
	}
	check := func(names []string, opts Options, sents, toks, tags int) {
		t.Helper()
		distinct := map[string]bool{}
		var out bytes.Buffer
		sum, err := Convert(pipeline.Source{Names: names}, &out, opts)
		if err != nil {
			t.Fatal(err)
		}
		err = pipeline.EachSentence(pipeline.Source{Stdin: &out}, func(s *format.Sentence) error {
			for _, tg := range s.Tags {
				distinct[tg] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Sentences != sents || sum.Tokens != toks || len(distinct) != tags {
			t.Errorf("%s: %d sentences, %d tokens, %d tags; want %d, %d, %d", opts.Format, sum.Sentences, sum.Tokens, len(distinct), sents, toks, tags)
		}
	}
	check(files, Options{Format: Brown}, 57340, 1161192, 472)
	check(files, Options{Format: Brown, Simplify: true}, 57340, 1161192, 190)
	check([]string{testenv.SharedData(t, "conll2000", "train.txt")}, Options{Format: CoNLL2000}, 8936, 211727, 44)
}
