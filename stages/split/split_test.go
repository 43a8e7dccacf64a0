package split

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/pipeline"
)

func TestParseSet(t *testing.T) {
	s, err := ParseSet("0-1, 24,3")
	if err != nil {
		t.Fatal(err)
	}
	for x, want := range map[int]bool{0: true, 1: true, 2: false, 3: true, 24: true, 25: false} {
		if s.Contains(x) != want {
			t.Errorf("Contains(%d) = %v", x, !want)
		}
	}
	if s.String() != "0-1,24,3" {
		t.Errorf("String %q", s.String())
	}
	for _, bad := range []string{"", "a", "3-1", "-2", "1-", "1,,2", "1-2-3"} {
		if _, err := ParseSet(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestSection(t *testing.T) {
	cases := map[string]int{"wsj_0001.mrg#1": 0, "wsj_2301.mrg#4": 23, "wsj/02/wsj_0299.mrg#10": 2, "wsj_2454.dp#1": 24, "wsj_1234": 12}
	for id, want := range cases {
		if got, ok := Section(id); !ok || got != want {
			t.Errorf("Section(%q) = %d, %v; want %d", id, got, ok, want)
		}
	}
	for _, id := range []string{"", "en-ud-dev#3", "wsj_12.mrg", "wsj_12345.mrg"} {
		if s, ok := Section(id); ok {
			t.Errorf("Section(%q) = %d", id, s)
		}
	}
}

func TestCheck(t *testing.T) {
	set := func(s string) Set { x, _ := ParseSet(s); return x }
	bad := []struct {
		o    Options
		want string
	}{
		{Options{Train: set("2-21"), Dev: set("21-22")}, "--train and --dev both hold 21"},
		{Options{Dev: set("8"), Test: set("8")}, "--dev and --test both hold 8"},
		{Options{Every: 10, Dev: set("10")}, "--dev 10: positions are counted modulo --every 10, so use 0..9"},
		{Options{}, "no part has sections or positions: give --dev, --test or --train"},
	}
	for _, c := range bad {
		if err := c.o.Check(); err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
	if err := (Options{Every: 10, Dev: set("8"), Test: set("9")}).Check(); err != nil {
		t.Error(err)
	}
}

func run(t *testing.T, input string, opts Options) ([3]string, Counts, Options, error) {
	t.Helper()
	var bufs [3]bytes.Buffer
	c, used, err := Split(pipeline.Source{Stdin: strings.NewReader(input)}, [3]io.Writer{&bufs[0], &bufs[1], &bufs[2]}, opts)
	return [3]string{bufs[0].String(), bufs[1].String(), bufs[2].String()}, c, used, err
}

func corpus(ids ...string) string {
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, `{"id":%q,"tags":["NN"]}`+"\n", id)
	}
	return b.String()
}

func TestSplitBySection(t *testing.T) {
	input := corpus("wsj_0001.mrg#1", "wsj_0201.mrg#1", "wsj_2199.mrg#2", "wsj_2200.mrg#1", "wsj_2301.mrg#1", "wsj_2401.mrg#1")
	out, c, used, err := run(t, input, Options{Auto: true})
	if err != nil {
		t.Fatal(err)
	}
	if c != (Counts{Parts: [3]int{2, 1, 1}, Dropped: 2}) {
		t.Errorf("counts %v", c)
	}
	if used.Describe() != "by PTB section: train 2-21, dev 22, test 23" {
		t.Errorf("used %s", used.Describe())
	}
	want := [3]string{corpus("wsj_0201.mrg#1", "wsj_2199.mrg#2"), corpus("wsj_2200.mrg#1"), corpus("wsj_2301.mrg#1")}
	if out != want {
		t.Errorf("got %q\nwant %q", out, want)
	}
	// Without --train, train takes everything else.
	dev, _ := ParseSet("0")
	_, c, _, err = run(t, input, Options{Dev: dev})
	if err != nil || c != (Counts{Parts: [3]int{5, 1, 0}}) {
		t.Errorf("train = rest: %v %v", c, err)
	}
	// An id without a section is an error at its line.
	_, _, _, err = run(t, input+corpus("en#1"), Options{Dev: dev})
	if err == nil || !strings.HasPrefix(err.Error(), `<stdin>:7: id "en#1" names no PTB file`) {
		t.Errorf("error %v", err)
	}
}

func TestSplitByPosition(t *testing.T) {
	var ids []string
	for i := range 25 {
		ids = append(ids, fmt.Sprintf("s%d", i))
	}
	out, c, used, err := run(t, corpus(ids...), Options{Auto: true})
	if err != nil {
		t.Fatal(err)
	}
	if used.Every != 10 || c != (Counts{Parts: [3]int{21, 2, 2}}) {
		t.Errorf("%s: %v", used.Describe(), c)
	}
	if out[1] != corpus("s8", "s18") || out[2] != corpus("s9", "s19") {
		t.Errorf("dev %q test %q", out[1], out[2])
	}
	// Every sentence lands in exactly one part, in input order.
	train, dev, test := Set{{0, 2}}, Set{{3, 3}}, Set{{4, 4}}
	out, c, _, err = run(t, corpus(ids...), Options{Every: 6, Train: train, Dev: dev, Test: test})
	if err != nil {
		t.Fatal(err)
	}
	if c != (Counts{Parts: [3]int{13, 4, 4}, Dropped: 4}) {
		t.Errorf("counts %v", c)
	}
	if out[1] != corpus("s3", "s9", "s15", "s21") {
		t.Errorf("dev %q", out[1])
	}
}
