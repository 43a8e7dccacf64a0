package tagmap

import (
	"bytes"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/pipeline"
)

// The 45 Penn tags besides -NONE- (as in ../shared/data/README.md).
var pennTags = strings.Fields("CC CD DT EX FW IN JJ JJR JJS LS MD NN NNS NNP NNPS PDT POS PRP PRP$ RB RBR RBS RP SYM TO UH VB VBD VBG VBN VBP VBZ WDT WP WP$ WRB $ # `` '' -LRB- -RRB- , . :")

func TestSmith17CoversPenn(t *testing.T) {
	if len(pennTags) != 45 {
		t.Fatalf("%d Penn tags listed", len(pennTags))
	}
	tab, err := Builtin("smith17")
	if err != nil {
		t.Fatal(err)
	}
	if len(tab) != 45 {
		t.Errorf("smith17 maps %d tags, want the 45 Penn tags", len(tab))
	}
	coarse := map[string]bool{}
	for _, tag := range pennTags {
		to, ok := tab[tag]
		if !ok {
			t.Errorf("smith17 lacks %q", tag)
		}
		coarse[to] = true
	}
	if len(coarse) != len(smith17) {
		t.Errorf("%d coarse tags used, want %d", len(coarse), len(smith17))
	}
	for from, to := range map[string]string{"PRP$": "ADJ", "PRP": "N", "$": "ADJ", "#": "ADJ", "VBN": "VBN",
		"POS": "POS", "TO": "TO", "``": "LPUNC", "''": "RPUNC", "UH": "INPUNC", ".": "ENDPUNC", "WP$": "W", "MD": "V"} {
		if tab[from] != to {
			t.Errorf("%s → %s, want %s", from, tab[from], to)
		}
	}
}

func readTable(t *testing.T, text string) (Table, error) {
	t.Helper()
	in, err := pipeline.Open("-", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return ReadTable(in)
}

func TestReadTable(t *testing.T) {
	tab, err := readTable(t, "# Penn to coarse\n\nNN\tN   # nouns\n  NNS N\n\\# ADJ\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(tab) != 3 || tab["NN"] != "N" || tab["NNS"] != "N" || tab["#"] != "ADJ" {
		t.Errorf("table %v", tab)
	}
	errs := []struct{ text, want string }{
		{"NN N\nNNS\n", "<stdin>:2: want two columns, from and to, not 1"},
		{"NN N\nNNS N X\n", "<stdin>:2: want two columns, from and to, not 3"},
		{"NN N\n\nNN X\n", `<stdin>:3: tag "NN" is already mapped on line 1`},
		{"# only comments\n", "<stdin>: the table maps no tag"},
		{"\\ N\n", `<stdin>:1: a lone "\" is not a tag`},
	}
	for _, c := range errs {
		if _, err := readTable(t, c.text); err == nil || err.Error() != c.want {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
}

// A table written out reads back the same, "#" included.
func TestTableRoundTrip(t *testing.T) {
	tab, _ := Builtin("smith17")
	var b bytes.Buffer
	if err := tab.Write(&b); err != nil {
		t.Fatal(err)
	}
	back, err := readTable(t, b.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(tab) {
		t.Fatalf("%d tags back, want %d", len(back), len(tab))
	}
	for k, v := range tab {
		if back[k] != v {
			t.Errorf("%q: %q back, want %q", k, back[k], v)
		}
	}
	if !strings.Contains(b.String(), "\\#\tADJ\n") {
		t.Errorf("# not escaped:\n%s", b.String())
	}
}

func TestMap(t *testing.T) {
	tab, _ := Builtin("smith17")
	input := `{"id":"s1","words":["The","dog","'s","bone","."],"tags":["DT","NN","POS","NN","."],"heads":[2,4,2,0,4]}
{"tags":["NNP","-NONE-"]}
`
	run := func(opts Options) (string, error) {
		var out bytes.Buffer
		err := Map(pipeline.Source{Stdin: strings.NewReader(input)}, &out, opts)
		return out.String(), err
	}
	_, err := run(Options{Table: tab})
	if err == nil || err.Error() != `<stdin>:2: tag "-NONE-" (token 2) is not in the table` {
		t.Errorf("unknown tag: %v", err)
	}
	out, err := run(Options{Table: tab, KeepUnknown: true})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"s1","words":["The","dog","'s","bone","."],"tags":["DET","N","POS","N","ENDPUNC"],"heads":[2,4,2,0,4]}
{"tags":["N","-NONE-"]}
`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestPTB2UDCoversPennAndEWT(t *testing.T) {
	tab, err := Builtin("ptb2ud")
	if err != nil {
		t.Fatal(err)
	}
	ud := map[string]bool{}
	for _, tag := range strings.Fields("ADJ ADP ADV AUX CCONJ DET INTJ NOUN NUM PART PRON PROPN PUNCT SCONJ SYM VERB X") {
		ud[tag] = true
	}
	// The Penn tags and the extra tags of the English Web Treebank (UD
	// English's XPOS).
	for _, tag := range append(pennTags, "HYPH", "NFP", "ADD", "AFX", "GW", "XX") {
		to, ok := tab[tag]
		if !ok || !ud[to] {
			t.Errorf("ptb2ud: %q → %q", tag, to)
		}
	}
	for from, to := range map[string]string{"MD": "AUX", "CC": "CCONJ", "NNP": "PROPN", "TO": "PART", "WDT": "DET", "-LRB-": "PUNCT"} {
		if tab[from] != to {
			t.Errorf("ptb2ud: %s → %s, want %s", from, tab[from], to)
		}
	}
}

func TestUD1to2(t *testing.T) {
	tab, err := Builtin("ud1to2")
	if err != nil {
		t.Fatal(err)
	}
	v1 := strings.Fields("ADJ ADP ADV AUX CONJ DET INTJ NOUN NUM PART PRON PROPN PUNCT SCONJ SYM VERB X")
	for _, tag := range v1 {
		want := tag
		if tag == "CONJ" {
			want = "CCONJ"
		}
		if tab[tag] != want {
			t.Errorf("ud1to2: %s → %q, want %s", tag, tab[tag], want)
		}
	}
	if tab["CCONJ"] != "CCONJ" || len(tab) != 18 {
		t.Errorf("ud1to2 maps %d tags, CCONJ → %q", len(tab), tab["CCONJ"])
	}
}
