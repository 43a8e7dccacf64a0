package cesearch

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/grind-nlp/grind/format"
)

// StateFile is a training's state in a train-ce run directory.
const StateFile = "ce-state.json"

// Status of a saved training.
const (
	Evaluate = "evaluate" // the weights written beside it wait for their evaluation
	Finished = "done"     // the training has ended; the weights written are its result
)

// Header is how the state of a training of every family (the DMV's, the
// HMM's, Model U's) begins; Progress is how it ends. A family's state
// embeds the two, its own fields between them, so that its JSON has their
// fields in this order (the README's table).
type Header struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Family  string `json:"family"`
	Status  string `json:"status"`
	// Model is the hash of the weights to evaluate next, as estep writes
	// it in the counts' header (the DMV's δ included); Corpus and Lattices
	// the hashes of the sentences and of their neighbourhoods the counts
	// must come from. The first counts set Lattices, and the DMV's Corpus
	// (the HMM's and Model U's is set at the start); the DMV's train-ce
	// run directory's state has none of the three.
	Model     string `json:"model,omitempty"`
	Corpus    string `json:"corpus,omitempty"`
	Lattices  string `json:"lattices,omitempty"`
	Sentences int    `json:"sentences"`
	Tokens    int    `json:"tokens"`
	// Started is when ce-step --start ran: the log's seconds count from it.
	Started *time.Time `json:"started,omitempty"`
}

// Progress is how a training's state ends: the last accepted point's
// objective and the search under way, or once the training is done how
// its last search ended and the result.
type Progress struct {
	Objective format.Real `json:"objective"`
	Converged bool        `json:"converged"`
	Stopped   string      `json:"stopped,omitempty"`
	Weights   Vector      `json:"weights,omitempty"`
	Search    *State      `json:"search,omitempty"`
}

// NewHeader is the header of a training of family waiting for its first
// evaluation, in a state file of version.
func NewHeader(family string, version int) Header {
	return Header{Format: StateFormat, Version: version, Family: family, Status: Evaluate}
}

// Start marks the training as begun now (ce-step --start).
func (h *Header) Start() {
	now := time.Now().UTC().Truncate(time.Millisecond)
	h.Started = &now
}

// Origin is when the log's seconds count from: Started, or now for a
// state without it (train-ce --run-dir's).
func (h *Header) Origin() time.Time {
	if h.Started == nil {
		return time.Now()
	}
	return *h.Started
}

// Check says what is wrong with a header that is not one of a state file
// of family at version (nil: nothing).
func (h *Header) Check(family string, version int) error {
	switch {
	case h.Format != StateFormat:
		return fmt.Errorf("not a ce-step state (format %q, not %q)", h.Format, StateFormat)
	case h.Version != version:
		return fmt.Errorf("a ce-step state of version %d (this grind reads version %d)", h.Version, version)
	case h.Family != family:
		return fmt.Errorf("a ce-step state of the %q family, not %q", h.Family, family)
	case h.Status != Evaluate && h.Status != Finished:
		return fmt.Errorf("status %q (want %q or %q)", h.Status, Evaluate, Finished)
	case h.Sentences < 0 || h.Tokens < 0:
		return fmt.Errorf("%d sentences, %d tokens", h.Sentences, h.Tokens)
	}
	return nil
}

// CheckCounts says what is wrong with counts read from path for the
// training saved in the state file statePath (nil: nothing): counts of
// other weights than those it waits for (model, the hash estep wrote in
// their header, is not Model; with says what else estep must be given,
// the DMV's δ) or of another number of sentences or tokens.
func (h *Header) CheckCounts(statePath, path, model string, stats format.Stats, with string) error {
	switch {
	case model != h.Model:
		return fmt.Errorf("%s: counts of another model (%s) than the weights %s waits for (%s): run estep -m on the model ce-step wrote last%s (ce-step --state %s -o FILE writes it again)", path, model, statePath, h.Model, with, statePath)
	case stats.Sentences != h.Sentences || stats.Tokens != h.Tokens:
		return fmt.Errorf("%s: counts of %d sentences and %d tokens, not the training's %d and %d", path, stats.Sentences, stats.Tokens, h.Sentences, h.Tokens)
	}
	return nil
}

// TakeLattices takes the corpus hash of the neighbourhoods' counts read
// from path: the first step's, which every later step's must be.
func (h *Header) TakeLattices(path, corpus string) error {
	if h.Lattices != "" && corpus != h.Lattices {
		return fmt.Errorf("%s: counts of other neighbourhoods (lattices %s) than the training's so far (%s)", path, corpus, h.Lattices)
	}
	h.Lattices = corpus
	return nil
}

// UnderWay is the progress of a training whose search s is under way.
func UnderWay(s *Search) Progress {
	p := Progress{Objective: format.Real(math.Inf(-1)), Search: s.State()}
	if _, obj := s.Last(); !math.IsNaN(obj) {
		p.Objective = format.Real(obj)
	}
	return p
}

// Ended is the progress of a training whose last search ended as Outcome
// says, at its best point.
func Ended(converged bool, status string, objective float64, best []float64) Progress {
	p := Progress{Objective: format.Real(objective), Converged: converged, Weights: best}
	if !converged {
		p.Stopped = status
	}
	return p
}

// Ended is the progress of a training whose last search, s, has ended.
func (s *Search) Ended() (Progress, error) {
	converged, status, err := s.Outcome()
	if err != nil {
		return Progress{}, err
	}
	best, obj := s.Best()
	return Ended(converged, status, obj, best), nil
}

// Check says what is wrong with the progress of a training of status over
// dim weights: a search under way over dim weights, or once it has ended
// dim weights (nil: nothing).
func (p *Progress) Check(status string, dim int) error {
	switch {
	case status == Evaluate && p.Search == nil:
		return errors.New("no search under way")
	case status == Evaluate && len(p.Search.Start) != dim:
		return fmt.Errorf("a search over %d weights, not the training's %d", len(p.Search.Start), dim)
	case status == Finished && len(p.Weights) != dim:
		return fmt.Errorf("a training done with %d weights, not its %d", len(p.Weights), dim)
	}
	return nil
}

// Resume rebuilds the search under way, which must be of opts and have
// accepted a point for each of the logged iterations since it began.
func (p *Progress) Resume(opts Options, logged int) (*Search, error) {
	s, err := Restore(p.Search)
	if err != nil {
		return nil, fmt.Errorf("its search: %w", err)
	}
	switch {
	case s.Options() != opts:
		return nil, fmt.Errorf("its search's options %+v are not the training's %+v", s.Options(), opts)
	case p.Search.Accepted != logged:
		return nil, fmt.Errorf("its search has %d points accepted, not the %d iterations logged", p.Search.Accepted, logged)
	}
	return s, nil
}
