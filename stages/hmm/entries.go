package hmm

import "fmt"

// Boundary names the sentence boundary in entries: the context before the
// first word and the target after the last.
const Boundary = "<s>"

// Entry is one parameter (or count) of an HMM by name, the shape event
// records will take: a transition Prev2 Prev1 → Next (Prev2 empty for a
// bitag model) or an emission State → Word.
type Entry struct {
	Emit               bool
	Prev2, Prev1, Next string // transitions
	State, Word        string // emissions
	Value              float64
}

// Entries calls fn with every supported entry of p whose value is not 0
// (and whose context can occur),
// transitions first (by context, then target), then emissions (by word,
// then state). states names the K states, words the V words.
func (p *Params) Entries(states, words []string, fn func(Entry) error) error {
	k, k1 := p.K, p.K+1
	name := func(i int) string {
		if i == k {
			return Boundary
		}
		return states[i]
	}
	for ctx := 0; ctx < p.Contexts(); ctx++ {
		var prev2, prev1 string
		if p.Order == 1 {
			prev1 = name(ctx)
		} else {
			if ctx%k1 == k && ctx/k1 != k {
				continue // a state then the boundary: never a context
			}
			prev2, prev1 = name(ctx/k1), name(ctx%k1)
		}
		for next := 0; next <= k; next++ {
			if v := p.Trans[ctx*k1+next]; v != 0 && p.transSupported(ctx, next) {
				if err := fn(Entry{Prev2: prev2, Prev1: prev1, Next: name(next), Value: v}); err != nil {
					return err
				}
			}
		}
	}
	for w := 0; w < p.V; w++ {
		for t := 0; t < k; t++ {
			if v := p.Emit[w*k+t]; v != 0 {
				if err := fn(Entry{Emit: true, State: states[t], Word: words[w], Value: v}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Set stores an entry's value in p, finding states and words by name; an
// unknown name or an entry the space does not allow is an error.
func (p *Params) Set(e Entry, stateID map[string]int, wordID map[string]int32) error {
	k, k1 := p.K, p.K+1
	id := func(s string) (int, error) {
		if s == Boundary {
			return k, nil
		}
		if i, ok := stateID[s]; ok {
			return i, nil
		}
		return 0, fmt.Errorf("unknown state %q", s)
	}
	if e.Emit {
		t, err := id(e.State)
		if err != nil || t == k {
			return fmt.Errorf("emission from %q: not a state", e.State)
		}
		w, ok := wordID[e.Word]
		if !ok {
			return fmt.Errorf("unknown word %q", e.Word)
		}
		if !p.allowed(int(w), t) {
			return fmt.Errorf("the dictionary does not let %q emit %q", e.State, e.Word)
		}
		p.Emit[int(w)*k+t] = e.Value
		return nil
	}
	p1, err := id(e.Prev1)
	if err != nil {
		return err
	}
	p2 := k
	if p.Order == 2 {
		if p2, err = id(e.Prev2); err != nil {
			return err
		}
		if p2 != k && p1 == k {
			return fmt.Errorf("transition from %q %q: the boundary cannot follow a state", e.Prev2, e.Prev1)
		}
	} else if e.Prev2 != "" {
		return fmt.Errorf("a bitag transition has one previous state, not %q %q", e.Prev2, e.Prev1)
	}
	next, err := id(e.Next)
	if err != nil {
		return err
	}
	ctx := p.Context(p2, p1)
	if !p.transSupported(ctx, next) {
		return fmt.Errorf("a sentence cannot stop before its first word")
	}
	p.Trans[ctx*k1+next] = e.Value
	return nil
}

// WordIndex is the corpus's word → number map, for Set.
func (c *Corpus) WordIndex() map[string]int32 { return c.index }
