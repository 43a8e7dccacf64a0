package dmv

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/eventio"
)

func writeModel(t testing.TB, ts *TagSet, p *Params, unit format.Unit) []byte {
	var b bytes.Buffer
	if err := WriteTable(&b, ts, p, unit, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func writeCounts(t testing.TB, ts *TagSet, p *Params, corpus string) []byte {
	var b bytes.Buffer
	if err := WriteCounts(&b, ts, p, "00000000000000aa", corpus, &format.Stats{Sentences: 2, Tokens: 5, Loglik: -3}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func readModelBytes(t testing.TB, data []byte) (*Table, error) {
	return readModel(pipeline.Source{Stdin: bytes.NewReader(data)}, pipeline.StdinName)
}

func readCountsBytes(data []byte) (*Table, error) {
	return ReadCounts(pipeline.Source{Stdin: bytes.NewReader(data)}, 0)
}

func TestModelRoundTripAndTruncation(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	ts := NewTagSet("A", "B", "C")
	p := randomWeights(rng, 3, true)
	data := writeModel(t, ts, p, format.Prob)
	m, err := readModelBytes(t, data)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(writeModel(t, m.Tags, m.Params, m.Unit), data) {
		t.Error("model read and written again differs")
	}
	// Every cut at a line boundary, and every cut inside a line, is caught.
	lines := bytes.SplitAfter(data, []byte("\n"))
	for k := 1; k < len(lines)-1; k++ {
		cut := bytes.Join(lines[:k], nil)
		if _, err := readModelBytes(t, cut); err == nil {
			t.Fatalf("model cut after %d lines accepted", k)
		}
		mid := append(append([]byte(nil), cut...), lines[k][:len(lines[k])/2]...)
		if _, err := readModelBytes(t, mid); err == nil {
			t.Fatalf("model cut inside line %d accepted", k+1)
		}
	}
}

func TestCountStreamStructure(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	ts := NewTagSet("A", "B")
	a := writeCounts(t, ts, randomWeights(rng, 2, false), "0000000000000001")
	b := writeCounts(t, ts, randomWeights(rng, 2, false), "0000000000000002")
	sum, err := readCountsBytes(append(append([]byte(nil), a...), b...))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Stats.Sentences != 4 || sum.Corpus != "0000000000000003" || sum.Shards != 2 {
		t.Errorf("merged: %+v corpus %s shards %d", *sum.Stats, sum.Corpus, sum.Shards)
	}
	// Any line of either shard lost, anywhere in the stream, is caught.
	stream := bytes.SplitAfter(append(append([]byte(nil), a...), b...), []byte("\n"))
	for k := 0; k < len(stream)-1; k++ {
		lost := append(bytes.Join(stream[:k], nil), bytes.Join(stream[k+1:], nil)...)
		if _, err := readCountsBytes(lost); err == nil {
			t.Fatalf("stream without line %d accepted", k+1)
		}
	}
	if _, err := readCountsBytes(append(append([]byte(nil), a...), a...)); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a shard twice: %v", err)
	}
}

func TestWriterRefusesNonFinite(t *testing.T) {
	ts := NewTagSet("A")
	p := NewParams(1)
	p.Fill(0.5)
	p.Root[0] = math.NaN()
	var b bytes.Buffer
	if err := WriteTable(&b, ts, p, format.Prob, nil); err == nil || b.Len() != 0 {
		t.Errorf("NaN model written: %v, %q", err, b.String())
	}
	c := NewParams(1)
	c.Root[0] = math.Inf(1)
	if err := WriteCounts(&b, ts, c, eventio.ModelNone, "0000000000000001", &format.Stats{}); err == nil || b.Len() != 0 {
		t.Errorf("infinite count written: %v", err)
	}
}

// FuzzModelReader feeds ReadModel and ReadCounts arbitrary bytes: never a
// panic, and whatever they accept is valid and written back as read.
func FuzzModelReader(f *testing.F) {
	rng := rand.New(rand.NewPCG(9, 9))
	ts := NewTagSet("A", "B")
	f.Add(writeModel(f, ts, randomWeights(rng, 2, true), format.Prob))
	f.Add(writeModel(f, ts, randomWeights(rng, 2, false), format.Weight))
	f.Add(writeCounts(f, ts, randomWeights(rng, 2, false), "0000000000000001"))
	f.Add([]byte(`{"ev":"header","family":"dmv","unit":"p","events":1}` + "\n" + `{"ev":"root","arg":"A","p":1}` + "\n"))
	f.Add([]byte(`{"id":"s","tags":["A"]}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if m, err := readModelBytes(t, data); err == nil {
			if m.Unit == format.Prob {
				if err := CheckDistribution(m.Tags, m.Params); err != nil {
					t.Fatalf("accepted an invalid model: %v", err)
				}
			}
			again, err := readModelBytes(t, writeModel(t, m.Tags, m.Params, m.Unit))
			if err != nil || again.Hash() != m.Hash() {
				t.Fatalf("accepted model does not round-trip: %v", err)
			}
		}
		if c, err := readCountsBytes(data); err == nil {
			if err := checkFinite(c.Params, "counts"); err != nil {
				t.Fatal(err)
			}
			for _, tab := range c.Params.Tables() {
				for _, v := range tab {
					if v < 0 {
						t.Fatalf("negative total %v accepted", v)
					}
				}
			}
		}
	})
}
