package reportcmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/commands/program"
)

// grind runs a program in-process and returns its stdout.
func grind(t *testing.T, stdin []byte, name string, args ...string) []byte {
	t.Helper()
	var out, errs bytes.Buffer
	if code := program.Run(name, append([]string{name}, args...), bytes.NewReader(stdin), &out, &errs); code != 0 {
		t.Fatalf("%s %s: exit %d: %s", name, strings.Join(args, " "), code, errs.String())
	}
	return out.Bytes()
}

// TestReportFromRunDirs trains two DMVs and a DMV+CCM with --run-dir, reports them from
// their run directories on held-out sentences, and checks the page
// against the directories: every point of iterations.jsonl is on it, and
// each run's accuracies are those of decode -m DIR/model.jsonl TEST | score.
func TestReportFromRunDirs(t *testing.T) {
	dir := t.TempDir()
	mrg, err := filepath.Glob("../../examples/treebank/*.mrg")
	if err != nil || len(mrg) == 0 {
		t.Fatalf("no treebank in examples: %v", err)
	}
	short := grind(t, grind(t, nil, "ptb2deps", mrg...), "filterlen", "10")
	// Even lines train, odd ones test: the runs are scored on sentences
	// they did not see.
	var train, test bytes.Buffer
	for i, line := range bytes.SplitAfter(short, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 {
			[]*bytes.Buffer{&train, &test}[i%2].Write(line)
		}
	}
	trainFile, testFile := filepath.Join(dir, "train.jsonl"), filepath.Join(dir, "test.jsonl")
	for f, b := range map[string][]byte{trainFile: train.Bytes(), testFile: test.Bytes()} {
		if err := os.WriteFile(f, b, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	runs := map[string]string{"km": filepath.Join(dir, "km"), "U": filepath.Join(dir, "uniform"), "DC": filepath.Join(dir, "dmvccm")}
	grind(t, nil, "train-em", "--init", "km", "--quiet", "--run-dir", runs["km"], trainFile, "-o", filepath.Join(dir, "km.model"))
	grind(t, nil, "train-em", "--init", "uniform", "--lambda", "1", "--quiet", "--run-dir", runs["U"], trainFile, "-o", filepath.Join(dir, "u.model"))
	// DMV+CCM is scored on its heads, as the DMV is.
	grind(t, nil, "train-ccm", "--model", "dmvccm", "--max-iter", "3", "--quiet", "--run-dir", runs["DC"], trainFile, "-o", filepath.Join(dir, "dc.jsonl"))

	out := filepath.Join(dir, "page.html")
	grind(t, nil, "report", "-o", out, "--test", testFile, runs["km"], "--run", "U="+runs["U"], "--run", "DC="+runs["DC"], "--trees", "1")
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	records := map[string]map[string]any{}
	for _, r := range jsonLines(t, grind(t, nil, "report", "--json", "--test", testFile, runs["km"], "--run", "U="+runs["U"], "--run", "DC="+runs["DC"])) {
		records[r["run"].(string)] = r
	}

	for name, rd := range runs {
		// The learning curve: every record of the log, in order.
		points := readLog(t, filepath.Join(rd, "iterations.jsonl"))
		block := between(t, page, fmt.Sprintf("<summary>%s: the %d iterations of the log</summary>", name, len(points)), "</details>")
		rows := regexp.MustCompile(`<tr><td class="n">(\d+)</td><td class="n">[^<]*</td><td class="n">([^<]*)</td>`).FindAllStringSubmatch(block, -1)
		if len(rows) != len(points) {
			t.Fatalf("run %s: %d curve rows on the page, %d lines in iterations.jsonl", name, len(rows), len(points))
		}
		for i, p := range points {
			if rows[i][1] != strconv.Itoa(p.Iter) || rows[i][2] != strconv.FormatFloat(p.Objective, 'g', -1, 64) {
				t.Errorf("run %s: curve row %d is iter %s objective %s, the log says %d %v", name, i+1, rows[i][1], rows[i][2], p.Iter, p.Objective)
			}
		}

		// The scores: decode with the run's model, score, compare.
		parsed := grind(t, nil, "decode", "-m", filepath.Join(rd, "model.jsonl"), "--quiet", testFile)
		var sc struct {
			Sentences, Tokens int
			Counted           struct{ Directed, Undirected struct{ Accuracy float64 } }
			Excluded          struct{ Directed, Undirected struct{ F1 float64 } }
		}
		if err := json.Unmarshal(grind(t, parsed, "score", "--json"), &sc); err != nil {
			t.Fatal(err)
		}
		// The best run of a column is in bold (class "best").
		p := func(f float64) string {
			return `<td class="n(?: best)?">` + regexp.QuoteMeta(fmt.Sprintf("%.1f", 100*f)) + `</td>`
		}
		want := regexp.QuoteMeta(fmt.Sprintf(`<tr><td>%s</td><td class="n">%d</td><td class="n">%d</td>`, name, sc.Sentences, sc.Tokens)) +
			`\s*` + regexp.QuoteMeta(fmt.Sprintf(`<td class="n">%d</td>`, len(points))) + `<td class="n">[^<]+</td>\s*` +
			p(sc.Counted.Directed.Accuracy) + p(sc.Counted.Undirected.Accuracy) + p(sc.Excluded.Directed.F1) + p(sc.Excluded.Undirected.F1)
		if !regexp.MustCompile(want).MatchString(page) {
			t.Errorf("run %s: no row %s on the page (score: %+v)", name, want, sc)
		}

		// --json: score's record, the log's length and last objective.
		var full map[string]any
		json.Unmarshal(grind(t, parsed, "score", "--json"), &full)
		jr := records[name]
		for _, f := range []string{"sentences", "tokens", "root", "directed", "undirected", "counted", "excluded"} {
			if !reflect.DeepEqual(jr[f], full[f]) || jr[f] == nil {
				t.Errorf("run %s: report --json's %s %v, score's %v", name, f, jr[f], full[f])
			}
		}
		if jr["iterations"] != float64(len(points)) || jr["objective"] != points[len(points)-1].Objective {
			t.Errorf("run %s: report --json's iterations %v objective %v, the log's %d, %v", name, jr["iterations"], jr["objective"], len(points), points[len(points)-1].Objective)
		}
		// The sign test against the first run (U: --run runs come before
		// positional ones) is score --against's.
		if name != "U" {
			var st map[string]any
			first := grind(t, nil, "decode", "-m", filepath.Join(runs["U"], "model.jsonl"), "--quiet", testFile)
			firstFile := filepath.Join(dir, "first.jsonl")
			if err := os.WriteFile(firstFile, first, 0o666); err != nil {
				t.Fatal(err)
			}
			json.Unmarshal(grind(t, parsed, "score", "--json", "--against", firstFile), &st)
			got, want := jr["sign_test"].(map[string]any), st["sign_test"].(map[string]any)
			for _, f := range []string{"sentences", "tokens", "against_directed"} {
				if !reflect.DeepEqual(got[f], want[f]) {
					t.Errorf("run %s: report's sign test %s %v, score --against's %v", name, f, got[f], want[f])
				}
			}
		} else if jr["sign_test"] != nil {
			t.Errorf("the first run has a sign test: %v", jr["sign_test"])
		}

		// run.json: the command line and the hash of the input.
		var rec struct {
			Argv   []string
			Inputs []struct{ SHA256 string }
		}
		rj, err := os.ReadFile(filepath.Join(rd, "run.json"))
		if err != nil || json.Unmarshal(rj, &rec) != nil || len(rec.Inputs) == 0 {
			t.Fatalf("run %s: run.json: %v %s", name, err, rj)
		}
		prov := between(t, page, "<h3>"+name, "</table>")
		// argv is the command line as typed, quoted so that a shell reads
		// it back word for word.
		m := regexp.MustCompile(`<tr><th>command</th><td class="k">([^<]*)</td>`).FindStringSubmatch(prov)
		if !strings.Contains(prov, "sha256 "+rec.Inputs[0].SHA256) || m == nil {
			t.Fatalf("run %s: run.json's input hash %s or command line missing from\n%s", name, rec.Inputs[0].SHA256, prov)
		}
		// The grind that ran it, where and when.
		if !regexp.MustCompile(`<tr><th>grind</th><td class="k">devel \(commit [^)]+\) go1\.[^<]+</td></tr>\s*<tr><th>run</th><td class="k">(on [^,<]+, )?from \d{4}-\d\d-\d\dT[^<]+ to \d{4}-\d\d-\d\dT[^<]+</td></tr>`).MatchString(prov) {
			t.Errorf("run %s: no grind version, host and times in\n%s", name, prov)
		}
		if got := shellWords(html.UnescapeString(m[1])); !slices.Equal(got, rec.Argv) {
			t.Errorf("run %s: the command %q reads back as %q, run.json's argv is %q", name, m[1], got, rec.Argv)
		}
	}
}

// jsonLines decodes one JSON object a line.
func jsonLines(t *testing.T, b []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range bytes.Lines(b) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		out = append(out, m)
	}
	return out
}

// shellWords splits a command line the way a POSIX shell does for the
// quoting report uses: blanks between words, '…' quoting, \' outside quotes.
func shellWords(line string) []string {
	var words []string
	var w strings.Builder
	in, quoted := false, false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case in && c == '\'':
			in = false
		case in:
			w.WriteByte(c)
		case c == '\'':
			in, quoted = true, true
		case c == '\\' && i+1 < len(line):
			i++
			w.WriteByte(line[i])
		case c == ' ':
			if w.Len() > 0 || quoted {
				words = append(words, w.String())
			}
			w.Reset()
			quoted = false
		default:
			w.WriteByte(c)
		}
	}
	if w.Len() > 0 || quoted {
		words = append(words, w.String())
	}
	return words
}

type logPoint struct {
	Iter      int     `json:"iter"`
	Objective float64 `json:"objective"`
}

func readLog(t *testing.T, path string) []logPoint {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []logPoint
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var p logPoint
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, p)
	}
	if len(out) < 2 {
		t.Fatalf("%s: %d iterations: too few to test a curve", path, len(out))
	}
	return out
}

// between is the text of s from the first from to the next to.
func between(t *testing.T, s, from, to string) string {
	t.Helper()
	i := strings.Index(s, from)
	if i < 0 {
		t.Fatalf("%q not on the page", from)
	}
	j := strings.Index(s[i:], to)
	if j < 0 {
		t.Fatalf("no %q after %q", to, from)
	}
	return s[i : i+j]
}

// TestReportOtherFamilies reports a CCM and an HMM run directory beside a
// DMV one: the CCM's brackets are those of decode | score, the HMM's tag
// scores those of decode | score-tags, and a corpus without trees is
// refused for the CCM at its first line.
func TestReportOtherFamilies(t *testing.T) {
	dir := t.TempDir()
	mrg, err := filepath.Glob("../../examples/treebank/*.mrg")
	if err != nil || len(mrg) == 0 {
		t.Fatalf("no treebank in examples: %v", err)
	}
	corpus := filepath.Join(dir, "c.jsonl")
	if err := os.WriteFile(corpus, grind(t, grind(t, nil, "ptb2deps", append([]string{"--tree"}, mrg...)...), "filterlen", "10"), 0o666); err != nil {
		t.Fatal(err)
	}
	dmvRun, ccmRun, hmmRun := filepath.Join(dir, "dmv"), filepath.Join(dir, "ccm"), filepath.Join(dir, "hmm")
	grind(t, nil, "train-em", "--max-iter", "5", "--quiet", "--run-dir", dmvRun, corpus, "-o", filepath.Join(dir, "dmv.model"))
	grind(t, nil, "train-ccm", "--max-iter", "5", "--quiet", "--run-dir", ccmRun, corpus, "-o", filepath.Join(dir, "ccm.out"))
	grind(t, nil, "train-hmm", "--states", "8", "--max-iter", "5", "--quiet", "--run-dir", hmmRun, corpus, "-o", filepath.Join(dir, "hmm.out"))
	out := filepath.Join(dir, "page.html")
	grind(t, nil, "report", "-o", out, "--test", corpus, ccmRun, dmvRun, hmmRun)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	cells := func(fs ...string) string {
		var s strings.Builder
		for _, f := range fs {
			s.WriteString(`<td class="n">` + f + `</td>`)
		}
		return s.String()
	}
	p := func(f float64) string { return fmt.Sprintf("%.1f", 100*f) }

	type prf struct{ Precision, Recall, F1 float64 }
	var sc struct {
		Brackets struct {
			Sentences       int
			Standard, Prime prf
			SmithEisner     prf `json:"smith_eisner"`
			Crossing        float64
		}
	}
	raw := grind(t, grind(t, nil, "decode", "-m", filepath.Join(ccmRun, "model.jsonl"), "--quiet", corpus), "score", "--json")
	if err := json.Unmarshal(raw, &sc); err != nil || sc.Brackets.Sentences == 0 {
		t.Fatalf("score --json: %v %s", err, raw)
	}
	br := sc.Brackets
	want := `<tr><td>ccm</td><td class="n">` + strconv.Itoa(br.Sentences) + `</td>`
	wantCells := cells(p(br.Standard.Precision), p(br.Standard.Recall), p(br.Standard.F1),
		p(br.Prime.Precision), p(br.Prime.Recall), p(br.Prime.F1), p(br.SmithEisner.F1), fmt.Sprintf("%.2f", br.Crossing))
	if row := between(t, page, want, "</tr>"); !strings.Contains(row, wantCells) {
		t.Errorf("CCM row %s lacks score's brackets %s", row, wantCells)
	}

	var tg struct {
		Tokens                int
		ManyToOne             float64 `json:"many_to_1"`
		OneToOne              float64 `json:"one_to_1"`
		VI                    float64 `json:"vi"`
		VMeasure              float64 `json:"v_measure"`
		InducedTags, GoldTags int     `json:"-"`
	}
	raw = grind(t, grind(t, nil, "decode", "-m", filepath.Join(hmmRun, "model.jsonl"), "--quiet", corpus), "score-tags", "--json")
	if err := json.Unmarshal(raw, &tg); err != nil {
		t.Fatalf("score-tags --json: %v %s", err, raw)
	}
	wantCells = cells(p(tg.ManyToOne), p(tg.OneToOne), fmt.Sprintf("%.3f", tg.VI), p(tg.VMeasure))
	if row := between(t, page, `<tr><td>hmm</td><td class="n">`+strconv.Itoa(tg.Tokens)+`</td>`, "</tr>"); !strings.Contains(row, wantCells) {
		t.Errorf("HMM row %s lacks score-tags' figures %s", row, wantCells)
	}
	// --json: each run's record of scores is score's or score-tags' own,
	// its error analyses those of score --analysis or score-tags
	// --analysis all.
	recs := jsonLines(t, grind(t, nil, "report", "--json", "--test", corpus, ccmRun, dmvRun, hmmRun))
	scores := func(model, scorer string, args ...string) map[string]any {
		var m map[string]any
		raw := grind(t, grind(t, nil, "decode", "-m", model, "--quiet", corpus), scorer, append([]string{"--json"}, args...)...)
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s: %v %s", scorer, err, raw)
		}
		return m
	}
	ccmScore := scores(filepath.Join(ccmRun, "model.jsonl"), "score", "--analysis", "labels,sequences")
	dmvScore := scores(filepath.Join(dmvRun, "model.jsonl"), "score", "--analysis", "links,distance,paths")
	tagScore := scores(filepath.Join(hmmRun, "model.jsonl"), "score-tags", "--analysis", "all")
	for i, c := range []struct {
		run    string
		scores map[string]any
		fields []string
	}{
		{"ccm", ccmScore, []string{"sentences", "tokens", "brackets", "by_label", "sequences"}},
		{"dmv", dmvScore, []string{"sentences", "tokens", "root", "counted", "excluded", "links", "by_distance", "paths"}},
		{"hmm", tagScore, []string{"sentences", "tokens", "gold_tags", "induced_tags", "many_to_1", "one_to_1", "vi", "v_measure", "one_to_1_map",
			"confusion", "by_gold_tag", "sizes", "words"}},
	} {
		rec := recs[i]
		if rec["run"] != c.run || rec["sign_test"] != nil {
			t.Errorf("record %d: run %v, sign test %v (runs of one kind only are compared)", i+1, rec["run"], rec["sign_test"])
		}
		for _, f := range c.fields {
			if c.scores != nil && !reflect.DeepEqual(rec[f], c.scores[f]) || rec[f] == nil {
				got, _ := json.Marshal(rec[f])
				want, _ := json.Marshal(c.scores[f])
				t.Errorf("run %s: report's %s %.300s…, the scorer's %.300s…", c.run, f, got, want)
			}
		}
	}

	// The page's tag analyses are score-tags --analysis's: the most
	// frequent gold tag's F1 under both maps, and the largest induced tag's
	// most frequent word.
	top := tagScore["by_gold_tag"].([]any)[0].(map[string]any)
	f1 := func(m string) string { return p(top[m].(map[string]any)["f1"].(float64)) }
	wantRow := fmt.Sprintf(`<td class="k">%s</td><td class="n">%v</td><td class="n first">%v</td><td class="n">%s</td><td class="n">%s</td>`,
		top["tag"], top["tokens"], top["many_to_1_tags"], f1("many_to_1"), f1("one_to_1"))
	if !strings.Contains(page, wantRow) {
		t.Errorf("the page lacks score-tags' by_gold_tag row %s", wantRow)
	}
	largest := tagScore["words"].([]any)[0].(map[string]any)
	wantWord := fmt.Sprintf(`<td class="n first">%s</td><td class="n">%v</td><td class="n">%s</td><td class="n">%s `,
		largest["tag"], largest["tokens"], largest["many_to_1"], largest["words"].([]any)[0].(map[string]any)["word"])
	if !strings.Contains(page, "Tokens per tag, largest first") || !strings.Contains(page, wantWord) {
		t.Errorf("the page lacks the tag sizes, or the words row %s", wantWord)
	}

	// The DMV run keeps the dependency tables; it is the only one there.
	if !strings.Contains(page, `<tr><td>dmv</td>`) || !strings.Contains(page, "By gold tag pair") || strings.Contains(page, "Sign tests") {
		t.Error("the DMV run's tables are missing, or a sign test compares runs of different kinds")
	}

	// A corpus without trees has nothing to score a CCM's brackets on.
	noTree := filepath.Join(dir, "notree.jsonl")
	if err := os.WriteFile(noTree, []byte(`{"words":["a","b"],"tags":["DT","NN"],"heads":[2,0]}`+"\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	var errs bytes.Buffer
	code := program.Run("report", []string{"report", "-o", out + ".2", "--test", noTree, ccmRun}, nil, io.Discard, &errs)
	if wantErr := noTree + `:1: sentence has no gold "tree" to score brackets against`; code != 1 || !strings.Contains(errs.String(), wantErr) {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, errs.String(), wantErr)
	}
}

// The command report names for an unfinished run continues it: run as
// given (split as a shell splits it), it finishes the run, whose model
// is then the uninterrupted run's and which report then scores.
func TestReportHintResumes(t *testing.T) {
	dir := t.TempDir()
	mrg, _ := filepath.Glob("../../examples/treebank/*.mrg")
	corpus := filepath.Join(dir, "words.jsonl")
	if err := os.WriteFile(corpus, grind(t, nil, "ptb2deps", mrg...), 0o666); err != nil {
		t.Fatal(err)
	}
	rd := filepath.Join(dir, "hmm run")
	grind(t, nil, "train-hmm", "--states", "4", "--max-iter", "5", "-q", "--run-dir", rd, corpus, "-o", filepath.Join(dir, "tagged.jsonl"))
	want, err := os.ReadFile(filepath.Join(rd, "model.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(rd, "model.jsonl")) // as a run killed before its end left it

	page := filepath.Join(dir, "page.html")
	var errs bytes.Buffer
	if code := program.Run("report", []string{"report", "-o", page, "--test", corpus, rd}, nil, io.Discard, &errs); code != program.ExitError {
		t.Fatalf("report on an unfinished run: exit %d, %s", code, errs.String())
	}
	m := regexp.MustCompile(`continue it with (.*)\); report scores`).FindStringSubmatch(errs.String())
	if m == nil {
		t.Fatalf("report names no command: %s", errs.String())
	}
	hint := shellWords(m[1])
	t.Logf("report's hint: %q", hint)
	grind(t, nil, hint[0], hint[1:]...)
	if got, _ := os.ReadFile(filepath.Join(rd, "model.jsonl")); !bytes.Equal(got, want) {
		t.Error("the run continued as report says does not end with the uninterrupted run's model")
	}
	grind(t, nil, "report", "-o", page, "--test", corpus, rd)
}
