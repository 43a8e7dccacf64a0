package dmvinit

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
)

// kmModel is Smith's K&M (2006, §3.3.1) written out from the formulas,
// apart from package dmv's code: p(xᵢ is the root) = 1/n, p(j ∈ y(i)) =
// Z(n, j)/|i−j| with Z(n, j) = (1 − 1/n)/Σ_{i≠j} 1/|i−j|; stop counts by
// grind's chain rule; then add-λ normalisation. Keys are event names.
func kmModel(sents [][]string, lambda float64) map[string]float64 {
	root := map[string]float64{}
	child := map[[3]string]float64{}    // head, dir, arg
	decision := map[[4]string]float64{} // kind, head, dir, adj
	tags := map[string]bool{}
	for _, s := range sents {
		for _, t := range s {
			tags[t] = true
		}
	}
	for _, s := range sents {
		n := len(s)
		kids := make([][2]float64, n) // [head][left, right]
		for j := 0; j < n; j++ {
			root[s[j]] += 1 / float64(n)
			sum := 0.0
			for i := 0; i < n; i++ {
				if i != j {
					sum += 1 / math.Abs(float64(i-j))
				}
			}
			for i := 0; i < n; i++ {
				if i == j {
					continue
				}
				p := (1 - 1/float64(n)) / sum / math.Abs(float64(i-j))
				d, dn := "right", 1
				if j < i {
					d, dn = "left", 0
				}
				child[[3]string{s[i], d, s[j]}] += p
				kids[i][dn] += p
			}
		}
		for i := 0; i < n; i++ {
			for dn, d := range []string{"left", "right"} {
				k := kids[i][dn]
				first := math.Min(1, k)
				decision[[4]string{"cont", s[i], d, "adj"}] += first
				decision[[4]string{"stop", s[i], d, "adj"}] += 1 - first
				decision[[4]string{"cont", s[i], d, "nonadj"}] += math.Max(0, k-1)
				decision[[4]string{"stop", s[i], d, "nonadj"}] += first
			}
		}
	}
	model := map[string]float64{}
	total := 0.0
	for t := range tags {
		total += root[t] + lambda
	}
	for t := range tags {
		model["root "+t] = (root[t] + lambda) / total
	}
	for h := range tags {
		for _, d := range []string{"left", "right"} {
			total := 0.0
			for a := range tags {
				total += child[[3]string{h, d, a}] + lambda
			}
			for a := range tags {
				model["child "+h+" "+d+" "+a] = (child[[3]string{h, d, a}] + lambda) / total
			}
			for _, adj := range []string{"adj", "nonadj"} {
				st := decision[[4]string{"stop", h, d, adj}] + lambda
				co := decision[[4]string{"cont", h, d, adj}] + lambda
				model["stop "+h+" "+d+" "+adj] = st / (st + co)
				model["cont "+h+" "+d+" "+adj] = co / (st + co)
			}
		}
	}
	return model
}

// dmv-init --init km writes Smith's formulas, to 1e-12.
func TestKMIsSmithsFormulas(t *testing.T) {
	sents := [][]string{{"DT", "NN", "VBD"}, {"NN", "VBD", "DT", "NN", "IN", "NN"}, {"VBD"}, {"NN", "NN"}, {"IN", "DT", "NN", "VBD", "VBD"}}
	var in strings.Builder
	for _, s := range sents {
		in.WriteString(`{"tags":["` + strings.Join(s, `","`) + `"]}` + "\n")
	}
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus.jsonl")
	if err := os.WriteFile(corpus, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, lambda := range []float64{0, 0.5} {
		var out bytes.Buffer
		if err := Run(pipeline.Source{Names: []string{corpus}}, &out, dmv.InitKM, dmv.InitOptions{Lambda: lambda}, 0); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "model.jsonl")
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		tab, err := dmv.ReadModel(path)
		if err != nil {
			t.Fatal(err)
		}
		want := kmModel(sents, lambda)
		p, names := tab.Params, tab.Tags.Names()
		got := map[string]float64{}
		dirs := []string{"left", "right"}
		adjs := []string{"adj", "nonadj"}
		for h, hn := range names {
			got["root "+hn] = p.Root[h]
			for d, dn := range dirs {
				for a, an := range names {
					got["child "+hn+" "+dn+" "+an] = p.Child[p.ChildIndex(h, d, a)]
				}
				for v, vn := range adjs {
					got["stop "+hn+" "+dn+" "+vn] = p.Stop[dmv.DecisionIndex(h, d, v)]
					got["cont "+hn+" "+dn+" "+vn] = p.Cont[dmv.DecisionIndex(h, d, v)]
				}
			}
		}
		if len(got) != len(want) {
			t.Fatalf("λ = %g: %d events, want %d", lambda, len(got), len(want))
		}
		for k, w := range want {
			if g, ok := got[k]; !ok || math.Abs(g-w) > 1e-12 {
				t.Errorf("λ = %g: %s = %v, want %v", lambda, k, g, w)
			}
		}
	}
}
