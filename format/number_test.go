package format

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// parseNumber must give strconv.ParseFloat's value, bit for bit (the
// sign of zero too), on every JSON number, by whichever road it takes.
func checkParseNumber(t *testing.T, text string) {
	t.Helper()
	s := scanner{data: []byte(text)}
	num, _, ok := s.number()
	if !ok || len(num) != len(text) {
		t.Fatalf("%q is not a JSON number", text)
	}
	got, ok := parseNumber(num)
	want, err := strconv.ParseFloat(text, 64)
	if ok != (err == nil) || math.Float64bits(got) != math.Float64bits(want) {
		t.Fatalf("%q: parseNumber gives %v (%v), strconv %v (%v)", text, got, ok, want, err)
	}
}

func TestParseNumberAsStrconv(t *testing.T) {
	for _, text := range []string{
		"0", "-0", "0.0", "-0.000", "0e5", "1", "-1", "7", "10", "100", "123456789",
		"9007199254740992", "9007199254740993", "9007199254740991", "18446744073709551615",
		"18446744073709551616", "99999999999999999999", "1234567890123456789012345",
		"0.1", "0.2", "0.3", "168.463438845793", "0.031272218089064975", "1e22", "1e23",
		"1e-22", "1e-23", "9007199254740993e-22", "1.5e300", "1e-300", "1e308", "1.7976931348623157e308",
		"1e309", "-1e309", "2e-308", "4.9e-324", "5e-324", "2.5e-324", "1e-400", "2.2250738585072014e-308",
		"2.2250738585072011e-308", "1E+3", "1e+03", "1e0000000005", "1e00000000000000000000001",
		"0.000000000000000000000000000001", "123.456e-7", "-123.456E7", "3.0e-5",
	} {
		checkParseNumber(t, text)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		var f float64
		switch rng.IntN(5) {
		case 0: // any bits: denormals, huge and tiny exponents
			f = math.Float64frombits(rng.Uint64())
			if math.IsNaN(f) || math.IsInf(f, 0) {
				continue
			}
		case 1: // counts and probabilities, as estep and mstep write them
			f = rng.Float64() * math.Pow(10, float64(rng.IntN(12)-6))
		case 2: // integers
			f = float64(rng.Int64N(1 << rng.IntN(63)))
		case 3: // decimals of few digits
			f = float64(rng.IntN(100000)) / math.Pow(10, float64(rng.IntN(10)))
		default: // near the fast road's edges: 2^53, 10^±22
			f = float64(1<<53+rng.IntN(20)-10) * math.Pow(10, float64(rng.IntN(50)-25))
		}
		for _, text := range []string{
			strconv.FormatFloat(f, 'g', -1, 64),
			strconv.FormatFloat(f, 'e', rng.IntN(25), 64),
			strconv.FormatFloat(f, 'f', rng.IntN(30), 64),
		} {
			if len(text) < 400 {
				checkParseNumber(t, text)
			}
		}
	}
}

func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "1.5", "1e22", "9007199254740993", "4.9e-324", "123.456e-7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s := scanner{data: []byte(text)}
		if num, _, ok := s.number(); ok && len(num) == len(text) {
			checkParseNumber(t, text)
		}
	})
}
