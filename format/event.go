package format

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	jsoniter "github.com/json-iterator/go"
)

// Event kinds. Models and counts share one record shape, so an M-step is
// "group by condition, normalise" and a model can be read with jq. A model
// file and each shard of a count stream open with a header record:
//
//	{"ev":"header","family":"dmv","unit":"p","events":2765}
//	{"ev":"header","family":"dmv","unit":"n","events":2765,"model":"9c1e0f3a6b2d4e58","corpus":"04d2a7c9e1f3b6a8"}
//	{"ev":"child","head":"VBD","dir":"right","arg":"NN","n":12.5}
//	{"ev":"stop","head":"VBD","dir":"left","adj":true,"n":3}
//	{"ev":"cont","head":"VBD","dir":"left","adj":true,"n":9}
//	{"ev":"root","arg":"VBD","n":40}
//	{"ev":"stats","sentences":5301,"tokens":37000,"loglik":-123456.7}
//
// A DMV whose child distributions learn their back-off (Headden, Johnson
// & McClosky 2009) has, beside each child record, a backoff record of the
// same fields: in a model the probability of drawing that argument from
// the back-off distribution that forgets the head (the back-off's weight
// times its probability; the child record holds the whole), in counts the
// expected number of those attachments made through the back-off:
//
//	{"ev":"backoff","head":"VBD","dir":"right","val":0,"arg":"NN","p":0.004}
//
// The CCM's (family "ccm", or "ccm2" for Smith & Eisner's model 2) are
// its four multinomials, yields and contexts given or distituents
// (Boundary beyond the sentence edges), and the probability of a yield or
// context its M-step never saw (under ccm2 by yield length; 0 under ccm):
//
//	{"ev":"span","yield":["DT","NN"],"constituent":true,"p":0.0123}
//	{"ev":"context","left":"<>","right":"VBD","constituent":false,"p":0.004}
//	{"ev":"unseen_span","constituent":true,"length":0,"p":1.2e-05}
//	{"ev":"unseen_context","constituent":false,"p":3.4e-06}
//
// Klein's multi-class CCM (family "ccm-classes", §5.3.2) has K − 1
// constituent classes: its header says K ("classes", the distituent label
// one of them), and each constituent event names its class, 1 … K − 1;
// the distituent events are the CCM's:
//
//	{"ev":"header","family":"ccm-classes","unit":"p","events":4113,"classes":3}
//	{"ev":"span","yield":["DT","NN"],"constituent":true,"class":2,"p":0.0211}
//	{"ev":"unseen_span","constituent":true,"class":2,"length":0,"p":1.1e-05}
//
// The HMM's (family "hmm") are its transitions, from the order previous
// states (one: bitag; two: trigram; the variant is the length of prev,
// the same in every trans record) to the next, "<s>" the sentence
// boundary before the first word and after the last; its emissions; and
// the probability each state gives a word its M-step never saw:
//
//	{"ev":"trans","prev":["s3"],"next":"s5","p":0.21}
//	{"ev":"emit","state":"s5","word":"dog","p":0.0031}
//	{"ev":"unseen_word","state":"s5","p":1.2e-06}
//
// DMV+CCM under footnote 8's order (family "dmvccm-footnote8") adds its
// decisions to the DMV's and the CCM's: in each valence state of a head
// (left_adj, right_adj: no dependent yet on that side), the probability
// that it stops entirely, and that it goes on and takes its next
// dependent on side dir (the three sum to 1):
//
//	{"ev":"halt","head":"VBD","left_adj":true,"right_adj":false,"p":0.25}
//	{"ev":"go","head":"VBD","dir":"left","left_adj":true,"right_adj":false,"p":0.5}
const (
	EvRoot  = "root"
	EvChild = "child"
	// EvBackoff is the share of a child event drawn from the back-off.
	EvBackoff = "backoff"
	EvStop    = "stop"
	EvCont    = "cont"
	EvStats   = "stats"
	EvHeader  = "header"

	EvSpan          = "span"
	EvContext       = "context"
	EvUnseenSpan    = "unseen_span"
	EvUnseenContext = "unseen_context"

	EvTrans      = "trans"
	EvEmit       = "emit"
	EvUnseenWord = "unseen_word"

	EvHalt = "halt"
	EvGo   = "go"
)

// Boundary is the tag of a CCM context beyond a sentence edge.
const Boundary = "<>"

// Directions of child, stop and cont events.
const (
	Left  = "left"
	Right = "right"
)

// Unit says which number an event carries: a count n, a probability p, or
// a real weight w (log-linear models).
type Unit byte

const (
	Count  Unit = 'n'
	Prob   Unit = 'p'
	Weight Unit = 'w'
)

// Event is one parameter or one count of the DMV, or the stats record that
// closes a count stream.
type Event struct {
	Ev   string
	Head string // child, backoff, stop, cont
	Dir  string // child, stop, cont: Left or Right
	Adj  bool   // stop, cont: no child yet on that side
	// AdjLeft, AdjRight are a halt or go event's valence state: no
	// dependent yet on the left, on the right.
	AdjLeft, AdjRight bool
	// Val is the valence of a stop, cont or child event of a DMV with
	// valence settings (HasVal): the number of children the head already
	// has on that side, capped at the setting less one. A stop or cont
	// event has Adj or Val, never both; the plain DMV's have Adj.
	Val    int
	HasVal bool
	Arg    string // child, root
	// The CCM's: a span's yield (the tags it covers, [] the empty span),
	// a context's tags before and after (Boundary beyond an edge), a
	// yield length (unseen_span), and the bracket value of all four.
	Yield       []string
	Left, Right string
	Length      int
	Constituent bool
	// Class is a constituent event's class in a multi-class CCM (1 … K −
	// 1); 0, not written, elsewhere.
	Class int
	// The HMM's: a transition's previous states (oldest first) and next
	// state, an emission's state and word (unseen_word: state only).
	Prev        []string
	Next        string
	State, Word string
	Unit        Unit
	Value       float64
	Stats       *Stats  // only for Ev == EvStats
	Header      *Header // only for Ev == EvHeader

	notEvent bool // read from a sentence or lattice record (Validate says so)
}

// Header opens a model file, or one shard of a count stream. Events is how
// many event records follow it (the stats record not included), so a file
// cut off even at a line boundary is told from a whole one. A shard's
// header names the model its E-step ran with and the sentences it read,
// by hash (16 hex digits; Model is "none" for gold counts without one), so
// that shards of different models, a shard given twice and, with Events
// and the stats record that closes each shard, a shard lost or cut short
// anywhere in a concatenated stream are refused. Family is the model
// family ("dmv"); the next families (CCM, HMM) keep the same header.
type Header struct {
	Family string
	Unit   Unit
	Events int
	Model  string // counts only
	Corpus string // counts only
	// The DMV's valence settings (stages/dmv.Valence): how many valences
	// its stop decisions and its child distributions tell apart; 0 (not
	// written) for the plain DMV's 2 and 1.
	StopValence, ChildValence int
	// VBAlpha, when > 0, marks a model of variational Bayes ("p" only):
	// its values are the weights exp E[log θ] under q(θ) = Dir(counts +
	// VBAlpha), and its multinomials sum to less than 1. VBBound, when not
	// nil, is the variational bound of the E-step and M-step that made it.
	VBAlpha float64
	VBBound *float64
	// Deficient says that the model's multinomials may sum to less than
	// 1 (an HMM of variational Bayes's weights exp E[log θ]): its reader
	// checks that none sums to more. Written only when true.
	Deficient bool
	// Classes is a multi-class CCM's K, its constituent classes and the
	// distituent label (family "ccm-classes"); 0, not written, elsewhere.
	Classes int
	// Refine names how a DMV model's readers refine a sentence's tags
	// before they look them up ("ending": stages/dmv.RefineEnding); "",
	// not written, for the tags as they are.
	Refine string
}

// MaxValence bounds the DMV's valence settings: far more valences than
// any paper tells apart (Headden et al. 2009 and pr-toolkit use up to 3).
const MaxValence = 10

// Stats closes a count stream: how much data the counts came from and its
// log-likelihood (natural log; -Inf when some sentence has probability 0).
// sumcounts adds stats records; mstep refuses a stream without one.
type Stats struct {
	Sentences int
	Tokens    int
	Loglik    float64
	// LeftOut counts the sentences (or lattices) the E-step left out of
	// Loglik and the counts because their weights span more than floating
	// point holds (extreme log-linear weights, a large positive δ);
	// written as "left_out" only when some were. CE's step takes such
	// counts for an objective without a value, as train-ce does.
	LeftOut int
}

// MarshalJSON writes only the fields that the event's kind has.
func (e Event) MarshalJSON() ([]byte, error) {
	if err := e.CheckWrite(); err != nil {
		return nil, err
	}
	return e.AppendJSON(nil), nil
}

// CheckWrite says whether the event can be written: a known kind with
// its unit, or a header or stats record with its contents.
func (e *Event) CheckWrite() error {
	switch e.Ev {
	case EvStats:
		if e.Stats == nil {
			return errors.New("stats event without stats")
		}
	case EvHeader:
		if e.Header == nil {
			return errors.New("header event without header")
		}
	case EvRoot, EvChild, EvBackoff, EvStop, EvCont, EvSpan, EvContext, EvUnseenSpan, EvUnseenContext, EvTrans, EvEmit, EvUnseenWord, EvHalt, EvGo:
		if e.Unit != Count && e.Unit != Prob && e.Unit != Weight {
			return fmt.Errorf("event %q has no unit", e.Ev)
		}
	default:
		return fmt.Errorf("unknown event kind %q", e.Ev)
	}
	return nil
}

// AppendJSON appends the event as MarshalJSON writes it to dst, without
// the codec: count streams and models are written on every step of a
// shell loop. The event must be one MarshalJSON accepts.
func (e *Event) AppendJSON(dst []byte) []byte {
	// The DMV's kinds and directions are written as the constants they
	// are (thousands of lines per model), the rest through appendString.
	switch e.Ev {
	case EvRoot:
		dst = appendString(append(dst, `{"ev":"root","arg":`...), e.Arg)
		return appendValue(dst, e.Unit, e.Value)
	case EvChild, EvBackoff:
		if e.Ev == EvChild {
			dst = append(dst, `{"ev":"child","head":`...)
		} else {
			dst = append(dst, `{"ev":"backoff","head":`...)
		}
		dst = appendString(dst, e.Head)
		dst = appendDir(append(dst, `,"dir":`...), e.Dir)
		if e.HasVal {
			dst = strconv.AppendInt(append(dst, `,"val":`...), int64(e.Val), 10)
		}
		dst = appendString(append(dst, `,"arg":`...), e.Arg)
		return appendValue(dst, e.Unit, e.Value)
	case EvStop, EvCont:
		if e.Ev == EvStop {
			dst = append(dst, `{"ev":"stop","head":`...)
		} else {
			dst = append(dst, `{"ev":"cont","head":`...)
		}
		dst = appendString(dst, e.Head)
		dst = appendDir(append(dst, `,"dir":`...), e.Dir)
		if e.HasVal {
			dst = strconv.AppendInt(append(dst, `,"val":`...), int64(e.Val), 10)
		} else {
			dst = strconv.AppendBool(append(dst, `,"adj":`...), e.Adj)
		}
		return appendValue(dst, e.Unit, e.Value)
	}
	dst = append(dst, `{"ev":`...)
	dst = appendString(dst, e.Ev)
	switch e.Ev {
	case EvHeader:
		h := e.Header
		dst = appendString(append(dst, `,"family":`...), h.Family)
		dst = appendString(append(dst, `,"unit":`...), string(h.Unit))
		dst = strconv.AppendInt(append(dst, `,"events":`...), int64(h.Events), 10)
		if h.Unit == Count {
			dst = appendString(append(dst, `,"model":`...), h.Model)
			dst = appendString(append(dst, `,"corpus":`...), h.Corpus)
		}
		if h.StopValence != 0 || h.ChildValence != 0 {
			dst = strconv.AppendInt(append(dst, `,"stop_valence":`...), int64(h.StopValence), 10)
			dst = strconv.AppendInt(append(dst, `,"child_valence":`...), int64(h.ChildValence), 10)
		}
		if h.VBAlpha > 0 {
			dst = appendReal(append(dst, `,"vb_alpha":`...), h.VBAlpha)
			if h.VBBound != nil {
				dst = appendReal(append(dst, `,"vb_bound":`...), *h.VBBound)
			}
		}
		if h.Deficient {
			dst = append(dst, `,"deficient":true`...)
		}
		if h.Classes > 0 {
			dst = strconv.AppendInt(append(dst, `,"classes":`...), int64(h.Classes), 10)
		}
		if h.Refine != "" {
			dst = appendString(append(dst, `,"refine":`...), h.Refine)
		}
		return append(dst, '}')
	case EvStats:
		dst = strconv.AppendInt(append(dst, `,"sentences":`...), int64(e.Stats.Sentences), 10)
		dst = strconv.AppendInt(append(dst, `,"tokens":`...), int64(e.Stats.Tokens), 10)
		dst = appendReal(append(dst, `,"loglik":`...), e.Stats.Loglik)
		if e.Stats.LeftOut > 0 {
			dst = strconv.AppendInt(append(dst, `,"left_out":`...), int64(e.Stats.LeftOut), 10)
		}
		return append(dst, '}')
	case EvSpan:
		dst = appendStrings(append(dst, `,"yield":`...), e.Yield)
		dst = appendConstituent(dst, e)
	case EvContext:
		dst = appendString(append(dst, `,"left":`...), e.Left)
		dst = appendString(append(dst, `,"right":`...), e.Right)
		dst = appendConstituent(dst, e)
	case EvUnseenSpan:
		dst = appendConstituent(dst, e)
		dst = strconv.AppendInt(append(dst, `,"length":`...), int64(e.Length), 10)
	case EvUnseenContext:
		dst = appendConstituent(dst, e)
	case EvTrans:
		dst = appendStrings(append(dst, `,"prev":`...), e.Prev)
		dst = appendString(append(dst, `,"next":`...), e.Next)
	case EvEmit:
		dst = appendString(append(dst, `,"state":`...), e.State)
		dst = appendString(append(dst, `,"word":`...), e.Word)
	case EvUnseenWord:
		dst = appendString(append(dst, `,"state":`...), e.State)
	case EvHalt, EvGo:
		dst = appendString(append(dst, `,"head":`...), e.Head)
		if e.Ev == EvGo {
			dst = appendDir(append(dst, `,"dir":`...), e.Dir)
		}
		dst = strconv.AppendBool(append(dst, `,"left_adj":`...), e.AdjLeft)
		dst = strconv.AppendBool(append(dst, `,"right_adj":`...), e.AdjRight)
	}
	return appendValue(dst, e.Unit, e.Value)
}

// appendConstituent appends a CCM event's bracket value and, in a
// multi-class CCM, its class.
func appendConstituent(dst []byte, e *Event) []byte {
	dst = strconv.AppendBool(append(dst, `,"constituent":`...), e.Constituent)
	if e.Class > 0 {
		dst = strconv.AppendInt(append(dst, `,"class":`...), int64(e.Class), 10)
	}
	return dst
}

// AppendQuoted appends s as a JSON string, as AppendJSON writes strings.
func AppendQuoted(dst []byte, s string) []byte { return appendString(dst, s) }

// AppendDMV appends the line AppendJSON writes for a DMV event (root,
// child, stop or cont; head and dir not of root, arg not of stop and
// cont, adj only of stop and cont), its tags given as JSON strings
// (AppendQuoted): the writers of models and counts quote their few dozen
// tags once, not on each of thousands of lines.
func AppendDMV(dst []byte, ev string, head []byte, dir string, adj bool, arg []byte, unit Unit, value float64) []byte {
	switch ev {
	case EvRoot:
		dst = append(append(dst, `{"ev":"root","arg":`...), arg...)
	case EvChild:
		dst = append(append(dst, `{"ev":"child","head":`...), head...)
		dst = appendDir(append(dst, `,"dir":`...), dir)
		dst = append(append(dst, `,"arg":`...), arg...)
	default:
		if ev == EvStop {
			dst = append(dst, `{"ev":"stop","head":`...)
		} else {
			dst = append(dst, `{"ev":"cont","head":`...)
		}
		dst = appendDir(append(append(dst, head...), `,"dir":`...), dir)
		dst = strconv.AppendBool(append(dst, `,"adj":`...), adj)
	}
	return appendValue(dst, unit, value)
}

// appendValue ends an event: its unit, value and closing brace.
func appendValue(dst []byte, unit Unit, value float64) []byte {
	dst = append(dst, ',', '"', byte(unit), '"', ':')
	dst = appendReal(dst, value)
	return append(dst, '}')
}

// appendDir writes a direction, the two the DMV has as constants.
func appendDir(dst []byte, dir string) []byte {
	switch dir {
	case Left:
		return append(dst, `"left"`...)
	case Right:
		return append(dst, `"right"`...)
	}
	return appendString(dst, dir)
}

// UnmarshalJSON reads an event and checks that it has the fields its kind
// needs and exactly one of n, p, w. Models and counts are read on every
// step of a shell loop: the lines grind writes take the scanner's short
// road (fastjson.go), others the codec's streaming iterator.
func (e *Event) UnmarshalJSON(data []byte) error {
	*e = Event{}
	f := eventFields{loglik: math.NaN()}
	if !f.scan(e, data) {
		*e = Event{}
		f = eventFields{loglik: math.NaN()}
		if err := f.decode(e, data); err != nil {
			return err
		}
	}
	return f.finish(e)
}

// eventFields are what an event's fields said beyond the Event itself,
// for the checks of finish.
type eventFields struct {
	adj, constituent, yield     bool
	hasAdj, hasConstituent      bool
	adjLeft, adjRight           bool
	hasAdjLeft, hasAdjRight     bool
	length, sentences, tokens   int
	leftOut                     int
	events, val                 int
	hasVal                      bool
	stopValence, childValence   int
	hasLength, hasSentences     bool
	hasTokens, hasEvents        bool
	values                      int // how many of n, p, w
	family, unit, model, corpus string
	refine                      string
	deficient                   bool
	class, classes              int
	hasClass, hasClasses        bool
	sentence                    bool // a sentence or lattice record where an event is due
	loglik                      float64
	vbAlpha, vbBound            float64
	hasVBAlpha, hasVBBound      bool
}

// eventFieldBit numbers the fields an event may have, for the scanner's
// check that none is given twice; 0 for any other field.
func eventFieldBit(name []byte) uint64 {
	switch string(name) {
	case "ev":
		return 1 << 0
	case "head":
		return 1 << 1
	case "dir":
		return 1 << 2
	case "arg":
		return 1 << 3
	case "adj":
		return 1 << 4
	case "yield":
		return 1 << 5
	case "prev":
		return 1 << 6
	case "next":
		return 1 << 7
	case "state":
		return 1 << 8
	case "word":
		return 1 << 9
	case "left":
		return 1 << 10
	case "right":
		return 1 << 11
	case "length":
		return 1 << 12
	case "constituent":
		return 1 << 13
	case "n":
		return 1 << 14
	case "p":
		return 1 << 15
	case "w":
		return 1 << 16
	case "sentences":
		return 1 << 17
	case "tokens":
		return 1 << 18
	case "loglik":
		return 1 << 19
	case "family":
		return 1 << 20
	case "unit":
		return 1 << 21
	case "events":
		return 1 << 22
	case "model":
		return 1 << 23
	case "corpus":
		return 1 << 24
	case "val":
		return 1 << 25
	case "stop_valence":
		return 1 << 26
	case "child_valence":
		return 1 << 27
	case "deficient":
		return 1 << 28
	case "left_out":
		return 1 << 29
	case "left_adj":
		return 1 << 30
	case "right_adj":
		return 1 << 31
	case "class":
		return 1 << 32
	case "classes":
		return 1 << 33
	}
	return 0
}

// constant is an event kind or direction as a shared string, so that
// reading one allocates nothing.
func constant(b []byte) string {
	switch string(b) {
	case EvRoot:
		return EvRoot
	case EvChild:
		return EvChild
	case EvBackoff:
		return EvBackoff
	case EvStop:
		return EvStop
	case EvCont:
		return EvCont
	case Left:
		return Left
	case Right:
		return Right
	case EvStats:
		return EvStats
	case EvHeader:
		return EvHeader
	case EvSpan:
		return EvSpan
	case EvContext:
		return EvContext
	case EvTrans:
		return EvTrans
	case EvEmit:
		return EvEmit
	}
	return string(b)
}

// scan reads the plain lines grind writes; false sends the line to
// decode. Tags (head, arg, yield, prev, next, state, left, right) are
// interned; words are not.
func (f *eventFields) scan(e *Event, data []byte) bool {
	return f.scanDMV(e, data) || f.scanFields(e, data)
}

// scanDMV reads a DMV event line as grind writes it (ScanDMVLine), which
// is most of what estep and mstep read; anything else is left to
// scanFields.
func (f *eventFields) scanDMV(e *Event, data []byte) bool {
	l, ok := ScanDMVLine(data)
	if !ok {
		return false
	}
	e.Ev, e.Dir, e.Unit, e.Value = l.Ev, l.Dir, l.Unit, l.Value
	if l.Ev != EvRoot {
		e.Head = tagNames.intern(l.Head)
	}
	if l.Ev == EvStop || l.Ev == EvCont {
		f.adj, f.hasAdj = l.Adj, true
	} else {
		e.Arg = tagNames.intern(l.Arg)
	}
	f.values = 1
	return true
}

// DMVLine is a DMV event line read by ScanDMVLine, its tags still bytes
// of the line: the readers of models and counts take most lines this way,
// without an Event.
type DMVLine struct {
	Ev        string // EvRoot, EvChild, EvStop or EvCont
	Head, Arg []byte // head: not of root; arg: of root and child
	Dir       string // not of root: Left or Right
	Adj       bool   // of stop and cont
	Unit      Unit
	Value     float64
}

// ScanDMVLine reads a DMV event line as grind writes it, its fields in
// AppendJSON's order and no white space between them:
//
//	{"ev":"root","arg":A,"n":V}
//	{"ev":"child","head":H,"dir":D,"arg":A,"n":V}
//	{"ev":"stop","head":H,"dir":D,"adj":B,"n":V}
//
// (or "p", "w"). It matches the field names as they stand rather than
// reading and looking up each one, and reports false for anything else.
// A line it takes is one Event.UnmarshalJSON reads to the same fields
// (the tags as strings); whether that event is valid (a finite value, no
// empty tag) is for the caller to check.
func ScanDMVLine(data []byte) (DMVLine, bool) {
	var l DMVLine
	s := scanner{data: data}
	lit := func(l string) bool {
		if len(s.data)-s.i < len(l) || string(s.data[s.i:s.i+len(l)]) != l {
			return false
		}
		s.i += len(l)
		return true
	}
	// str reads a tag: a few bytes, which a plain loop reads faster than
	// scanner.str's eight at a time.
	str := func() ([]byte, bool) {
		if s.i >= len(s.data) || s.data[s.i] != '"' {
			return nil, false
		}
		for j := s.i + 1; j < len(s.data); j++ {
			switch c := s.data[j]; {
			case c == '"':
				b := s.data[s.i+1 : j]
				s.i = j + 1
				return b, true
			case c == '\\' || c < 0x20:
				return nil, false
			}
		}
		return nil, false
	}
	var ok bool
	switch {
	case !lit(`{"ev":"`):
		return l, false
	case lit(`root"`):
		l.Ev = EvRoot
	case lit(`child"`):
		l.Ev = EvChild
	case lit(`stop"`):
		l.Ev = EvStop
	case lit(`cont"`):
		l.Ev = EvCont
	default:
		return l, false
	}
	if l.Ev != EvRoot {
		if !lit(`,"head":`) {
			return l, false
		}
		if l.Head, ok = str(); !ok {
			return l, false
		}
		switch {
		case lit(`,"dir":"left"`):
			l.Dir = Left
		case lit(`,"dir":"right"`):
			l.Dir = Right
		default:
			return l, false
		}
	}
	if l.Ev == EvStop || l.Ev == EvCont {
		if !lit(`,"adj":`) {
			return l, false
		}
		switch {
		case lit("true"):
			l.Adj = true
		case lit("false"):
		default:
			return l, false
		}
	} else {
		if !lit(`,"arg":`) {
			return l, false
		}
		if l.Arg, ok = str(); !ok {
			return l, false
		}
	}
	if len(s.data)-s.i < 5 || s.data[s.i] != ',' || s.data[s.i+1] != '"' || s.data[s.i+3] != '"' || s.data[s.i+4] != ':' {
		return l, false
	}
	switch u := s.data[s.i+2]; u {
	case 'n', 'p', 'w':
		l.Unit = Unit(u)
	default:
		return l, false
	}
	s.i += 5
	if s.i >= len(s.data) || s.data[s.i] != '-' && !digit(s.data[s.i]) {
		return l, false
	}
	if l.Value, ok = s.float(); !ok {
		return l, false
	}
	return l, s.i == len(s.data)-1 && s.data[s.i] == '}'
}

// scanFields reads any plain event line, its fields in any order.
func (f *eventFields) scanFields(e *Event, data []byte) bool {
	s := scanner{data: data}
	var seen uint64
	return s.object(func(name []byte) bool {
		bit := eventFieldBit(name)
		if bit == 0 || seen&bit != 0 {
			return false
		}
		seen |= bit
		var b []byte
		ok := true
		switch string(name) {
		case "ev":
			if b, ok = s.str(); ok {
				e.Ev = constant(b)
			}
		case "dir":
			if b, ok = s.str(); ok {
				e.Dir = constant(b)
			}
		case "head", "arg", "next", "state", "left", "right":
			if b, ok = s.str(); ok {
				t := tagNames.intern(b)
				switch string(name) {
				case "head":
					e.Head = t
				case "arg":
					e.Arg = t
				case "next":
					e.Next = t
				case "state":
					e.State = t
				case "left":
					e.Left = t
				default:
					e.Right = t
				}
			}
		case "word":
			if b, ok = s.str(); ok {
				e.Word = string(b)
			}
		case "adj":
			f.adj, ok = s.bool()
			f.hasAdj = true
		case "left_adj":
			f.adjLeft, ok = s.bool()
			f.hasAdjLeft = true
		case "right_adj":
			f.adjRight, ok = s.bool()
			f.hasAdjRight = true
		case "constituent":
			f.constituent, ok = s.bool()
			f.hasConstituent = true
		case "yield":
			e.Yield, ok = s.strings(tagNames)
			f.yield = true
		case "prev":
			e.Prev, ok = s.strings(tagNames)
		case "length":
			f.length, ok = s.int()
			f.hasLength = true
		case "n", "p", "w":
			f.values++
			e.Unit = Unit(name[0])
			e.Value, ok = s.float()
		case "sentences":
			f.sentences, ok = s.int()
			f.hasSentences = true
		case "tokens":
			f.tokens, ok = s.int()
			f.hasTokens = true
		case "left_out":
			f.leftOut, ok = s.int()
		case "events":
			f.events, ok = s.int()
			f.hasEvents = true
		case "val":
			f.val, ok = s.int()
			f.hasVal = true
		case "stop_valence":
			f.stopValence, ok = s.int()
		case "child_valence":
			f.childValence, ok = s.int()
		case "loglik":
			f.loglik, ok = s.float()
		case "deficient":
			f.deficient, ok = s.bool()
		case "class":
			f.class, ok = s.int()
			f.hasClass = true
		case "classes":
			f.classes, ok = s.int()
			f.hasClasses = true
		case "family", "unit", "model", "corpus":
			if b, ok = s.str(); ok {
				v := string(b)
				switch string(name) {
				case "family":
					f.family = v
				case "unit":
					f.unit = v
				case "model":
					f.model = v
				default:
					f.corpus = v
				}
			}
		}
		return ok
	})
}

// decode reads any line with the codec, reporting its errors.
func (f *eventFields) decode(e *Event, data []byte) error {
	readReal := func(it *jsoniter.Iterator) float64 {
		if it.WhatIsNext() == jsoniter.StringValue {
			var r Real
			if err := r.UnmarshalJSON([]byte(strconv.Quote(it.ReadString()))); err != nil {
				it.ReportError("read number", err.Error())
			}
			return float64(r)
		}
		return it.ReadFloat64()
	}
	return decodeObject(data, "event", func(it *jsoniter.Iterator, field string) {
		switch field {
		case "ev":
			e.Ev = it.ReadString()
		case "head":
			e.Head = it.ReadString()
		case "dir":
			e.Dir = it.ReadString()
		case "arg":
			e.Arg = it.ReadString()
		case "adj":
			f.adj, f.hasAdj = it.ReadBool(), true
		case "left_adj":
			f.adjLeft, f.hasAdjLeft = it.ReadBool(), true
		case "right_adj":
			f.adjRight, f.hasAdjRight = it.ReadBool(), true
		case "yield":
			e.Yield = readStrings(it, nil)
			if e.Yield == nil {
				e.Yield = []string{}
			}
			f.yield = true
		case "prev":
			e.Prev = readStrings(it, nil)
		case "next":
			e.Next = it.ReadString()
		case "state":
			e.State = it.ReadString()
		case "word":
			e.Word = it.ReadString()
		case "left":
			e.Left = it.ReadString()
		case "right":
			e.Right = it.ReadString()
		case "length":
			f.length, f.hasLength = it.ReadInt(), true
		case "constituent":
			f.constituent, f.hasConstituent = it.ReadBool(), true
		case "n", "p", "w":
			f.values++
			e.Unit, e.Value = Unit(field[0]), readReal(it)
		case "sentences":
			f.sentences, f.hasSentences = it.ReadInt(), true
		case "tokens":
			f.tokens, f.hasTokens = it.ReadInt(), true
		case "left_out":
			f.leftOut = it.ReadInt()
		case "loglik":
			f.loglik = readReal(it)
		case "family":
			f.family = it.ReadString()
		case "unit":
			f.unit = it.ReadString()
		case "events":
			f.events, f.hasEvents = it.ReadInt(), true
		case "val":
			f.val, f.hasVal = it.ReadInt(), true
		case "stop_valence":
			f.stopValence = it.ReadInt()
		case "child_valence":
			f.childValence = it.ReadInt()
		case "model":
			f.model = it.ReadString()
		case "corpus":
			f.corpus = it.ReadString()
		case "refine":
			f.refine = it.ReadString()
		case "deficient":
			f.deficient = it.ReadBool()
		case "class":
			f.class, f.hasClass = it.ReadInt(), true
		case "classes":
			f.classes, f.hasClasses = it.ReadInt(), true
		case "vb_alpha":
			f.vbAlpha, f.hasVBAlpha = readReal(it), true
		case "vb_bound":
			f.vbBound, f.hasVBBound = readReal(it), true
		case "tags", "words", "arcs":
			f.sentence = true
			it.Skip()
		default:
			it.Skip()
		}
	})
}

// finish checks the fields read against the event's kind.
func (f *eventFields) finish(e *Event) error {
	var err error
	need := func(ok bool, field string) error {
		if !ok {
			return fmt.Errorf("%q event without %q", e.Ev, field)
		}
		return nil
	}
	if e.Ev == "" && f.sentence {
		e.notEvent = true // a corpus in the wrong place: Validate names it
		return nil
	}
	if e.Ev == EvStats {
		if err := errors.Join(need(f.hasSentences, "sentences"), need(f.hasTokens, "tokens")); err != nil {
			return err
		}
		e.Unit, e.Value = 0, 0
		e.Stats = &Stats{Sentences: f.sentences, Tokens: f.tokens, Loglik: f.loglik, LeftOut: f.leftOut}
		return nil
	}
	if e.Ev == EvHeader {
		if err := errors.Join(need(f.family != "", "family"), need(f.unit != "", "unit"), need(f.hasEvents, "events")); err != nil {
			return err
		}
		u := Unit(f.unit[0])
		if len(f.unit) != 1 || u != Count && u != Prob && u != Weight {
			return fmt.Errorf(`header with unit %q: want "n", "p" or "w"`, f.unit)
		}
		if f.events < 0 {
			return fmt.Errorf("header with %d events", f.events)
		}
		if u == Count {
			if err := errors.Join(need(f.model != "", "model"), need(f.corpus != "", "corpus")); err != nil {
				return err
			}
		}
		if f.stopValence < 0 || f.childValence < 0 || f.stopValence > MaxValence || f.childValence > MaxValence {
			return fmt.Errorf("header with valences %d and %d: want 1 to %d", f.stopValence, f.childValence, MaxValence)
		}
		if f.deficient && u != Prob {
			return fmt.Errorf(`header with "deficient" and unit %q: only a model of probabilities ("p") is deficient`, f.unit)
		}
		if f.refine != "" && (f.family != "dmv" || u == Count) {
			return fmt.Errorf(`header of family %q, unit %q, with "refine": only a DMV model ("p" or "w") refines its tags`, f.family, f.unit)
		}
		if f.hasClasses && f.classes < 2 {
			return fmt.Errorf("header with %d classes: a multi-class CCM has 2 or more (the distituent label one of them)", f.classes)
		}
		e.Header = &Header{Family: f.family, Unit: u, Events: f.events, Model: f.model, Corpus: f.corpus,
			StopValence: f.stopValence, ChildValence: f.childValence, Deficient: f.deficient, Classes: f.classes, Refine: f.refine}
		return f.finishVB(e.Header)
	}
	// The DMV's kinds, thousands per model, check first what a whole
	// event has and join the errors only when something is missing.
	switch e.Ev {
	case EvRoot:
		err = need(e.Arg != "", "arg")
	case EvChild, EvBackoff:
		if e.Head == "" || e.Arg == "" || e.Dir != Left && e.Dir != Right {
			err = errors.Join(need(e.Head != "", "head"), need(e.Arg != "", "arg"), checkDir(e.Dir))
		}
	case EvStop, EvCont:
		if e.Head == "" || f.hasAdj == f.hasVal || e.Dir != Left && e.Dir != Right {
			err = errors.Join(need(e.Head != "", "head"), checkDir(e.Dir))
			switch {
			case !f.hasAdj && !f.hasVal:
				err = errors.Join(err, need(false, "adj"))
			case f.hasAdj && f.hasVal:
				err = errors.Join(err, fmt.Errorf("%q event with both \"adj\" and \"val\"", e.Ev))
			}
		}
		if f.hasAdj {
			e.Adj = f.adj
		}
	case EvSpan:
		err = errors.Join(need(f.yield, "yield"), need(f.hasConstituent, "constituent"))
	case EvContext:
		err = errors.Join(need(e.Left != "", "left"), need(e.Right != "", "right"), need(f.hasConstituent, "constituent"))
	case EvUnseenSpan:
		err = errors.Join(need(f.hasConstituent, "constituent"), need(f.hasLength, "length"))
		if f.hasLength && f.length < 0 {
			err = fmt.Errorf("%q event with length %d", e.Ev, f.length)
		}
	case EvUnseenContext:
		err = need(f.hasConstituent, "constituent")
	case EvTrans:
		err = errors.Join(need(len(e.Prev) > 0, "prev"), need(e.Next != "", "next"))
	case EvEmit:
		err = errors.Join(need(e.State != "", "state"), need(e.Word != "", "word"))
	case EvUnseenWord:
		err = need(e.State != "", "state")
	case EvHalt, EvGo:
		err = errors.Join(need(e.Head != "", "head"), need(f.hasAdjLeft, "left_adj"), need(f.hasAdjRight, "right_adj"))
		if e.Ev == EvGo {
			err = errors.Join(err, checkDir(e.Dir))
		} else if e.Dir != "" {
			err = errors.Join(err, errors.New(`"halt" event with "dir": stopping entirely takes no side`))
		}
		e.AdjLeft, e.AdjRight = f.adjLeft, f.adjRight
	case "":
		err = errors.New(`record without "ev"`)
	default:
		err = fmt.Errorf("unknown event kind %q", e.Ev)
	}
	if err != nil {
		return err
	}
	if f.hasVal {
		if e.Ev != EvChild && e.Ev != EvBackoff && e.Ev != EvStop && e.Ev != EvCont {
			return fmt.Errorf("%q event with \"val\": only child, backoff, stop and cont have a valence", e.Ev)
		}
		if f.val < 0 || f.val >= MaxValence {
			return fmt.Errorf("%q event with valence %d: want 0 to %d", e.Ev, f.val, MaxValence-1)
		}
		e.Val, e.HasVal = f.val, true
	}
	if (f.hasAdjLeft || f.hasAdjRight) && e.Ev != EvHalt && e.Ev != EvGo {
		return fmt.Errorf("%q event with \"left_adj\" or \"right_adj\": only halt and go have them", e.Ev)
	}
	if f.hasConstituent {
		e.Constituent = f.constituent
	}
	if f.hasClass {
		switch {
		case !f.hasConstituent:
			return fmt.Errorf("%q event with \"class\": only the CCM's span, context, unseen_span and unseen_context have one", e.Ev)
		case !f.constituent:
			return fmt.Errorf("%q event with \"class\" and \"constituent\":false: the distituents have no class", e.Ev)
		case f.class < 1:
			return fmt.Errorf("%q event of class %d: the constituent classes are 1, 2, …", e.Ev, f.class)
		}
		e.Class = f.class
	}
	if f.hasLength {
		e.Length = f.length
	}
	if f.values != 1 {
		return fmt.Errorf("%q event needs exactly one of \"n\", \"p\", \"w\"", e.Ev)
	}
	return nil
}

// finishVB checks a header's variational-Bayes fields and sets them.
func (f *eventFields) finishVB(h *Header) error {
	switch {
	case !f.hasVBAlpha && !f.hasVBBound:
		return nil
	case !f.hasVBAlpha:
		return errors.New(`header with "vb_bound" but no "vb_alpha"`)
	case h.Unit != Prob:
		return fmt.Errorf(`header of unit %q with "vb_alpha": only a model of "p" is one of variational Bayes`, string(h.Unit))
	case !(f.vbAlpha > 0) || math.IsInf(f.vbAlpha, 1):
		return fmt.Errorf(`header with "vb_alpha" %v: want a finite number > 0`, f.vbAlpha)
	case f.hasVBBound && (math.IsNaN(f.vbBound) || math.IsInf(f.vbBound, 1)):
		return fmt.Errorf(`header with "vb_bound" %v: want a number or "-inf"`, f.vbBound)
	}
	h.VBAlpha = f.vbAlpha
	if f.hasVBBound {
		b := f.vbBound
		h.VBBound = &b
	}
	return nil
}

// Validate checks what a well-formed event holds, for the readers of
// models and counts: the numbers of models and counts are finite (a count
// or probability ≥ 0, a probability ≤ 1, a log-linear weight any finite
// number); a stats record counts sentences and tokens ≥ 0 and its loglik
// is a number or −inf; and a sentence record is no event at all.
func (e *Event) Validate() error {
	switch {
	case e.notEvent:
		return ErrNotEvent
	case e.Ev == EvHeader:
		return nil
	case e.Ev == EvStats:
		st := e.Stats
		switch {
		case st.Sentences < 0 || st.Tokens < 0:
			return errors.New("stats record with a negative number of sentences or tokens")
		case st.LeftOut < 0 || st.LeftOut > st.Sentences:
			return fmt.Errorf("stats record with %d of its %d sentences left out", st.LeftOut, st.Sentences)
		case math.IsNaN(st.Loglik) || math.IsInf(st.Loglik, 1):
			// A sum of log Z: a number, or −inf when a sentence has
			// weight 0 (positive under log-linear or re-weighted models).
			return fmt.Errorf("stats record with loglik %v: want a number or \"-inf\"", st.Loglik)
		}
		return nil
	}
	switch {
	case math.IsNaN(e.Value) || math.IsInf(e.Value, 0):
		return fmt.Errorf("%q value %v is not a finite number", string(e.Unit), e.Value)
	case e.Unit != Weight && e.Value < 0:
		return fmt.Errorf("%q value %v is negative", string(e.Unit), e.Value)
	case e.Unit == Prob && e.Value > 1:
		return fmt.Errorf("probability %v is more than 1", e.Value)
	}
	return nil
}

// ErrNotEvent is the error for a sentence or lattice record read where a
// model or counts are due: a corpus given in the wrong place. The readers
// of models and of counts say which was due (eventio).
var ErrNotEvent = errors.New(`a sentence record (it has "tags" or "words"), not an event of a model or counts`)

func checkDir(d string) error {
	if d != Left && d != Right {
		return fmt.Errorf("dir must be %q or %q, not %q", Left, Right, d)
	}
	return nil
}

// Real is a float64 whose JSON form allows the values JSON lacks: -Inf, +Inf
// and NaN are written as the strings "-inf", "inf" and "nan".
type Real float64

// MarshalJSON writes finite numbers in their shortest exact form.
func (r Real) MarshalJSON() ([]byte, error) { return appendReal(nil, float64(r)), nil }

// UnmarshalJSON reads a number or one of the strings MarshalJSON writes.
func (r *Real) UnmarshalJSON(data []byte) error {
	switch string(data) {
	case `"nan"`:
		*r = Real(math.NaN())
		return nil
	case `"inf"`, `"+inf"`:
		*r = Real(math.Inf(1))
		return nil
	case `"-inf"`:
		*r = Real(math.Inf(-1))
		return nil
	}
	f, err := strconv.ParseFloat(string(data), 64)
	if err != nil {
		return fmt.Errorf("not a number: %s", data)
	}
	*r = Real(f)
	return nil
}
