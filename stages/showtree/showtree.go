// Package showtree draws dependency trees as text for a terminal: words and
// tags in aligned columns, the gold arcs ("heads") above them and the
// predicted arcs ("pred") below, with box-drawing lines or plain ASCII.
// Predicted arcs that disagree with gold are dashed and end in a cross, so
// they stand out without colour. It is for reading, not for parsing back.
package showtree

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/memory"
)

// Options control the drawing.
type Options struct {
	ASCII bool // plain ASCII instead of box-drawing characters
	// MaxMemory refuses a sentence whose drawing would need more bytes
	// (≤ 0: no limit) before it is drawn.
	MaxMemory int64
}

// Show draws every sentence of src on w, one block each, separated by
// blank lines.
func Show(src pipeline.Source, w io.Writer, opts Options) error {
	first := true
	k := 0
	return pipeline.EachSentence(src, func(s *format.Sentence) error {
		k++
		text, err := Render(s, opts)
		if err != nil {
			id := ""
			if s.ID != "" {
				id = " (" + s.ID + ")"
			}
			return fmt.Errorf("sentence %d%s, %d words: %w", k, id, s.Len(), err)
		}
		if !first {
			text = "\n" + text
		}
		first = false
		_, err = io.WriteString(w, text)
		return err
	})
}

// glyphs are the characters of one drawing style.
type glyphs struct {
	horizontal, vertical, crossing         rune
	dashedHorizontal, dashedVertical       rune
	downRight, downLeft, upRight, upLeft   rune // corners, by the two lines they join
	dashedCorner                           rune // 0: dashed arcs use the solid corners
	arrowDown, arrowUp, wrongDown, wrongUp rune
	wrongMarkNote                          string // how the header names the wrong arcs' marks
}

var (
	boxGlyphs = glyphs{
		horizontal: '─', vertical: '│', crossing: '┼',
		dashedHorizontal: '╌', dashedVertical: '╎',
		downRight: '┌', downLeft: '┐', upRight: '└', upLeft: '┘',
		arrowDown: '▼', arrowUp: '▲', wrongDown: '×', wrongUp: '×',
		wrongMarkNote: "╌ ×",
	}
	asciiGlyphs = glyphs{
		horizontal: '-', vertical: '|', crossing: '+',
		dashedHorizontal: '.', dashedVertical: ':',
		downRight: '+', downLeft: '+', upRight: '+', upLeft: '+', dashedCorner: '.',
		arrowDown: 'v', arrowUp: '^', wrongDown: 'x', wrongUp: 'x',
		wrongMarkNote: ": x",
	}
)

// arc is one attachment: head 0 is the root.
type arc struct {
	head, dep int // 1-based words
	wrong     bool
	level     int
	// Anchor columns at the two ends (a root arc has no head end).
	xHead, xDep int
}

func (a *arc) other(t int) int {
	if t == a.head {
		return a.dep
	}
	return a.head
}

func (a *arc) span() int {
	if a.head == 0 {
		return 1 << 30 // the root's line rises above everything
	}
	return abs(a.head - a.dep)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// side is the arcs of one tree, with where each touches each word.
type side struct {
	arcs    []*arc
	anchors [][]*arc // per word (0-based), left to right
}

// newSide collects the arcs of heads; wrong, when set, marks arcs that
// differ from gold.
func newSide(heads []int, wrong []bool) *side {
	n := len(heads)
	s := &side{anchors: make([][]*arc, n)}
	for i, h := range heads {
		a := &arc{head: h, dep: i + 1}
		if wrong != nil {
			a.wrong = wrong[i]
		}
		s.arcs = append(s.arcs, a)
		s.anchors[i] = append(s.anchors[i], a)
		if h != 0 {
			s.anchors[h-1] = append(s.anchors[h-1], a)
		}
	}
	// At each word: arcs to the left, shortest first; then the root's line;
	// then arcs to the right, longest first. Nested arcs then never cross.
	for i := range s.anchors {
		t := i + 1
		key := func(a *arc) (group, order int) {
			switch {
			case a.head == 0:
				return 1, 0
			case a.other(t) < t:
				return 0, a.span()
			default:
				return 2, -a.span()
			}
		}
		sort.Slice(s.anchors[i], func(x, y int) bool {
			gx, ox := key(s.anchors[i][x])
			gy, oy := key(s.anchors[i][y])
			if gx != gy {
				return gx < gy
			}
			return ox < oy
		})
	}
	return s
}

// anchorStep spaces the lines that meet one word, so that they read as
// separate lines.
const anchorStep = 2

func anchorsWidth(k int) int { return max(1, anchorStep*(k-1)+1) }

// place gives each arc its anchor columns (cells start at starts[i], width
// widths[i]) and its level: one above every shorter arc it overlaps.
func (s *side) place(starts, widths []int) (maxLevel int) {
	for i, as := range s.anchors {
		off := starts[i] + (widths[i]-anchorsWidth(len(as)))/2
		for j, a := range as {
			if a.dep == i+1 {
				a.xDep = off + anchorStep*j
			} else {
				a.xHead = off + anchorStep*j
			}
		}
	}
	order := append([]*arc(nil), s.arcs...)
	sort.SliceStable(order, func(x, y int) bool { return order[x].span() < order[y].span() })
	var placed []*arc
	for _, a := range order {
		if a.head == 0 {
			continue
		}
		lo, hi := min(a.xHead, a.xDep), max(a.xHead, a.xDep)
		a.level = 1
		for _, b := range placed {
			blo, bhi := min(b.xHead, b.xDep), max(b.xHead, b.xDep)
			if blo <= hi && lo <= bhi {
				a.level = max(a.level, b.level+1)
			}
		}
		maxLevel = max(maxLevel, a.level)
		placed = append(placed, a)
	}
	for _, a := range s.arcs {
		if a.head == 0 {
			a.level = maxLevel + 1
		}
	}
	return maxLevel
}

// Line directions in a cell.
const (
	up = 1 << iota
	down
	left
	right
)

type cell struct {
	lines           uint8
	dashedH, solidH bool
	dashedV, solidV bool
	arrow           rune
}

// draw renders a side as rows of text, arcs above the words (arrows
// pointing down at the dependents); flip turns it upside down for below.
func (s *side) draw(width, maxLevel int, g glyphs, flip bool) []string {
	rows := maxLevel + 2 // levels maxLevel+1 (root) … 1, then the arrow row
	arrowRow := rows - 1
	grid := make([][]cell, rows)
	for r := range grid {
		grid[r] = make([]cell, width)
	}
	mark := func(r, x int, lines uint8, horizontal, dashed bool) {
		c := &grid[r][x]
		c.lines |= lines
		switch {
		case horizontal && dashed:
			c.dashedH = true
		case horizontal:
			c.solidH = true
		case dashed:
			c.dashedV = true
		default:
			c.solidV = true
		}
	}
	for _, a := range s.arcs {
		row := rows - 1 - a.level
		ends := []int{a.xDep}
		if a.head != 0 {
			ends = append(ends, a.xHead)
			lo, hi := min(a.xHead, a.xDep), max(a.xHead, a.xDep)
			mark(row, lo, right, true, a.wrong)
			mark(row, hi, left, true, a.wrong)
			for x := lo + 1; x < hi; x++ {
				mark(row, x, left|right, true, a.wrong)
			}
		}
		for _, x := range ends {
			mark(row, x, down, false, a.wrong)
			for r := row + 1; r < arrowRow; r++ {
				mark(r, x, up|down, false, a.wrong)
			}
			if x == a.xDep {
				grid[arrowRow][x].arrow = g.arrowDown
				if a.wrong {
					grid[arrowRow][x].arrow = g.wrongDown
				}
			} else {
				mark(arrowRow, x, up, false, a.wrong)
			}
		}
	}
	out := make([]string, rows)
	for r := range grid {
		var b strings.Builder
		for x := range grid[r] {
			b.WriteRune(glyph(grid[r][x], g, flip))
		}
		out[r] = strings.TrimRight(b.String(), " ")
	}
	if flip {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out
}

func glyph(c cell, g glyphs, flip bool) rune {
	if c.arrow != 0 {
		if flip {
			switch c.arrow {
			case g.arrowDown:
				return g.arrowUp
			case g.wrongDown:
				return g.wrongUp
			}
		}
		return c.arrow
	}
	l := c.lines
	if flip { // swap up and down
		l = l&^(up|down) | (l&up)<<1 | (l&down)>>1
	}
	h, v := l&(left|right) != 0, l&(up|down) != 0
	switch {
	case l == 0:
		return ' '
	case h && v && l != up|left && l != up|right && l != down|left && l != down|right:
		return g.crossing // a line passing another (non-projective arcs, several roots)
	case h && v: // a corner
		dashed := c.dashedH && !c.solidH && c.dashedV && !c.solidV
		if dashed && g.dashedCorner != 0 {
			return g.dashedCorner
		}
		switch l {
		case down | right:
			return g.downRight
		case down | left:
			return g.downLeft
		case up | right:
			return g.upRight
		default:
			return g.upLeft
		}
	case h:
		if c.dashedH && !c.solidH {
			return g.dashedHorizontal
		}
		return g.horizontal
	default:
		if c.dashedV && !c.solidV {
			return g.dashedVertical
		}
		return g.vertical
	}
}

// cellBytes is what one cell of a drawing costs (TestRenderMemory): the
// cell, and its character (up to 3 bytes of UTF-8) some ten times over —
// in the line and its builder's growth, the line with its newline, the
// block the lines are joined into and its growth, and Show's copy.
const cellBytes = 12 + 3*10

// Render draws one sentence: a header line, the gold arcs, the words and
// tags, and the predicted arcs, each present only when the sentence has it.
// A drawing is as many rows as its arcs nest deep by as many columns as
// the sentence is wide: a sentence whose arcs all share one head needs
// both in proportion to its length, so its drawing is weighed against
// opts.MaxMemory before it is made.
func Render(s *format.Sentence, opts Options) (string, error) {
	g := boxGlyphs
	if opts.ASCII {
		g = asciiGlyphs
	}
	n := s.Len()
	var gold, pred *side
	if s.Heads != nil {
		gold = newSide(s.Heads, nil)
	}
	correct := 0
	if s.Pred != nil {
		var wrong []bool
		if s.Heads != nil {
			wrong = make([]bool, n)
			for i := range s.Pred {
				wrong[i] = s.Pred[i] != s.Heads[i]
				if !wrong[i] {
					correct++
				}
			}
		}
		pred = newSide(s.Pred, wrong)
	}

	const gap = 1
	widths, starts := make([]int, n), make([]int, n)
	x := 0
	for i := range n {
		w := 1
		if s.Words != nil {
			w = max(w, displayWidth(s.Words[i]))
		}
		w = max(w, displayWidth(s.Tags[i]))
		for _, sd := range []*side{gold, pred} {
			if sd != nil {
				w = max(w, anchorsWidth(len(sd.anchors[i])))
			}
		}
		widths[i], starts[i] = w, x
		x += w + gap
	}
	width := x - gap
	goldLevel, predLevel, rows := 0, 0, int64(2) // the words and the tags
	if gold != nil {
		goldLevel = gold.place(starts, widths)
		rows += int64(goldLevel) + 2
	}
	if pred != nil {
		predLevel = pred.place(starts, widths)
		rows += int64(predLevel) + 2
	}
	if err := memory.Check(memory.Mul(rows, int64(width), cellBytes), opts.MaxMemory, func() string {
		return fmt.Sprintf("its drawing of %d rows by %d columns", rows, width)
	}, "leave long sentences out (filterlen)"); err != nil {
		return "", err
	}

	var b strings.Builder
	b.WriteString(header(s, gold != nil, pred != nil, correct, g))
	if gold != nil {
		for _, line := range gold.draw(width, goldLevel, g, false) {
			b.WriteString(line + "\n")
		}
	}
	if s.Words != nil {
		b.WriteString(columns(s.Words, widths, gap) + "\n")
	}
	b.WriteString(columns(s.Tags, widths, gap) + "\n")
	if pred != nil {
		for _, line := range pred.draw(width, predLevel, g, true) {
			b.WriteString(line + "\n")
		}
	}
	return b.String(), nil
}

func header(s *format.Sentence, hasGold, hasPred bool, correct int, g glyphs) string {
	id := s.ID
	if id == "" {
		id = "(no id)"
	}
	var what string
	switch {
	case hasGold && hasPred:
		what = fmt.Sprintf("gold above, prediction below: %d of %d heads correct (wrong: %s)", correct, s.Len(), g.wrongMarkNote)
	case hasGold:
		what = "gold"
	case hasPred:
		what = "prediction, no gold"
	default:
		what = "no tree"
	}
	words := "words"
	if s.Len() == 1 {
		words = "word"
	}
	return fmt.Sprintf("# %s  %d %s; %s\n", id, s.Len(), words, what)
}

// columns centres each text in its cell.
func columns(texts []string, widths []int, gap int) string {
	var b strings.Builder
	for i, t := range texts {
		pad := widths[i] - displayWidth(t)
		b.WriteString(strings.Repeat(" ", pad/2))
		b.WriteString(t)
		if i < len(texts)-1 {
			b.WriteString(strings.Repeat(" ", pad-pad/2+gap))
		}
	}
	return b.String()
}

// displayWidth is how many terminal columns s takes: East Asian wide
// characters take two, combining marks none.
func displayWidth(s string) int {
	w := 0
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		case isWide(r):
			w += 2
		default:
			w++
		}
	}
	return w
}

func isWide(r rune) bool {
	switch {
	case r < 0x1100:
		return false
	case r <= 0x115F, // Hangul Jamo
		0x2E80 <= r && r <= 0x303E, // CJK radicals, punctuation
		0x3041 <= r && r <= 0x33FF, // kana, CJK compatibility
		0x3400 <= r && r <= 0x4DBF, // CJK extension A
		0x4E00 <= r && r <= 0x9FFF, // CJK unified ideographs
		0xA000 <= r && r <= 0xA4CF, // Yi
		0xAC00 <= r && r <= 0xD7A3, // Hangul syllables
		0xF900 <= r && r <= 0xFAFF, // CJK compatibility ideographs
		0xFE30 <= r && r <= 0xFE4F, // CJK compatibility forms
		0xFF00 <= r && r <= 0xFF60, // fullwidth forms
		0xFFE0 <= r && r <= 0xFFE6,
		0x1F300 <= r && r <= 0x1F64F, // pictographs, emoticons
		0x1F900 <= r && r <= 0x1F9FF,
		0x20000 <= r && r <= 0x3FFFD: // CJK extensions B and on
		return true
	}
	return false
}
