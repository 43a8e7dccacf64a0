package modelu

import (
	"fmt"
	"io"
	"math"
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
	var m *Model
	var want int
	events := 0
	err = pipeline.EachRecordIn(in, nil, func(l *line, at *pipeline.Lines) error {
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
			m = New(l.Tags, l.Spelling)
			m.Nbhd = l.Nbhd
			if len(m.tagID) != len(l.Tags) {
				return at.Errorf("a tag twice in the header")
			}
			want = *l.Events
			return nil
		}
		if events++; events > want {
			return at.Errorf("more events than the header's %d", want)
		}
		if math.IsNaN(l.W) || math.IsInf(l.W, 0) {
			return at.Errorf("a weight of %v", l.W)
		}
		tag := func(name string) (int32, error) {
			id, ok := m.tagID[name]
			if !ok {
				return 0, fmt.Errorf("tag %q is not among the header's tags", name)
			}
			return int32(id), nil
		}
		affix := func(name string) (int32, error) {
			if len(name) < 2 || (name[0] != '-') == (name[len(name)-1] != '-') {
				return 0, fmt.Errorf("affix %q: a suffix is \"-s\", a prefix \"s-\"", name)
			}
			id, ok := m.affixID[name]
			if !ok {
				id = len(m.Affixes)
				m.Affixes = append(m.Affixes, name)
				m.affixID[name] = id
			}
			return int32(id), nil
		}
		var k Key
		var e1, e2 error
		switch {
		case l.Ev == "uedge":
			k.Kind = KindEdge
			k.A, e1 = tag(l.Left)
			k.B, e2 = tag(l.Right)
		case l.Ev == "uspell" && !m.Spelling:
			return at.Errorf("a uspell record in a model whose header says spelling false")
		case l.Ev == "uspell" && l.Affix == "right":
			k.Kind = KindRightAffix
			k.A, e1 = tag(l.Left)
			k.B, e2 = affix(l.Right)
		case l.Ev == "uspell" && l.Affix == "left":
			k.Kind = KindLeftAffix
			k.A, e1 = affix(l.Left)
			k.B, e2 = tag(l.Right)
		case l.Ev == "uspell":
			return at.Errorf("a uspell record needs \"affix\": \"left\" or \"right\" (the side of the affix's word)")
		case l.Ev == format.EvHeader:
			return at.Errorf("a second header")
		default:
			return at.Errorf(`event %q: a Model U file has "uedge" and "uspell" records`, l.Ev)
		}
		if e1 != nil {
			return at.Errorf("%v", e1)
		}
		if e2 != nil {
			return at.Errorf("%v", e2)
		}
		if _, dup := m.feat[k]; dup {
			return at.Errorf("%s %s/%s given twice", l.Ev, l.Left, l.Right)
		}
		m.feat[k] = len(m.Keys)
		m.Keys = append(m.Keys, k)
		m.Theta = append(m.Theta, l.W)
		return nil
	})
	if err != nil {
		return nil, err
	}
	where := func(f string, args ...any) error {
		return &pipeline.LineError{File: in.Name, Err: fmt.Errorf(f, args...)}
	}
	switch {
	case m == nil:
		return nil, where("empty: not a Model U file (train-ce --family modelu writes one)")
	case events < want:
		return nil, where("cut off: the header says %d events, the file has %d", want, events)
	}
	return m, nil
}
