package report

import (
	"fmt"
	"html"
	"strings"
	"unicode/utf8"

	"github.com/grind-nlp/grind/format"
)

// Arc-diagram geometry, in pixels.
const (
	charWidth = 7.5 // an average glyph of the 12px sans-serif text
	wordGap   = 18
	arcStep   = 16 // height added per token of arc length
	arcBase   = 10
	maxArc    = 150
)

// Arc colours: gold in neutral grey-blue, predicted arcs green when right,
// vermillion when wrong (Okabe and Ito's colours, as the curves use).
const (
	goldColor = "#4a5a70"
	okColor   = "#009e73"
	badColor  = "#d55e00"
)

// arcHeight is how high (or deep) an arc from token h to token d rises.
func arcHeight(h, d int) float64 {
	return min(maxArc, arcBase+arcStep*float64(max(h-d, d-h)))
}

// ArcDiagram draws one sentence as inline SVG: the gold tree above the
// words, the prediction below, each predicted arc green when gold has it
// and red and dashed when not. Every word and tag is escaped.
func ArcDiagram(s *format.Sentence) string {
	n := len(s.Tags)
	xs := make([]float64, n) // centre of each token
	x := 10.0
	for i := range s.Tags {
		w := utf8.RuneCountInString(s.Tags[i])
		if s.Words != nil {
			w = max(w, utf8.RuneCountInString(s.Words[i]))
		}
		width := charWidth*float64(w) + wordGap
		xs[i] = x + width/2
		x += width
	}
	width := x + 10
	up, down := 24.0, 24.0 // room for the root stems
	for i := range s.Tags {
		if h := s.Heads[i]; h != 0 {
			up = max(up, arcHeight(h-1, i)+8)
		}
		if p := s.Pred[i]; p != 0 {
			down = max(down, arcHeight(p-1, i)+8)
		}
	}
	wordY := up + 16
	tagY := wordY + 15
	predY := tagY + 8
	height := predY + down + 4
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="tree" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" role="img">`, width, height, width, height)
	// The same definitions in every diagram: identical, so whichever the
	// page resolves an id to draws the same arrowhead.
	b.WriteString(`<defs>`)
	for _, m := range []struct{ id, color string }{{"ah-gold", goldColor}, {"ah-ok", okColor}, {"ah-bad", badColor}} {
		fmt.Fprintf(&b, `<marker id="%s" viewBox="0 0 6 6" refX="5" refY="3" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0L6,3L0,6z" fill="%s"/></marker>`, m.id, m.color)
	}
	b.WriteString(`</defs>`)
	for i := range s.Tags {
		word := s.Tags[i]
		if s.Words != nil {
			word = s.Words[i]
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="w">%s</text>`, xs[i], wordY, html.EscapeString(word))
		if s.Words != nil {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="t">%s</text>`, xs[i], tagY, html.EscapeString(s.Tags[i]))
		}
	}
	top := up + 2 // where gold arcs leave and reach the words
	for i, h := range s.Heads {
		if h == 0 {
			fmt.Fprintf(&b, `<path d="M%.1f,%.1fV%.1f" class="gold" marker-end="url(#ah-gold)"/>`, xs[i], top-22, top)
			continue
		}
		y := top - arcHeight(h-1, i)
		from := leave(xs, h-1, i)
		fmt.Fprintf(&b, `<path d="M%.1f,%.1fC%.1f,%.1f %.1f,%.1f %.1f,%.1f" class="gold" marker-end="url(#ah-gold)"/>`,
			from, top, from, y, xs[i], y, xs[i], top)
	}
	for i, p := range s.Pred {
		class := "ok"
		if p != s.Heads[i] {
			class = "bad"
		}
		if p == 0 {
			fmt.Fprintf(&b, `<path d="M%.1f,%.1fV%.1f" class="%s" marker-end="url(#ah-%s)"/>`, xs[i], predY+22, predY, class, class)
			continue
		}
		y := predY + arcHeight(p-1, i)
		from := leave(xs, p-1, i)
		fmt.Fprintf(&b, `<path d="M%.1f,%.1fC%.1f,%.1f %.1f,%.1f %.1f,%.1f" class="%s" marker-end="url(#ah-%s)"/>`,
			from, predY, from, y, xs[i], y, xs[i], predY, class, class)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// leave is where an arc from head h to dependent d leaves its head: a few
// pixels off the word's centre towards d, so that arcs leaving a word do not
// merge with the arrowhead of the arc reaching it.
func leave(xs []float64, h, d int) float64 {
	if d < h {
		return xs[h] - 5
	}
	return xs[h] + 5
}

// pickTrees chooses up to n sentences to draw, in corpus order: first
// those of 4 to 12 tokens (long enough to show structure, short enough to
// read) that tell something — where the runs' parses differ, or with one
// run where it is partly right — then other sentences of 4 to 12 tokens,
// then any.
func pickTrees(runs []*Run, n int) []int {
	first := runs[0].Sentences
	telling := func(k int) bool {
		s := first[k]
		if len(runs) == 1 {
			c := correct(s.Heads, s.Pred)
			return c > 0 && c < s.Len()
		}
		for _, r := range runs[1:] {
			p := r.Sentences[k].Pred
			for i := range p {
				if p[i] != s.Pred[i] {
					return true
				}
			}
		}
		return false
	}
	readable := func(k int) bool { return first[k].Len() >= 4 && first[k].Len() <= 12 }
	passes := []func(int) bool{
		func(k int) bool { return readable(k) && telling(k) },
		readable,
		func(int) bool { return true },
	}
	var picked []int
	taken := map[int]bool{}
	for _, ok := range passes {
		for k := range first {
			if len(picked) == n {
				return picked
			}
			if !taken[k] && ok(k) {
				picked = append(picked, k)
				taken[k] = true
			}
		}
	}
	return picked
}
