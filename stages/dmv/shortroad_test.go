package dmv

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
)

// The readers' short road (scanLine) must give what the long road
// (format.Event, Validate, add) gives: the same table, or the same error
// at the same line, on every input.

// byRoads reads data by both roads with read, and fails unless they agree.
func byRoads(t testing.TB, data []byte, read func([]byte) (*Table, error)) (*Table, error) {
	t.Helper()
	short, shortErr := read(data)
	shortRoad = false
	long, longErr := read(data)
	shortRoad = true
	switch {
	case (shortErr == nil) != (longErr == nil):
		t.Fatalf("%s\nthe short road: %v; the long road: %v", data, shortErr, longErr)
	case shortErr != nil:
		if shortErr.Error() != longErr.Error() {
			t.Fatalf("%s\nthe short road: %v; the long road: %v", data, shortErr, longErr)
		}
	case describeTable(short) != describeTable(long):
		t.Fatalf("%s\nthe short road reads\n%s\nthe long road\n%s", data, describeTable(short), describeTable(long))
	}
	return short, shortErr
}

// describeTable is everything a table holds, every number's bits too.
func describeTable(t *Table) string {
	var b strings.Builder
	fmt.Fprintf(&b, "unit %c tags %q events %d model %s corpus %s shards %d\n", t.Unit, t.Tags.Names(), t.events, t.Model, t.Corpus, t.Shards)
	if t.Stats != nil {
		fmt.Fprintf(&b, "stats %d %d %x\n", t.Stats.Sentences, t.Stats.Tokens, math.Float64bits(t.Stats.Loglik))
	}
	for _, tab := range t.Params.Tables() {
		for _, v := range tab {
			fmt.Fprintf(&b, "%x ", math.Float64bits(v))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func readModelRoads(t testing.TB, data []byte) (*Table, error) {
	return byRoads(t, data, func(d []byte) (*Table, error) { return readModelBytes(t, d) })
}

func readCountsRoads(t testing.TB, data []byte) (*Table, error) {
	return byRoads(t, data, readCountsBytes)
}

// oddCounts are counts with the numbers a reader can trip on: 0, −0,
// denormals, 1e−300, integers, exponents both ways, 2^53 ± 1, 17 digits.
func oddCounts(rng *rand.Rand, t int) *Params {
	odd := []float64{0, math.Copysign(0, -1), 5e-324, 2.5e-320, 2.2250738585072014e-308, 1e-300, 1e-22, 1e-23,
		1, 7, 12345, 1 << 53, 1<<53 + 2, 9007199254740993, 1e22, 1e23, 1e300, 168.463438845793,
		0.031272218089064975, 1.5e-7, 123.456e-7, 0.1, 0.3, 2.0 / 3}
	p := NewParams(t)
	for _, tab := range p.Tables() {
		for i := range tab {
			if rng.IntN(3) == 0 {
				tab[i] = odd[rng.IntN(len(odd))]
			} else {
				tab[i] = rng.Float64() * math.Pow(10, float64(rng.IntN(20)-10))
			}
		}
	}
	return p
}

// mutations of one line of a model or counts: what an edit, a cut or a
// bad writer can make of it.
var lineMutations = []func(line string) string{
	func(l string) string { return "" },
	func(l string) string { return l + "\n" + l },
	func(l string) string { return l[:len(l)/2] },
	func(l string) string { return strings.Replace(l, `"n":`, `"p":`, 1) },
	func(l string) string { return strings.Replace(l, `"p":`, `"w":`, 1) },
	func(l string) string { return strings.Replace(l, `"w":`, `"n":`, 1) },
	func(l string) string { return strings.Replace(l, `"left"`, `"up"`, 1) },
	func(l string) string { return strings.Replace(l, `"right"`, `"left"`, 1) },
	func(l string) string { return strings.Replace(l, `"adj":true`, `"adj":false`, 1) },
	func(l string) string { return strings.Replace(l, `"arg":"A"`, `"arg":""`, 1) },
	func(l string) string { return strings.Replace(l, `"head":"B"`, `"head":""`, 1) },
	func(l string) string { return strings.Replace(l, `"head":"B"`, `"head":"Z"`, 1) },
	func(l string) string { return strings.Replace(l, `"arg":"A"`, `"arg":"A\u0042"`, 1) },
	func(l string) string { return strings.Replace(l, `"ev":"child"`, `"ev":"span"`, 1) },
	func(l string) string { return strings.Replace(l, `"ev":"stop"`, `"ev":"cont"`, 1) },
	func(l string) string { return " " + l + " " },
	func(l string) string { return strings.Replace(l, `,"`, `, "`, 1) },
	func(l string) string { return l[:len(l)-1] + `,"x":1}` },
	func(l string) string { return replaceValue(l, "-1") },
	func(l string) string { return replaceValue(l, "-0") },
	func(l string) string { return replaceValue(l, "2") },
	func(l string) string { return replaceValue(l, "1e999") },
	func(l string) string { return replaceValue(l, `"inf"`) },
	func(l string) string { return replaceValue(l, `"nan"`) },
	func(l string) string { return replaceValue(l, "1e-400") },
	func(l string) string { return replaceValue(l, "1e308") },
	func(l string) string { return replaceValue(l, "800") },
	func(l string) string { return replaceValue(l, "0.5") },
	func(l string) string { return replaceValue(l, "01") },
}

// replaceValue puts v in place of a line's number (the last field).
func replaceValue(l, v string) string {
	i := strings.LastIndexByte(l, ':')
	if i < 0 || !strings.HasSuffix(l, "}") {
		return l
	}
	return l[:i+1] + v + "}"
}

// mutated gives data with line k mutated by each mutation in turn.
func mutated(data []byte, k int, fn func([]byte)) {
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for _, m := range lineMutations {
		edit := append([]string(nil), lines...)
		edit[k] = m(edit[k])
		fn([]byte(strings.Join(edit, "\n") + "\n"))
	}
}

func TestShortRoadModels(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	ts := NewTagSet("A", "B", "C")
	for _, unit := range []format.Unit{format.Prob, format.Weight} {
		data := writeModel(t, ts, randomWeights(rng, 3, unit == format.Prob), unit)
		if _, err := readModelRoads(t, data); err != nil {
			t.Fatal(err)
		}
		for k := range bytes.Count(data, []byte("\n")) {
			mutated(data, k, func(d []byte) { readModelRoads(t, d) })
		}
	}
}

func TestShortRoadCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	ts := NewTagSet("A", "B", "C")
	a := writeCounts(t, ts, oddCounts(rng, 3), "0000000000000001")
	b := writeCounts(t, ts, oddCounts(rng, 3), "0000000000000002")
	for _, data := range [][]byte{a, append(append([]byte(nil), a...), b...)} {
		if _, err := readCountsRoads(t, data); err != nil {
			t.Fatal(err)
		}
		for k := range bytes.Count(data, []byte("\n")) {
			mutated(data, k, func(d []byte) { readCountsRoads(t, d) })
		}
	}
	// Counts that add up beyond floating point: the same error.
	big := NewParams(3)
	big.Fill(1e308)
	c := writeCounts(t, ts, big, "0000000000000001")
	d := writeCounts(t, ts, big, "0000000000000002")
	if _, err := readCountsRoads(t, append(c, d...)); err == nil {
		t.Error("an overflowing total was accepted")
	}
}

// The short road takes the lines grind writes (else it is no road).
func TestShortRoadTakesGrindLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	ts := NewTagSet("A", "B")
	lines := strings.Split(strings.TrimSpace(string(writeCounts(t, ts, oddCounts(rng, 2), "0000000000000001"))), "\n")
	b := &TableBuilder{Sum: true}
	for _, l := range lines[1 : len(lines)-1] {
		if _, ok := b.scanLine([]byte(l), format.Count); !ok {
			t.Errorf("%s: left to the long road", l)
		}
		b.commit()
	}
}

func FuzzShortRoad(f *testing.F) {
	rng := rand.New(rand.NewPCG(14, 14))
	ts := NewTagSet("A", "B")
	f.Add(writeModel(f, ts, randomWeights(rng, 2, true), format.Prob))
	f.Add(writeModel(f, ts, randomWeights(rng, 2, false), format.Weight))
	f.Add(writeCounts(f, ts, oddCounts(rng, 2), "0000000000000001"))
	f.Fuzz(func(t *testing.T, data []byte) {
		readModelRoads(t, data)
		readCountsRoads(t, data)
	})
}
