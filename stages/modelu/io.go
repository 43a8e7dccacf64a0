package modelu

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/eventio"
)

// A Model U file is a header then one record per represented feature:
//
//	{"ev":"header","family":"modelu","unit":"w","tags":[…],"spelling":false,"nbhd":"trans2","events":N}
//	{"ev":"uedge","left":"DT","right":"NN","w":0.82}
//	{"ev":"uspell","left":"CD","right":"-%","affix":"right","w":1.45}
//
// uedge is the edge between a word tagged left and a later word tagged
// right; uspell the edge between a tag and an affix of the other word,
// affix saying which side the affix's word stands on ("-s" a suffix,
// "s-" a prefix).
type header struct {
	Ev       string   `json:"ev"`
	Family   string   `json:"family"`
	Unit     string   `json:"unit"`
	Tags     []string `json:"tags"`
	Spelling bool     `json:"spelling"`
	Nbhd     string   `json:"nbhd,omitempty"`
	Events   int      `json:"events"`
}

type record struct {
	Ev    string  `json:"ev"`
	Left  string  `json:"left"`
	Right string  `json:"right"`
	Affix string  `json:"affix,omitempty"`
	W     float64 `json:"w"`
}

type line struct {
	record
	N        *float64 `json:"n"`
	Model    string   `json:"model"`
	Corpus   string   `json:"corpus"`
	Family   string   `json:"family"`
	Unit     string   `json:"unit"`
	Tags     []string `json:"tags"`
	Spelling bool     `json:"spelling"`
	Nbhd     string   `json:"nbhd"`
	Events   *int     `json:"events"`
}

func (m *Model) record(i int) record {
	k, w := m.Keys[i], m.Theta[i]
	switch k.Kind {
	case KindEdge:
		return record{Ev: "uedge", Left: m.Tags[k.A], Right: m.Tags[k.B], W: w}
	case KindRightAffix:
		return record{Ev: "uspell", Left: m.Tags[k.A], Right: m.Affixes[k.B], Affix: "right", W: w}
	default:
		return record{Ev: "uspell", Left: m.Affixes[k.A], Right: m.Tags[k.B], Affix: "left", W: w}
	}
}

// Write writes the model; a weight that is not finite is refused before
// anything is written.
func (m *Model) Write(w io.Writer) error {
	for _, v := range m.Theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("the model made is not valid (a weight of %v): nothing written", v)
		}
	}
	h := header{Ev: format.EvHeader, Family: Family, Unit: string(format.Weight), Tags: m.Tags, Spelling: m.Spelling, Nbhd: m.Nbhd, Events: len(m.Keys)}
	if err := pipeline.WriteRecord(w, h); err != nil {
		return err
	}
	for i := range m.Keys {
		if err := pipeline.WriteRecord(w, m.record(i)); err != nil {
			return err
		}
	}
	return nil
}

// Hash identifies the model by its content.
func (m *Model) Hash() string {
	parts := []string{Family, strings.Join(m.Tags, "\x00"), strconv.FormatBool(m.Spelling)}
	for i := range m.Keys {
		r := m.record(i)
		parts = append(parts, r.Ev+"\x00"+r.Left+"\x00"+r.Right+"\x00"+r.Affix+"\x00"+strconv.FormatFloat(r.W, 'g', -1, 64))
	}
	return eventio.HashStrings(parts...)
}

// Read reads a Model U file, checking it whole: the header, every
// record's tags and affixes, no feature twice, finite weights, and the
// count of events.
func Read(path string) (*Model, error) {
	in, err := pipeline.Open(path, nil)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	var r modelReader
	short := r.short
	if !shortRoad {
		short = nil
	}
	if err := pipeline.EachRecordReusedOr(in, nil, short, r.line); err != nil {
		return nil, err
	}
	where := func(f string, args ...any) error {
		return &pipeline.LineError{File: in.Name, Err: fmt.Errorf(f, args...)}
	}
	switch {
	case r.m == nil:
		return nil, where("empty: not a Model U file (train-ce --family modelu writes one)")
	case r.events < r.want:
		return nil, where("cut off: the header says %d events, the file has %d", r.want, r.events)
	}
	return r.m, nil
}

// shortRoad lets the tests read by the long road alone.
var shortRoad = true

// modelReader is Read's state: the model so far, the events the header
// promised and those read.
type modelReader struct {
	m            *Model
	want, events int
	vals         [4][]byte
}

// The fields of a feature's line as Write writes them.
var (
	edgeKeys  = []string{"ev", "left", "right", "w"}
	spellKeys = []string{"ev", "left", "right", "affix", "w"}
)

// scanFeature reads a feature's line as Write or WriteCounts writes it
// (format.ScanPlainRecord), a uedge line's fields edge, a uspell line's
// spell: into vals its ev, left, right (and affix), and it returns the
// affix (nil for a uedge line) and the line's number; false for any other
// line, or a number that is not finite.
func scanFeature(text []byte, edge, spell []string, vals *[4][]byte) (affix []byte, v float64, ok bool) {
	keys, ev := edge, "uedge"
	if bytes.HasPrefix(text, []byte(`{"ev":"uspell"`)) {
		keys, ev = spell, "uspell"
	}
	v, ok = format.ScanPlainRecord(text, keys, vals[:])
	if !ok || string(vals[0]) != ev || math.IsNaN(v) || math.IsInf(v, 0) {
		return nil, 0, false
	}
	if ev == "uspell" {
		affix = vals[3]
	}
	return affix, v, true
}

// short is Read's short road: a feature's line as Write writes it
// (format.ScanPlainRecord), taken when the long road would take it
// without error; anything else is left to line, which says what is
// wrong. A spelling model's 37,553 lines (UD Turkish) are most of what
// select-model and decode read of it.
func (r *modelReader) short(text []byte, _ *pipeline.Lines) bool {
	m := r.m
	if m == nil || r.events >= r.want {
		return false
	}
	affix, w, ok := scanFeature(text, edgeKeys, spellKeys, &r.vals)
	if !ok {
		return false
	}
	k, err := m.key(r.vals[0], r.vals[1], r.vals[2], affix)
	if err != nil {
		return false
	}
	if _, dup := m.feat[k]; dup {
		return false
	}
	r.events++
	m.add(k, w)
	return true
}

// line is Read's long road: any line, decoded.
func (r *modelReader) line(l *line, at *pipeline.Lines) error {
	m := r.m
	if m == nil {
		switch {
		case l.Ev != format.EvHeader || l.Family != Family:
			return at.Errorf("not a Model U file: it must begin with {\"ev\":\"header\",\"family\":%q,...} (train-ce --family modelu writes one)", Family)
		case l.Unit != string(format.Weight):
			return at.Errorf("unit %q: a Model U file holds weights (\"w\")", l.Unit)
		case len(l.Tags) == 0:
			return at.Errorf("the header lists no tags")
		case l.Events == nil || *l.Events < 0:
			return at.Errorf("the header needs \"events\", the number of records")
		}
		r.m = New(l.Tags, l.Spelling)
		r.m.Nbhd = l.Nbhd
		if len(r.m.tagID) != len(l.Tags) {
			return at.Errorf("a tag twice in the header")
		}
		r.want = *l.Events
		// Room for the events promised, within reason: the header is
		// not yet proved right.
		n := min(r.want, 1<<20)
		r.m.feat = make(map[Key]int, n)
		r.m.Keys, r.m.Theta = make([]Key, 0, n), make([]float64, 0, n)
		return nil
	}
	if r.events++; r.events > r.want {
		return at.Errorf("more events than the header's %d", r.want)
	}
	if math.IsNaN(l.W) || math.IsInf(l.W, 0) {
		return at.Errorf("a weight of %v", l.W)
	}
	k, err := m.key([]byte(l.Ev), []byte(l.Left), []byte(l.Right), []byte(l.Affix))
	if err != nil {
		return at.Errorf("%v", err)
	}
	if _, dup := m.feat[k]; dup {
		return at.Errorf("%s %s/%s given twice", l.Ev, l.Left, l.Right)
	}
	m.add(k, l.W)
	return nil
}

// key is the feature a record of event ev names, a new affix taken into
// m's.
func (m *Model) key(ev, left, right, affix []byte) (Key, error) {
	tag := func(name []byte) (int32, error) {
		id, ok := m.tagID[string(name)]
		if !ok {
			return 0, fmt.Errorf("tag %q is not among the header's tags", name)
		}
		return int32(id), nil
	}
	affixID := func(name []byte) (int32, error) {
		// A suffix begins with "-", a prefix ends with one; a word's
		// own hyphens make names like "--" (the suffix of "re-") or
		// "-x-", which are one feature whichever affix made them.
		if len(name) < 2 || name[0] != '-' && name[len(name)-1] != '-' {
			return 0, fmt.Errorf("affix %q: a suffix is \"-s\", a prefix \"s-\"", name)
		}
		id, ok := m.affixID[string(name)]
		if !ok {
			id = len(m.Affixes)
			m.Affixes = append(m.Affixes, string(name))
			m.affixID[m.Affixes[id]] = id
		}
		return int32(id), nil
	}
	var k Key
	var e1, e2 error
	switch {
	case string(ev) == "uedge":
		k.Kind = KindEdge
		k.A, e1 = tag(left)
		k.B, e2 = tag(right)
	case string(ev) == "uspell" && !m.Spelling:
		return k, errors.New("a uspell record in a model whose header says spelling false")
	case string(ev) == "uspell" && string(affix) == "right":
		k.Kind = KindRightAffix
		k.A, e1 = tag(left)
		k.B, e2 = affixID(right)
	case string(ev) == "uspell" && string(affix) == "left":
		k.Kind = KindLeftAffix
		k.A, e1 = affixID(left)
		k.B, e2 = tag(right)
	case string(ev) == "uspell":
		return k, errors.New("a uspell record needs \"affix\": \"left\" or \"right\" (the side of the affix's word)")
	case string(ev) == format.EvHeader:
		return k, errors.New("a second header")
	default:
		return k, fmt.Errorf(`event %q: a Model U file has "uedge" and "uspell" records`, ev)
	}
	return k, cmp.Or(e1, e2)
}

// Model U's counts (estep -m on a Model U model) are a header, one record
// per feature of the model with its expected count "n", and a stats
// record:
//
//	{"ev":"header","family":"modelu","unit":"n","tags":[…],"spelling":false,"model":"…","corpus":"…","events":N}
//	{"ev":"uedge","left":"DT","right":"NN","n":12.5}
//	{"ev":"stats","sentences":95,"tokens":640,"loglik":-123.4}
//
// Shards of one model concatenate: their counts add (sumcounts).
type countsHeader struct {
	header
	Model  string `json:"model"`
	Corpus string `json:"corpus"`
}

type countRecord struct {
	Ev    string  `json:"ev"`
	Left  string  `json:"left"`
	Right string  `json:"right"`
	Affix string  `json:"affix,omitempty"`
	N     float64 `json:"n"`
}

// WriteCounts writes counts n of m's features, of the model of hash
// model over the corpus of hash corpus, then stats; a count that is not
// finite is refused before anything is written.
func (m *Model) WriteCounts(w io.Writer, n []float64, model, corpus string, stats *format.Stats) error {
	for _, v := range n {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("a count of %v: nothing written", v)
		}
	}
	h := countsHeader{header{Ev: format.EvHeader, Family: Family, Unit: string(format.Count), Tags: m.Tags, Spelling: m.Spelling, Events: len(m.Keys)}, model, corpus}
	if err := pipeline.WriteRecord(w, h); err != nil {
		return err
	}
	for i := range m.Keys {
		r := m.record(i)
		if err := pipeline.WriteRecord(w, countRecord{r.Ev, r.Left, r.Right, r.Affix, n[i]}); err != nil {
			return err
		}
	}
	return pipeline.WriteRecord(w, format.Event{Ev: format.EvStats, Stats: stats})
}

// Counts are Model U's count shards added up.
type Counts struct {
	Tags     []string
	Spelling bool
	Model    string // the hash of the model every shard's E-step ran with
	Corpus   string // the order-free sum of the shards' corpus hashes
	Shards   int
	Stats    format.Stats
	// Names and N are the features counted, in the first shard's order
	// (a record's ev, left, right and affix), and their counts.
	Names [][4]string
	N     []float64
}

// ReadCounts reads and adds the count shards of src: each a header, its
// events and a stats record, all of one model. A shard cut short, of
// another model or a feature twice in a shard is an error at its line.
func ReadCounts(src pipeline.Source) (*Counts, error) {
	r := countsReader{index: map[string]int{}}
	short := r.short
	if !shortRoad {
		short = nil
	}
	err := pipeline.EachInput(src.Names, src.Stdin, func(in *pipeline.Input) error {
		return pipeline.EachRecordReusedOr(in, src.Bad, short, r.line)
	})
	if err != nil {
		return nil, err
	}
	c := r.c
	where := pipeline.DescribeInputs(src.Names)
	switch {
	case c == nil:
		return nil, fmt.Errorf("%s: no counts", where)
	case r.inShard:
		return nil, &pipeline.LineError{File: r.lastName, Line: r.lastLine, Err: errors.New("a shard without its stats record: cut short")}
	}
	c.Corpus = fmt.Sprintf("%016x", r.corpus)
	return c, nil
}

// countsReader is ReadCounts' state: the counts so far, and the shard
// being read.
type countsReader struct {
	c *Counts
	// index numbers the features counted, by name: a record's ev, left,
	// right and affix, each followed by a 0 byte.
	index  map[string]int
	corpus uint64 // the sum of the shards' corpus hashes
	// inShard is whether a shard's header has been read and not yet its
	// stats; want is its header's events, events those read so far.
	inShard      bool
	want, events int
	shard        int32   // the shards begun
	seenIn       []int32 // by feature, the last shard that counted it
	key          []byte
	vals         [4][]byte

	lastName string // where the last line read was
	lastLine int
}

// The fields of a count's line as WriteCounts writes them.
var (
	edgeCountKeys  = []string{"ev", "left", "right", "n"}
	spellCountKeys = []string{"ev", "left", "right", "affix", "n"}
)

// short is ReadCounts' short road: a count's line as WriteCounts writes
// it (format.ScanPlainRecord), taken when the long road would take it
// without error; anything else is left to line. A spelling model's
// counts are 37,553 lines (UD Turkish), read twice by every ce-step of
// Model U's shell loop.
func (r *countsReader) short(text []byte, at *pipeline.Lines) bool {
	if !r.inShard || r.events >= r.want {
		return false
	}
	affix, n, ok := scanFeature(text, edgeCountKeys, spellCountKeys, &r.vals)
	if !ok || !r.add(r.vals[0], r.vals[1], r.vals[2], affix, n) {
		return false
	}
	r.lastName, r.lastLine = at.Name(), at.Line()
	return true
}

// add counts n for the feature named, unless the shard has counted it
// already (false).
func (r *countsReader) add(ev, left, right, affix []byte, n float64) bool {
	r.key = r.key[:0]
	for _, f := range [4][]byte{ev, left, right, affix} {
		r.key = append(append(r.key, f...), 0)
	}
	c := r.c
	i, ok := r.index[string(r.key)]
	if !ok {
		i = len(c.Names)
		r.index[string(r.key)] = i
		c.Names = append(c.Names, [4]string{string(ev), string(left), string(right), string(affix)})
		c.N = append(c.N, 0)
		r.seenIn = append(r.seenIn, 0)
	} else if r.seenIn[i] == r.shard {
		return false
	}
	r.seenIn[i] = r.shard
	c.N[i] += n
	r.events++
	return true
}

// line is ReadCounts' long road: any line, decoded.
func (r *countsReader) line(raw *countLine, at *pipeline.Lines) error {
	r.lastName, r.lastLine = at.Name(), at.Line()
	l := raw.line
	if !r.inShard {
		switch {
		case l.Ev != format.EvHeader || l.Family != Family:
			return at.Errorf("not Model U's counts: a shard must begin with {\"ev\":\"header\",\"family\":%q,...} (estep -m on a Model U model writes them)", Family)
		case l.Unit != string(format.Count):
			return at.Errorf("unit %q: counts are \"n\" (a model, \"w\", is not counts)", l.Unit)
		case l.Events == nil || *l.Events < 0 || l.Model == "" || l.Corpus == "":
			return at.Errorf("a counts header needs \"events\", \"model\" and \"corpus\"")
		}
		sum, err := strconv.ParseUint(l.Corpus, 16, 64)
		if err != nil {
			return at.Errorf("corpus %q is not a hash of 16 hex digits", l.Corpus)
		}
		if r.c == nil {
			r.c = &Counts{Tags: l.Tags, Spelling: l.Spelling, Model: l.Model}
		} else if r.c.Model != l.Model || r.c.Spelling != l.Spelling || !slices.Equal(r.c.Tags, l.Tags) {
			return at.Errorf("a shard of another model (%s) than the first's (%s)", l.Model, r.c.Model)
		}
		r.corpus += sum
		r.inShard, r.want, r.events = true, *l.Events, 0
		r.shard++
		return nil
	}
	if l.Ev == format.EvStats {
		if r.events != r.want {
			return at.Errorf("a shard of %d events where its header says %d: cut short", r.events, r.want)
		}
		s := raw.stats
		c := r.c
		c.Stats.Sentences += s.Sentences
		c.Stats.Tokens += s.Tokens
		c.Stats.Loglik += s.Loglik
		c.Stats.LeftOut += s.LeftOut
		c.Shards++
		r.inShard = false
		return nil
	}
	if l.Ev != "uedge" && l.Ev != "uspell" {
		return at.Errorf(`event %q: Model U's counts have "uedge" and "uspell" records, then "stats"`, l.Ev)
	}
	if l.N == nil || math.IsNaN(*l.N) || math.IsInf(*l.N, 0) {
		return at.Errorf("a count needs a finite \"n\"")
	}
	if r.events >= r.want {
		return at.Errorf("more events than the header's %d", r.want)
	}
	if !r.add([]byte(l.Ev), []byte(l.Left), []byte(l.Right), []byte(l.Affix), *l.N) {
		return at.Errorf("%s %s/%s counted twice in a shard", l.Ev, l.Left, l.Right)
	}
	return nil
}

// countLine is one line of counts: a header, a count or stats.
type countLine struct {
	line  line
	stats format.Stats
}

func (r *countLine) UnmarshalJSON(b []byte) error {
	if err := format.Unmarshal(b, &r.line); err != nil {
		return err
	}
	if r.line.Ev == format.EvStats {
		var e format.Event
		if err := e.UnmarshalJSON(b); err != nil {
			return err
		}
		r.stats = *e.Stats
	}
	return nil
}

// Feature is the id of the feature a count record names (ev, left,
// right, affix), −1 when m does not have it.
func (m *Model) Feature(name [4]string) int {
	var k Key
	tag := func(t string) (int32, bool) { id, ok := m.tagID[t]; return int32(id), ok }
	affix := func(a string) (int32, bool) { id, ok := m.affixID[a]; return int32(id), ok }
	var ok1, ok2 bool
	switch {
	case name[0] == "uedge":
		k.Kind = KindEdge
		k.A, ok1 = tag(name[1])
		k.B, ok2 = tag(name[2])
	case name[0] == "uspell" && name[3] == "right":
		k.Kind = KindRightAffix
		k.A, ok1 = tag(name[1])
		k.B, ok2 = affix(name[2])
	case name[0] == "uspell" && name[3] == "left":
		k.Kind = KindLeftAffix
		k.A, ok1 = affix(name[1])
		k.B, ok2 = tag(name[2])
	}
	if !ok1 || !ok2 {
		return -1
	}
	if i, ok := m.feat[k]; ok {
		return i
	}
	return -1
}

// Write writes the added counts as one shard.
func (c *Counts) Write(w io.Writer) error {
	h := countsHeader{header{Ev: format.EvHeader, Family: Family, Unit: string(format.Count), Tags: c.Tags, Spelling: c.Spelling, Events: len(c.Names)}, c.Model, c.Corpus}
	if err := pipeline.WriteRecord(w, h); err != nil {
		return err
	}
	for i, n := range c.Names {
		if err := pipeline.WriteRecord(w, countRecord{n[0], n[1], n[2], n[3], c.N[i]}); err != nil {
			return err
		}
	}
	stats := c.Stats
	return pipeline.WriteRecord(w, format.Event{Ev: format.EvStats, Stats: &stats})
}
