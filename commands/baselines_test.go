package commands

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/testenv"
	"github.com/grind-nlp/grind/stages/score"
)

// runProgram runs one program in memory and fails the test unless it
// succeeds.
func runProgram(t *testing.T, stdin []byte, args ...string) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := program.Run(args[0], args, bytes.NewReader(stdin), &stdout, &stderr); code != program.ExitOK {
		t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.Bytes()
}

// The "Trivial baselines on the ≤10 subsets" table of
// ../shared/data/README.md, computed there by an independent script:
// conll2deps (default flags; PUNCT and SYM removed for ud/, as that table
// does) | filterlen 10 | baseline --attach right|left | score, root counted.
func TestTrivialBaselinesTable(t *testing.T) {
	if !slices.Contains(program.Names(), "conll2deps") {
		t.Skip("conll2deps is not registered yet; this test needs it to read the treebanks")
	}
	rows := []struct {
		path             []string // under ../shared/data; a directory means its *.dp files
		convert          []string // conll2deps flags
		sentences, words int
		right, left      string // directed / undirected, percent to one decimal
	}{
		{[]string{"ptb-sample-deps-ym"}, nil, 555, 3856, "36.9/55.0", "19.1/53.7"},
		{[]string{"ud-nopunct", "en-ud-train-nopunct-len15.conllu"}, nil, 5387, 27974, "37.4/46.4", "15.9/46.6"},
		{[]string{"ud-nopunct", "en-ud-dev-nopunct.conllu"}, nil, 1163, 5703, "39.0/47.8", "15.6/46.5"},
		{[]string{"ud-nopunct", "de-ud-dev-nopunct.conllu"}, nil, 293, 2056, "39.7/46.8", "7.7/41.6"},
		{[]string{"ud-nopunct", "bg-ud-dev-nopunct.conllu"}, nil, 537, 3553, "33.6/45.4", "15.8/47.0"},
		{[]string{"ud-nopunct", "zh-ud-dev-nopunct.conllu"}, nil, 53, 474, "35.7/48.1", "12.4/43.7"},
		{[]string{"ud-nopunct", "tr-ud-dev-nopunct.conllu"}, nil, 621, 3306, "52.8/63.7", "12.2/51.7"},
		{[]string{"ud-nopunct", "pt-ud-dev-nopunct.conllu"}, nil, 84, 550, "32.7/47.6", "18.5/49.3"},
		{[]string{"ud-nopunct", "ja-ud-dev-nopunct.conllu"}, nil, 645, 3834, "59.8/64.2", "5.0/52.1"},
		{[]string{"ud", "en_ewt-ud-dev.conllu"}, []string{"--punct", "PUNCT,SYM"}, 1157, 5703, "37.8/47.2", "17.0/47.6"},
		{[]string{"ud", "de_gsd-ud-dev.conllu"}, []string{"--punct", "PUNCT,SYM"}, 291, 2045, "40.5/46.8", "6.9/41.8"},
		{[]string{"ud", "bg_btb-ud-dev.conllu"}, []string{"--punct", "PUNCT,SYM"}, 537, 3553, "34.5/45.3", "14.8/46.9"},
		{[]string{"ud", "zh_gsd-ud-dev.conllu"}, []string{"--punct", "PUNCT,SYM"}, 53, 474, "32.1/46.8", "15.0/43.0"},
		{[]string{"ud", "tr_imst-ud-dev.conllu"}, []string{"--punct", "PUNCT,SYM"}, 855, 3959, "40.1/59.9", "24.2/54.2"},
		{[]string{"ud", "pt_bosque-ud-dev.conllu"}, []string{"--punct", "PUNCT,SYM"}, 301, 1846, "34.1/46.4", "18.1/50.5"},
		{[]string{"ud", "ja_gsd-ud-dev.conllu"}, []string{"--punct", "PUNCT,SYM"}, 97, 660, "23.9/54.5", "30.8/46.1"},
	}
	for _, row := range rows {
		t.Run(row.path[len(row.path)-1], func(t *testing.T) {
			path := testenv.SharedData(t, row.path...)
			files := []string{path}
			if info, err := os.Stat(path); err == nil && info.IsDir() {
				files, _ = filepath.Glob(filepath.Join(path, "*.dp"))
				sort.Strings(files)
			}
			args := append(append([]string{"conll2deps", "--quiet"}, row.convert...), files...)
			short := runProgram(t, runProgram(t, nil, args...), "filterlen", "10")
			for _, c := range []struct{ attach, want string }{{"right", row.right}, {"left", row.left}} {
				pred := runProgram(t, short, "baseline", "--attach", c.attach)
				var r score.Report
				if err := format.Unmarshal(runProgram(t, pred, "score", "--json"), &r); err != nil {
					t.Fatal(err)
				}
				if r.Sentences != row.sentences || r.Tokens != row.words {
					t.Errorf("%d sentences, %d words; want %d, %d", r.Sentences, r.Tokens, row.sentences, row.words)
				}
				if got := fmt.Sprintf("%.1f/%.1f", 100*r.Directed, 100*r.Undirected); got != c.want {
					t.Errorf("head = %s word: %s, want %s", map[string]string{"right": "next", "left": "previous"}[c.attach], got, c.want)
				}
			}
		})
	}
}

// split-corpus writes compressed parts that read back, in order, as the input.
func TestSplitCompressedRoundTrip(t *testing.T) {
	var input bytes.Buffer
	for i := range 23 {
		fmt.Fprintf(&input, `{"id":"s%d","tags":["T%d"]}`+"\n", i, i)
	}
	dir := t.TempDir()
	prefix := filepath.Join(dir, "c")
	var stderr bytes.Buffer
	args := []string{"split-corpus", "--prefix", prefix, "--every", "5", "--dev", "0", "--test", "4", "--suffix", ".zst"}
	if code := program.Run("split-corpus", args, bytes.NewReader(input.Bytes()), new(bytes.Buffer), &stderr); code != program.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if want := "split-corpus: train 14, dev 5, test 4, dropped 0 (by position mod 5: train the rest, dev 0, test 4)\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	var all []string
	for _, part := range []string{"train", "dev", "test"} {
		name := prefix + "." + part + ".jsonl.zst"
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(raw, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
			t.Errorf("%s is not zstd", name)
		}
		// filterlen reads compressed input; a huge MAX keeps everything.
		out := runProgram(t, nil, "filterlen", "1000", name)
		all = append(all, strings.Split(strings.TrimSpace(string(out)), "\n")...)
	}
	sort.Slice(all, func(i, j int) bool {
		var a, b int
		fmt.Sscanf(all[i], `{"id":"s%d"`, &a)
		fmt.Sscanf(all[j], `{"id":"s%d"`, &b)
		return a < b
	})
	if got := strings.Join(all, "\n") + "\n"; got != input.String() {
		t.Errorf("parts put together:\n%s\nwant:\n%s", got, input.String())
	}
}
