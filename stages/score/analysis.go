package score

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// The error analyses of score --analysis: Smith's (2006) dependency
// tables — link types (Tables 3.3, 4.3, 6.4) with the divergence of the
// link-type distributions (Table 8.9), precision and recall by string
// distance (Tables 3.4, 4.4, 6.5) and path analysis (Tables 3.5, 4.5, 6.6,
// 8.9) — and Klein's (2005) constituent ones — per-category recall LR(X)
// (§2.2.4, Fig. 5.8) and the most over-, under- and crossing-proposed tag
// sequences (Figs. 5.7, 6.7, 6.8), in constituents.go. README "score"
// quotes the definitions.

// Analysis names one analysis of --analysis.
type Analysis string

// The analyses.
const (
	AnalysisLinks     Analysis = "links"
	AnalysisDistance  Analysis = "distance"
	AnalysisPaths     Analysis = "paths"
	AnalysisLabels    Analysis = "labels"
	AnalysisSequences Analysis = "sequences"
)

// Analyses lists every analysis, in the order the report shows them.
var Analyses = []Analysis{AnalysisLinks, AnalysisDistance, AnalysisPaths, AnalysisLabels, AnalysisSequences}

// ParseAnalyses reads the values of --analysis: names separated by
// commas, each flag given any number of times, "all" for every one the
// sentences allow (all is then true).
func ParseAnalyses(values []string) (out []Analysis, all bool, err error) {
	return ParseNames(values, Analyses)
}

// ParseNames reads the values of an --analysis flag whose analyses are
// known, in the order of the report: names separated by commas, each flag
// given any number of times, "all" for every one (all is then true).
// score-tags' analyses are read by it too.
func ParseNames[T ~string](values []string, known []T) (out []T, all bool, err error) {
	for _, v := range values {
		for name := range strings.SplitSeq(v, ",") {
			name = strings.TrimSpace(name)
			switch {
			case name == "all":
				all = true
				for _, a := range known {
					if !slices.Contains(out, a) {
						out = append(out, a)
					}
				}
			case slices.Contains(known, T(name)):
				if !slices.Contains(out, T(name)) {
					out = append(out, T(name))
				}
			default:
				names := make([]string, len(known))
				for i, a := range known {
					names[i] = string(a)
				}
				return nil, false, fmt.Errorf("--analysis: no analysis named %q (%s or all)", name, strings.Join(names, ", "))
			}
		}
	}
	// The order of the report, whatever the order asked.
	slices.SortFunc(out, func(a, b T) int { return slices.Index(known, a) - slices.Index(known, b) })
	return out, all, nil
}

// RootTag names the wall (the root's parent) in directed link types.
const RootTag = "ROOT"

// LinkRow is one link type: the tags of its arcs (two, sorted, for an
// undirected type; head then dependent for a directed one), and its arcs
// predicted, in gold and found, with precision, recall and F1.
type LinkRow struct {
	Tags []string `json:"tags"`
	PRF
	// Over and Under are the directed rows' predicted arcs that are not
	// gold and gold arcs not predicted (Klein 2005, Fig. 6.5).
	Over  *int `json:"over,omitempty"`
	Under *int `json:"under,omitempty"`
}

// Divergence is the "mean KL divergence to the mean" (Jensen–Shannon) in
// bits between the distribution over link types of the predicted arcs and
// that of the gold ones (Smith 2006 §4.6.2, Table 8.9).
type Divergence struct {
	Undirected float64 `json:"undirected"`
	Directed   float64 `json:"directed"`
}

// Links is the "links" object of score --analysis links.
type Links struct {
	Divergence Divergence `json:"divergence"`
	// Undirected: arcs between words by the unordered pair of their tags,
	// credited in either direction (Smith's Tables 3.3, 4.3, 6.4).
	Undirected []LinkRow `json:"undirected"`
	// Directed: every attachment by head tag (ROOT for the root) and
	// dependent tag, credited only as directed.
	Directed []LinkRow `json:"directed"`
}

// DistanceRow is Smith's Table 3.4 column of one string distance |h − d|
// between head and dependent: undirected precision and recall of the arcs
// of that length, and directed ones of the left dependents (d < h) and
// of the right ones. Root attachments are not arcs here.
type DistanceRow struct {
	Distance   int `json:"distance"`
	Undirected PRF `json:"undirected"`
	Left       PRF `json:"left"`
	Right      PRF `json:"right"`
}

// PathCount is how many tokens have a path of one length.
type PathCount struct {
	Length int     `json:"length"`
	Tokens int     `json:"tokens"`
	Share  float64 `json:"share"`
}

// Paths is Smith's path analysis (Tables 3.5, 4.5, 6.6, 8.9): for every
// token, the length of the path in the predicted tree from the token to
// its gold parent, the wall (left of the sentence, the root's parent) a
// node like the others.
type Paths struct {
	Sentences int `json:"sentences"`
	Tokens    int `json:"tokens"`
	// Undirected: the path through the predicted tree, whatever the
	// direction of its arcs (always finite); its mean over tokens (micro)
	// and over sentences of each sentence's mean (macro, Table 8.9).
	Undirected PathLengths `json:"undirected"`
	// Directed: the path up from the token to its gold parent through
	// predicted heads, infinite when the gold parent is not an ancestor.
	Directed PathLengths `json:"directed"`
}

// PathLengths is one kind of path: the tokens by length, and for the
// directed ones how many are infinite.
type PathLengths struct {
	Micro    *float64    `json:"micro,omitempty"`
	Macro    *float64    `json:"macro,omitempty"`
	ByLength []PathCount `json:"by_length"`
	Infinite *Infinite   `json:"infinite,omitempty"`
}

// Infinite is how many tokens have no directed path to their gold parent.
type Infinite struct {
	Tokens int     `json:"tokens"`
	Share  float64 `json:"share"`
}

// linkCount is the raw counts of one link type.
type linkCount struct{ predicted, gold, correct int }

// depAnalyzer accumulates the dependency analyses over sentences.
type depAnalyzer struct {
	undirected, directed map[[2]string]*linkCount
	distances            map[int]*[3]linkCount // undirected, left, right
	undirectedPaths      map[int]int
	directedPaths        map[int]int // -1: infinite
	pathSentences        int
	pathTokens           int
	pathSum, macroSum    float64
}

func newDepAnalyzer() *depAnalyzer {
	return &depAnalyzer{
		undirected: map[[2]string]*linkCount{}, directed: map[[2]string]*linkCount{},
		distances:       map[int]*[3]linkCount{},
		undirectedPaths: map[int]int{}, directedPaths: map[int]int{},
	}
}

func getLink(m map[[2]string]*linkCount, k [2]string) *linkCount {
	if m[k] == nil {
		m[k] = &linkCount{}
	}
	return m[k]
}

func unordered(a, b string) [2]string {
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}

// add analyses one sentence: tags, gold heads and predicted ones (1-based,
// 0 = root), already validated as trees.
func (d *depAnalyzer) add(tags []string, gold, pred []int) {
	n := len(gold)
	tagOf := func(h int) string {
		if h == 0 {
			return RootTag
		}
		return tags[h-1]
	}
	// The predicted arcs between words as unordered pairs of positions, so
	// that a gold arc is found undirected whichever way it points (a tree
	// has at most one arc between two words).
	predArc := make(map[[2]int]bool, n)
	for i := range n {
		if pred[i] != 0 {
			predArc[[2]int{min(i+1, pred[i]), max(i+1, pred[i])}] = true
		}
	}
	side := func(dep, head int) int { // 1: left dependent, 2: right
		if dep < head {
			return 1
		}
		return 2
	}
	for i := range n {
		dep := i + 1
		if g := gold[i]; g != 0 {
			pair := [2]int{min(dep, g), max(dep, g)}
			found := predArc[pair]
			u := getLink(d.undirected, unordered(tags[i], tags[g-1]))
			u.gold++
			dist := d.distance(pair[1] - pair[0])
			dist[0].gold++
			dist[side(dep, g)].gold++
			if found {
				u.correct++
				dist[0].correct++
			}
			if pred[i] == g {
				dist[side(dep, g)].correct++
			}
		}
		if p := pred[i]; p != 0 {
			pair := [2]int{min(dep, p), max(dep, p)}
			getLink(d.undirected, unordered(tags[i], tags[p-1])).predicted++
			dist := d.distance(pair[1] - pair[0])
			dist[0].predicted++
			dist[side(dep, p)].predicted++
		}
		g := getLink(d.directed, [2]string{tagOf(gold[i]), tags[i]})
		g.gold++
		getLink(d.directed, [2]string{tagOf(pred[i]), tags[i]}).predicted++
		if pred[i] == gold[i] {
			g.correct++
		}
	}
	d.addPaths(gold, pred)
}

func (d *depAnalyzer) distance(l int) *[3]linkCount {
	if d.distances[l] == nil {
		d.distances[l] = &[3]linkCount{}
	}
	return d.distances[l]
}

// addPaths measures, for every token, the path in pred from it to its gold
// parent.
func (d *depAnalyzer) addPaths(gold, pred []int) {
	undirected, directed := TokenPaths(gold, pred)
	sum := 0
	for i := range gold {
		d.undirectedPaths[undirected[i]]++
		d.directedPaths[directed[i]]++
		sum += undirected[i]
	}
	n := len(gold)
	d.pathSentences++
	d.pathTokens += n
	d.pathSum += float64(sum)
	d.macroSum += float64(sum) / float64(n)
}

// TokenPaths are, for every token of a sentence, the lengths of Smith's
// paths in the predicted tree from the token to its gold parent, nodes
// numbered as heads are (0 the wall): undirected (through the tree, the
// wall a node) and directed (up through predicted heads, −1 when the gold
// parent is not an ancestor). gold and pred are validated trees.
func TokenPaths(gold, pred []int) (undirected, directed []int) {
	n := len(gold)
	// The depth of each node below the wall: a tree of n words has depth
	// at most n.
	depth := make([]int, n+1)
	for i := 1; i <= n; i++ {
		k := 0
		for h := i; h != 0; h = pred[h-1] {
			k++
		}
		depth[i] = k
	}
	undirected, directed = make([]int, n), make([]int, n)
	for i := 1; i <= n; i++ {
		g := gold[i-1]
		// Undirected: climb from the deeper of the two until they meet.
		a, b, length := i, g, 0
		for a != b {
			if depth[a] >= depth[b] {
				a = pred[a-1]
			} else {
				b = pred[b-1]
			}
			length++
		}
		undirected[i-1] = length
		// Directed: g must be an ancestor of i.
		up := -1
		if depth[g] < depth[i] {
			a := i
			for range depth[i] - depth[g] {
				a = pred[a-1]
			}
			if a == g {
				up = depth[i] - depth[g]
			}
		}
		directed[i-1] = up
	}
	return undirected, directed
}

// links is the link-type analysis, rows of fewer than minCount arcs left out.
func (d *depAnalyzer) links(minCount int) *Links {
	l := &Links{
		Undirected: linkRows(d.undirected, minCount, false),
		Directed:   linkRows(d.directed, minCount, true),
	}
	l.Divergence.Undirected = jensenShannon(d.undirected, nil)
	l.Divergence.Directed = jensenShannon(d.directed, func(k [2]string) bool { return k[0] != RootTag })
	return l
}

// linkRows are the rows of at least minCount arcs predicted or in gold,
// most gold arcs first (Smith's order), then most predicted, then by tags.
func linkRows(m map[[2]string]*linkCount, minCount int, directed bool) []LinkRow {
	rows := []LinkRow{}
	for k, c := range m {
		if max(c.predicted, c.gold) < max(minCount, 1) {
			continue
		}
		r := LinkRow{Tags: []string{k[0], k[1]}, PRF: NewPRF(c.correct, c.predicted, c.gold)}
		if directed {
			over, under := c.predicted-c.correct, c.gold-c.correct
			r.Over, r.Under = &over, &under
		}
		rows = append(rows, r)
	}
	slices.SortFunc(rows, func(a, b LinkRow) int {
		if a.Gold != b.Gold {
			return b.Gold - a.Gold
		}
		if a.Predicted != b.Predicted {
			return b.Predicted - a.Predicted
		}
		return strings.Compare(strings.Join(a.Tags, " "), strings.Join(b.Tags, " "))
	})
	return rows
}

// jensenShannon is ½ KL(p‖m) + ½ KL(q‖m), m = (p + q)/2, in bits, between
// the distributions of predicted (q) and gold (p) arcs over the link types
// keep admits (all when nil); 0 when either side has no arc.
func jensenShannon(m map[[2]string]*linkCount, keep func([2]string) bool) float64 {
	var np, ng float64
	for k, c := range m {
		if keep == nil || keep(k) {
			np += float64(c.predicted)
			ng += float64(c.gold)
		}
	}
	if np == 0 || ng == 0 {
		return 0
	}
	// Summed in the order of the link types, not the map's, so that the
	// same arcs give the same bits to the last digit, run after run.
	js := 0.0
	for _, k := range slices.SortedFunc(maps.Keys(m), func(a, b [2]string) int {
		return cmp.Or(strings.Compare(a[0], b[0]), strings.Compare(a[1], b[1]))
	}) {
		if keep != nil && !keep(k) {
			continue
		}
		c := m[k]
		p, q := float64(c.gold)/ng, float64(c.predicted)/np
		mid := (p + q) / 2
		if p > 0 {
			js += p / 2 * math.Log2(p/mid)
		}
		if q > 0 {
			js += q / 2 * math.Log2(q/mid)
		}
	}
	return max(js, 0)
}

func (d *depAnalyzer) byDistance() []DistanceRow {
	ls := make([]int, 0, len(d.distances))
	for l := range d.distances {
		ls = append(ls, l)
	}
	slices.Sort(ls)
	rows := make([]DistanceRow, 0, len(ls))
	for _, l := range ls {
		c := d.distances[l]
		p := func(k int) PRF { return NewPRF(c[k].correct, c[k].predicted, c[k].gold) }
		rows = append(rows, DistanceRow{Distance: l, Undirected: p(0), Left: p(1), Right: p(2)})
	}
	return rows
}

func (d *depAnalyzer) paths() *Paths {
	p := &Paths{Sentences: d.pathSentences, Tokens: d.pathTokens}
	share := func(k int) float64 { return ratio(k, d.pathTokens) }
	counts := func(m map[int]int) []PathCount {
		ls := make([]int, 0, len(m))
		for l := range m {
			if l >= 0 {
				ls = append(ls, l)
			}
		}
		slices.Sort(ls)
		out := make([]PathCount, 0, len(ls))
		for _, l := range ls {
			out = append(out, PathCount{Length: l, Tokens: m[l], Share: share(m[l])})
		}
		return out
	}
	micro := d.pathSum / float64(max(d.pathTokens, 1))
	macro := d.macroSum / float64(max(d.pathSentences, 1))
	p.Undirected = PathLengths{Micro: &micro, Macro: &macro, ByLength: counts(d.undirectedPaths)}
	inf := d.directedPaths[-1]
	p.Directed = PathLengths{ByLength: counts(d.directedPaths), Infinite: &Infinite{Tokens: inf, Share: share(inf)}}
	return p
}

// Analyzer accumulates every analysis over sentences outside a score run
// (report's page uses it): heads with AddHeads, brackets with
// AddBrackets.
type Analyzer struct {
	deps *depAnalyzer
	cons *constituentAnalyzer
}

// NewAnalyzer starts empty analyses.
func NewAnalyzer() *Analyzer {
	return &Analyzer{deps: newDepAnalyzer(), cons: newConstituentAnalyzer()}
}

// AddHeads analyses one sentence's predicted heads against its gold ones
// (1-based, 0 = root), both already validated as trees over tags.
func (a *Analyzer) AddHeads(tags []string, gold, pred []int) { a.deps.add(tags, gold, pred) }

// AddBrackets analyses one sentence's predicted brackets against its gold
// tree (a sentence of one token has nothing to analyse).
func (a *Analyzer) AddBrackets(tags []string, tree string, pred [][2]int) error {
	nodes, n, err := GoldConstituents(tree)
	if err != nil {
		return err
	}
	if n != len(tags) {
		return fmt.Errorf("tree has %d tokens but the sentence %d", n, len(tags))
	}
	if n < 2 {
		return nil
	}
	gold, _, err := GoldBrackets(tree)
	if err != nil {
		return err
	}
	a.cons.addLabels(nodes, pred, n)
	a.cons.addSequences(tags, gold, pred)
	return nil
}

// Fill puts into r every analysis the sentences added allow, rows of fewer
// than minCount items left out.
func (a *Analyzer) Fill(r *Report, minCount int) {
	_ = addAnalyses(r, Options{Analyses: Analyses, AllAnalyses: true, MinCount: minCount}, a.deps, a.cons)
}
