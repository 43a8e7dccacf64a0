package udcheck

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/internal/testenv"
)

// good is a valid sentence with a multiword token, SpaceAfter=No on it
// and on a word, features, an empty node and enhanced dependencies.
const good = "# sent_id = s1\n" +
	"# text = Ich gehe zum Haus!\n" +
	"1\tIch\tich\tPRON\tPPER\tCase=Nom|Number=Sing|Person=1\t2\tnsubj\t2:nsubj\t_\n" +
	"2\tgehe\tgehen\tVERB\tVVFIN\tMood=Ind|Number=Sing\t0\troot\t0:root\t_\n" +
	"2.1\tgehe\tgehen\tVERB\t_\t_\t_\t_\t2:conj\t_\n" +
	"3-4\tzum\t_\t_\t_\t_\t_\t_\t_\t_\n" +
	"3\tzu\tzu\tADP\tAPPR\t_\t5\tcase\t5:case\t_\n" +
	"4\tdem\tder\tDET\tART\tCase=Dat|Gender=Masc,Neut\t5\tdet\t5:det\t_\n" +
	"5\tHaus\tHaus\tNOUN\tNN\t_\t2\tobl\t2:obl:zu|2.1:obl\tSpaceAfter=No\n" +
	"6\t!\t!\tPUNCT\t$.\t_\t2\tpunct\t2:punct\t_\n" +
	"\n"

func check(t *testing.T, text string, opts Options) []Problem {
	t.Helper()
	c := New(opts)
	if err := c.File("t.conllu", strings.NewReader(text)); err != nil {
		t.Fatal(err)
	}
	return c.Problems
}

func tests(ps []Problem) []string {
	var ids []string
	for _, p := range ps {
		ids = append(ids, p.Test)
	}
	return ids
}

func TestGoodSentence(t *testing.T) {
	if ps := check(t, good, Options{}); len(ps) > 0 {
		t.Fatalf("a valid sentence: %v", ps)
	}
}

// TestEachRule breaks the good sentence one way at a time; each must be
// reported under the validator's test id, and only so.
func TestEachRule(t *testing.T) {
	word5 := "5\tHaus\tHaus\tNOUN\tNN\t_\t2\tobl\t2:obl:zu|2.1:obl\tSpaceAfter=No\n"
	for _, c := range []struct {
		test    string
		old, nu string // replace old by nu in good
	}{
		// Level 1.
		{"pseudo-empty-line", "2:punct\t_\n\n", "2:punct\t_\n \n"},
		{"extra-empty-line", "# sent_id", "\n# sent_id"},
		{"misplaced-comment", "3-4", "# note\n3-4"},
		{"invalid-line", "3-4", "x\n3-4"},
		{"number-of-columns", "3\tzu\tzu\tADP", "3\tzu\tzu\tzu\tADP"},
		{"missing-empty-line", "punct\t_\n\n", "punct\t_\n"},
		{"non-unix-newline", "# text = Ich gehe zum Haus!\n", "# text = Ich gehe zum Haus!\r\n"},
		{"unicode-normalization", "\tich\t", "\tich\u0323\t"}, // h and a combining dot below: ḥ in NFC
		{"empty-column", "3\tzu\tzu\t", "3\tzu\t\t"},
		{"leading-whitespace", "dem\tder\t", "dem\t der\t"},
		{"trailing-whitespace", "dem\tder\t", "dem\tder \t"},
		{"repeated-whitespace", "dem\tder\t", "dem\td  er\t"},
		{"invalid-whitespace", "\tART\t", "\tA RT\t"},
		{"invalid-word-id", "3\tzu\tzu", "3a\tzu\tzu"},
		{"word-id-sequence", "4\tdem", "7\tdem"},
		{"misplaced-word-interval", "3-4\tzum\t_\t_\t_\t_\t_\t_\t_\t_\n3\tzu\tzu\tADP\tAPPR\t_\t5\tcase\t5:case\t_\n",
			"3\tzu\tzu\tADP\tAPPR\t_\t5\tcase\t5:case\t_\n3-4\tzum\t_\t_\t_\t_\t_\t_\t_\t_\n"},
		{"reversed-word-interval", "3-4\tzum", "4-3\tzum"},
		{"word-interval-out", "3-4\tzum", "3-7\tzum"},
		{"misplaced-empty-node", "2.1\tgehe", "2.2\tgehe"},
		// Level 2.
		{"missing-sent-id", "# sent_id = s1\n", ""},
		{"invalid-sent-id", "# sent_id = s1\n", "# sent_id = s1\n# sent_id: x\n"},
		{"multiple-sent-id", "# sent_id = s1\n", "# sent_id = s1\n# sent_id = s2\n"},
		{"slash-in-sent-id", "# sent_id = s1", "# sent_id = a/b/c"},
		{"missing-text", "# text = Ich gehe zum Haus!\n", ""},
		{"multiple-text", "# text = Ich gehe zum Haus!\n", "# text = Ich gehe zum Haus!\n# text = Ich gehe zum Haus!\n"},
		{"text-trailing-whitespace", "# text = Ich gehe zum Haus!", "# text = Ich gehe zum Haus! "},
		{"text-form-mismatch", "# text = Ich gehe zum Haus!", "# text = Ich geh zum Haus!"},
		{"missing-spaceafter", "# text = Ich gehe zum Haus!", "# text = Ich gehezum Haus!"},
		{"text-extra-chars", "# text = Ich gehe zum Haus!", "# text = Ich gehe zum Haus!?"},
		{"nospaceafter-yes", "6\t!\t!\tPUNCT\t$.\t_\t2\tpunct\t2:punct\t_", "6\t!\t!\tPUNCT\t$.\t_\t2\tpunct\t2:punct\tNoSpaceAfter=Yes"},
		{"spaceafter-mwt-node", "3\tzu\tzu\tADP\tAPPR\t_\t5\tcase\t5:case\t_", "3\tzu\tzu\tADP\tAPPR\t_\t5\tcase\t5:case\tSpaceAfter=No"},
		{"spaceafter-empty-node", "2.1\tgehe\tgehen\tVERB\t_\t_\t_\t_\t2:conj\t_", "2.1\tgehe\tgehen\tVERB\t_\t_\t_\t_\t2:conj\tSpaceAfter=No"},
		{"mwt-nonempty-field", "3-4\tzum\t_", "3-4\tzum\tzu"},
		{"invalid-upos", "\tADP\t", "\tAdp\t"},
		{"unknown-upos", "\tADP\t", "\tPREP\t"},
		{"invalid-deprel", "\tcase\t", "\tcase:Zu\t"},
		{"unknown-deprel", "\tcase\t5:case", "\tprep\t5:case"},
		{"invalid-deps", "5:case\t_", "5\t_"},
		{"invalid-edeprel", "5:case\t_", "5:Case\t_"},
		{"unknown-edeprel", "5:case\t_", "5:prep\t_"},
		{"unsorted-features", "Case=Nom|Number=Sing|Person=1", "Number=Sing|Case=Nom|Person=1"},
		{"invalid-feature", "Mood=Ind|Number=Sing", "Mood=Ind|number=Sing"},
		{"unsorted-feature-values", "Gender=Masc,Neut", "Gender=Neut,Masc"},
		{"repeated-feature-value", "Gender=Masc,Neut", "Gender=Masc,Masc"},
		{"repeated-feature", "Mood=Ind|Number=Sing", "Mood=Ind|Mood=Sub"},
		{"0-is-not-root", "\t0\troot\t0:root", "\t0\tparataxis\t0:root"},
		{"root-is-not-0", "\t2\tpunct\t2:punct", "\t2\troot\t2:punct"},
		{"enhanced-0-is-not-root", "2:punct\t_", "0:punct\t_"},
		{"enhanced-root-is-not-0", "2:punct\t_", "2:root\t_"},
		{"invalid-head", "\t2\tpunct", "\tx\tpunct"},
		{"unknown-head", "\t2\tpunct", "\t9\tpunct"},
		{"invalid-ehead", "2:punct\t_", "2.0:punct\t_"},
		{"unknown-ehead", "2:punct\t_", "9:punct\t_"},
		{"unsorted-deps", "2:obl:zu|2.1:obl", "2.1:obl|2:obl:zu"},
		{"unsorted-deps-2", "2:obl:zu|2.1:obl", "2:obl:zu|2:nmod"},
		{"repeated-deps", "2:obl:zu|2.1:obl", "2:obl|2:obl"},
		{"deps-self-loop", "2:punct\t_", "6:punct\t_"},
		{"repeated-misc", "\tSpaceAfter=No\n", "\tSpaceAfter=No|SpaceAfter=No\n"},
		{"head-self-loop", "\t2\tpunct", "\t6\tpunct"},
		{"multiple-roots", "6\t!\t!\tPUNCT\t$.\t_\t2\tpunct\t2:punct", "6\t!\t!\tPUNCT\t$.\t_\t0\troot\t0:root"},
		{"non-tree", word5, strings.Replace(word5, "\t2\tobl\t", "\t3\tobl\t", 1)},            // 3 and 5 a cycle
		{"unconnected-egraph", word5, strings.Replace(word5, "2:obl:zu|2.1:obl", "4:obl", 1)}, // 4 and 5 a cycle
	} {
		if !strings.Contains(good, c.old) {
			t.Fatalf("%s: %q is not in the good sentence", c.test, c.old)
		}
		text := strings.Replace(good, c.old, c.nu, 1)
		got := tests(check(t, text, Options{}))
		if !slices.Contains(got, c.test) {
			t.Errorf("%s: not caught (got %v)", c.test, got)
		}
	}
}

// MultipleRoots is the validator's --multiple-roots.
func TestMultipleRootsOption(t *testing.T) {
	text := strings.Replace(good, "6\t!\t!\tPUNCT\t$.\t_\t2\tpunct\t2:punct", "6\t!\t!\tPUNCT\t$.\t_\t0\troot\t0:root", 1)
	if ps := check(t, text, Options{MultipleRoots: true}); len(ps) > 0 {
		t.Errorf("--multiple-roots: %v", ps)
	}
}

// Sent_ids are unique across the files one Checker sees.
func TestSentIDsAcrossFiles(t *testing.T) {
	c := New(Options{})
	for _, f := range []string{"a", "b"} {
		if err := c.File(f, strings.NewReader(good)); err != nil {
			t.Fatal(err)
		}
	}
	if got := tests(c.Problems); !slices.Equal(got, []string{"non-unique-sent-id"}) || c.Problems[0].File != "b" {
		t.Errorf("got %v", c.Problems)
	}
}

// The UD releases of ../shared/data/ud pass: the check agrees with the
// validator the treebanks were released under.
func TestReleasedTreebanksPass(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testenv.SharedData(t), "ud", "*.conllu"))
	if len(files) == 0 {
		t.Skip("no UD files")
	}
	for _, f := range files {
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		c := New(Options{})
		if err := c.File(filepath.Base(f), in); err != nil {
			t.Fatal(err)
		}
		in.Close()
		for i, p := range c.Problems {
			if i == 5 {
				t.Errorf("%s: … %d problems in all", f, len(c.Problems))
				break
			}
			t.Errorf("%v", p)
		}
	}
}
