// Package split divides a corpus into train, dev and test sets,
// deterministically: by Penn Treebank section when sentence ids carry the
// WSJ file name (wsj_SSNN…, section SS), otherwise by position in the
// input. It neither shuffles nor looks at the sentences' content.
package split

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// Part is one of the three outputs.
type Part int

const (
	Train Part = iota
	Dev
	Test
	dropped Part = -1
)

// Parts lists the outputs in file order.
var Parts = []Part{Train, Dev, Test}

func (p Part) String() string { return [...]string{"train", "dev", "test"}[p] }

// Range is an inclusive range of sections or residues.
type Range struct{ Lo, Hi int }

// Set is a union of ranges, written "2-21" or "0-1,24".
type Set []Range

// ParseSet reads a comma-separated list of numbers and ranges.
func ParseSet(s string) (Set, error) {
	var set Set
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(lo)
		b, err2 := a, error(nil)
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a {
			return nil, fmt.Errorf("%q is not a list of numbers and ranges like 2-21,23", s)
		}
		set = append(set, Range{a, b})
	}
	return set, nil
}

// Contains reports whether x is in the set.
func (s Set) Contains(x int) bool {
	for _, r := range s {
		if r.Lo <= x && x <= r.Hi {
			return true
		}
	}
	return false
}

func (s Set) String() string {
	parts := make([]string, len(s))
	for i, r := range s {
		if r.Lo == r.Hi {
			parts[i] = strconv.Itoa(r.Lo)
		} else {
			parts[i] = fmt.Sprintf("%d-%d", r.Lo, r.Hi)
		}
	}
	return strings.Join(parts, ",")
}

func (s Set) max() int {
	m := -1
	for _, r := range s {
		m = max(m, r.Hi)
	}
	return m
}

// overlap returns a number in both sets, if any.
func overlap(a, b Set) (int, bool) {
	for _, r := range a {
		for _, q := range b {
			if lo := max(r.Lo, q.Lo); lo <= min(r.Hi, q.Hi) {
				return lo, true
			}
		}
	}
	return 0, false
}

// Options say where each sentence goes.
type Options struct {
	// Every > 0 splits by position: sentence i (counted from 0) goes to the
	// part whose set holds i mod Every. Every = 0 splits by PTB section.
	Every int
	// The sections (or residues) of each part. A nil Train takes whatever
	// Dev and Test leave; sentences in no set are dropped.
	Train, Dev, Test Set
	// Auto chooses from the first sentence: by section (train 2-21, dev
	// 22, test 23) when its id carries one, else every 10 (dev 8, test 9).
	Auto bool
}

// Standard choices of Auto.
var (
	SectionDefaults  = Options{Train: Set{{2, 21}}, Dev: Set{{22, 22}}, Test: Set{{23, 23}}}
	PositionDefaults = Options{Every: 10, Dev: Set{{8, 8}}, Test: Set{{9, 9}}}
)

// Check rejects sets that overlap or fall outside 0..Every−1.
func (o Options) Check() error {
	if o.Auto {
		return nil
	}
	if o.Every < 0 {
		return fmt.Errorf("--every must be positive, not %d", o.Every)
	}
	sets := map[Part]Set{Train: o.Train, Dev: o.Dev, Test: o.Test}
	for i, a := range Parts {
		if o.Every > 0 && sets[a].max() >= o.Every {
			return fmt.Errorf("--%s %s: positions are counted modulo --every %d, so use 0..%d", a, sets[a], o.Every, o.Every-1)
		}
		for _, b := range Parts[i+1:] {
			if x, ok := overlap(sets[a], sets[b]); ok {
				return fmt.Errorf("--%s and --%s both hold %d", a, b, x)
			}
		}
	}
	if o.Dev == nil && o.Test == nil && o.Train == nil {
		return fmt.Errorf("no part has sections or positions: give --dev, --test or --train")
	}
	return nil
}

// Describe says how the split is made, for people.
func (o Options) Describe() string {
	if o.Auto {
		return "by PTB section or position, whichever the first sentence allows"
	}
	show := func(s Set, none string) string {
		if s == nil {
			return none
		}
		return s.String()
	}
	parts := fmt.Sprintf("train %s, dev %s, test %s", show(o.Train, "the rest"), show(o.Dev, "none"), show(o.Test, "none"))
	if o.Every > 0 {
		return fmt.Sprintf("by position mod %d: %s", o.Every, parts)
	}
	return "by PTB section: " + parts
}

// part places a sentence by its section or residue x.
func (o Options) part(x int) Part {
	switch {
	case o.Dev.Contains(x):
		return Dev
	case o.Test.Contains(x):
		return Test
	case o.Train == nil || o.Train.Contains(x):
		return Train
	}
	return dropped
}

// Compiled at first use: every program links this package, and a regexp
// compiled at init is paid for by every process start.
var wsjFile = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`wsj_(\d\d)\d\d(?:\D|$)`) })

// Section is the PTB section of a sentence id such as "wsj_2301.mrg#4"
// (section 23: the file number over 100), if the id carries one.
func Section(id string) (int, bool) {
	m := wsjFile().FindStringSubmatch(id)
	if m == nil {
		return 0, false
	}
	s, _ := strconv.Atoi(m[1])
	return s, true
}

// Counts are the sentences written to each part, and those dropped.
type Counts struct {
	Parts   [3]int
	Dropped int
}

func (c Counts) String() string {
	return fmt.Sprintf("train %d, dev %d, test %d, dropped %d", c.Parts[Train], c.Parts[Dev], c.Parts[Test], c.Dropped)
}

// Split reads the sentences of src and writes each to out[Train], out[Dev]
// or out[Test]. It returns the counts and the options actually used (Auto
// resolved).
func Split(src pipeline.Source, out [3]io.Writer, opts Options) (Counts, Options, error) {
	var counts Counts
	if err := opts.Check(); err != nil {
		return counts, opts, err
	}
	position := 0
	err := pipeline.EachSentence(src, func(s *format.Sentence) error {
		if opts.Auto {
			if _, ok := Section(s.ID); ok {
				opts = SectionDefaults
			} else {
				opts = PositionDefaults
			}
		}
		var x int
		if opts.Every > 0 {
			x = position % opts.Every
			position++
		} else {
			sec, ok := Section(s.ID)
			if !ok {
				return pipeline.BadRecord(fmt.Errorf("id %q names no PTB file (wsj_SSNN) to take the section from; split by position with --every", s.ID))
			}
			x = sec
		}
		p := opts.part(x)
		if p == dropped {
			counts.Dropped++
			return nil
		}
		counts.Parts[p]++
		return pipeline.WriteRecord(out[p], s)
	})
	return counts, opts, err
}
