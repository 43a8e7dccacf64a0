package format

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
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

// Mantissas of 16–19 digits, the integer road's, at every power of ten
// it takes and past them; and exact ties between two float64s, which
// round to the even one.
func TestParseNumberLongMantissas(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 300000 {
		digits := 16 + rng.IntN(4)
		m := rng.Uint64N(uintPowers[digits-1]*9) + uintPowers[digits-1]
		text := strconv.FormatUint(m, 10)
		switch e := rng.IntN(50) - 25; {
		case rng.IntN(2) == 0: // a decimal point inside
			p := 1 + rng.IntN(len(text)-1)
			text = text[:p] + "." + text[p:] + "e" + strconv.Itoa(e)
		default:
			text += "e" + strconv.Itoa(e)
		}
		checkParseNumber(t, text)
	}
	for range 100000 {
		// The tie between x = N·2^−k (N of 53 bits) and the next float64
		// has k+1 decimals, 17–19 digits for k ≤ 2; and its neighbours a
		// last digit away, which are no ties.
		k := rng.IntN(3)
		n := 1<<52 + rng.Int64N(1<<52)
		tie := new(big.Float).SetPrec(200).SetInt64(2*n + 1)
		tie.SetMantExp(tie, -k-1)
		text := tie.Text('f', k+1)
		digits := strings.Replace(text, ".", "", 1)
		checkParseNumber(t, text)
		checkParseNumber(t, digits+"e-"+strconv.Itoa(k+1))
		last, _ := strconv.ParseUint(digits, 10, 64)
		checkParseNumber(t, strconv.FormatUint(last+1, 10)+"e-"+strconv.Itoa(k+1))
		checkParseNumber(t, strconv.FormatUint(last-1, 10)+"e-"+strconv.Itoa(k+1))
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
