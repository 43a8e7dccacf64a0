package deps2conll

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/testenv"
	"github.com/grind-nlp/grind/internal/udcheck"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/conll2deps"
	"github.com/grind-nlp/grind/stages/tagmap"
)

// TestConvertedUDPassesLevel2 writes every UD file of ../shared/data back
// as CoNLL-U (conll2deps | deps2conll) and checks the result against the
// UD validator's level-1 and level-2 rules (internal/udcheck; the
// validator itself cannot be fetched here):
//
//   - ud/ (UD 2.x releases), punctuation kept: the treebank's own trees,
//     one root each, checked as the validator checks by default; with its
//     tags from XPOS (UPOS kept) too, where the treebank has XPOS;
//   - ud/, punctuation removed (the default): trees whose root was
//     punctuation get several roots, so checked with --multiple-roots;
//     deps2conll warns of them, and they are the only sentences the
//     single-root check refuses;
//   - ud-nopunct/ (UD v1.4, punctuation already removed), its v1 tags
//     mapped to v2 (tagmap --builtin ud1to2: CONJ is CCONJ since v2):
//     with --multiple-roots, as its data README counts several roots in
//     four sentences of two files (which fail the single-root check, as
//     those files themselves do).
//
// Any other problem fails the test, naming the rule (the validator's test
// id), file, line and sentence.
func TestConvertedUDPassesLevel2(t *testing.T) {
	data := testenv.SharedData(t)
	ud1to2, err := tagmap.Builtin("ud1to2")
	if err != nil {
		t.Fatal(err)
	}
	type run struct {
		name  string
		opts  conll2deps.Options
		table tagmap.Table
	}
	runs := map[string][]run{
		"ud/*.conllu": {
			{"punctuation kept", conll2deps.Options{KeepPunct: true}, nil},
			{"tags from XPOS", conll2deps.Options{KeepPunct: true, Tag: conll2deps.XPOS}, nil},
			{"punctuation removed", conll2deps.Options{}, nil},
		},
		"ud-nopunct/*.conllu": {{"v1 tags mapped to v2", conll2deps.Options{}, ud1to2}},
	}
	severalRoots := map[string]int{}
	files := 0
	for glob, rs := range runs {
		paths, _ := filepath.Glob(filepath.Join(data, glob))
		files += len(paths)
		for _, path := range paths {
			for _, r := range rs {
				if r.opts.Tag == conll2deps.XPOS && len(withXPOS([]string{path})) == 0 {
					continue
				}
				conllu, sum := convertUD(t, path, r.opts, r.table)
				name := fmt.Sprintf("%s (%s)", filepath.Base(path), r.name)
				single := udcheck.New(udcheck.Options{})
				if err := single.File(name, bytes.NewReader(conllu)); err != nil {
					t.Fatal(err)
				}
				roots := 0
				for _, p := range single.Problems {
					if p.Test == "multiple-roots" {
						roots++
					}
				}
				if roots != sum.MultiRoot {
					t.Errorf("%s: %d sentences with several roots, deps2conll counted %d", name, roots, sum.MultiRoot)
				}
				if roots > 0 {
					severalRoots[name] = roots
				}
				if r.opts.KeepPunct && roots > 0 {
					t.Errorf("%s: punctuation kept, yet %d sentences with several roots", name, roots)
				}
				c := single
				if roots > 0 {
					c = udcheck.New(udcheck.Options{MultipleRoots: true})
					if err := c.File(name, bytes.NewReader(conllu)); err != nil {
						t.Fatal(err)
					}
				}
				for i, p := range c.Problems {
					if i == 5 {
						t.Errorf("%s: … %d problems in all", name, len(c.Problems))
						break
					}
					t.Errorf("%v", p)
				}
			}
		}
	}
	if files != 30 {
		t.Errorf("%d UD files in %s, want the 7 of ud/ and the 23 of ud-nopunct/", files, data)
	}
	for _, f := range []string{"en-ud-train-nopunct-len15.conllu", "tr-ud-train-nopunct-len15.conllu"} {
		want := map[string]int{"en": 1, "tr": 3}[f[:2]]
		if got := severalRoots[f+" (v1 tags mapped to v2)"]; got != want {
			t.Errorf("%s: %d sentences with several roots, its README counts %d", f, got, want)
		}
	}
	t.Logf("sentences with several roots: %v", severalRoots)
}

// convertUD is conll2deps, tagmap (when table is not nil) and deps2conll.
func convertUD(t *testing.T, path string, opts conll2deps.Options, table tagmap.Table) ([]byte, Summary) {
	t.Helper()
	var records, conllu bytes.Buffer
	if _, err := conll2deps.Convert(pipeline.Source{Names: []string{path}}, &records, opts); err != nil {
		t.Fatal(err)
	}
	if table != nil {
		var mapped bytes.Buffer
		if err := tagmap.Map(pipeline.Source{Stdin: &records}, &mapped, tagmap.Options{Table: table}); err != nil {
			t.Fatal(err)
		}
		records = mapped
	}
	sum, err := Write(pipeline.Source{Stdin: &records}, &conllu, Options{Dialect: format.CoNLLU})
	if err != nil {
		t.Fatal(err)
	}
	if sum.RepeatedID > 0 {
		t.Errorf("%s: %d sent_ids repeated (%s)", path, sum.RepeatedID, sum.FirstRepeatedID)
	}
	if !strings.HasSuffix(conllu.String(), "\n\n") {
		t.Errorf("%s: the output does not end with an empty line", path)
	}
	return conllu.Bytes(), sum
}
