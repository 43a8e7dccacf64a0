package format

import (
	"math"
	"math/bits"
	"strconv"
)

// parseNumber is strconv.ParseFloat(string(text), 64) for the text of a
// JSON number (scanner.number has checked its syntax). Models and counts
// hold thousands of numbers, read on every step of a shell loop; most of
// them, 0 and decimals of at most 15–16 digits, are read here without
// strconv: a mantissa below 2^53 and a power of ten up to 10^22 are
// both exact float64s, so one multiplication or division, rounded
// correctly by IEEE arithmetic, gives the correctly rounded value
// (Clinger's fast path); the other mantissas of up to 19 digits are
// rounded by integer arithmetic when 10^|exponent| fits in a uint64.
// The rest go to strconv.
func parseNumber(text []byte) (float64, bool) {
	i, neg := 0, false
	if i < len(text) && text[i] == '-' {
		neg, i = true, i+1
	}
	var m uint64 // the digits, leading zeros not counted
	digits, exp := 0, 0
	for ; i < len(text) && digit(text[i]); i++ {
		m, digits = addDigit(m, digits, text[i])
	}
	if i < len(text) && text[i] == '.' {
		for i++; i < len(text) && digit(text[i]); i++ {
			m, digits = addDigit(m, digits, text[i])
			exp--
		}
	}
	if i < len(text) && (text[i] == 'e' || text[i] == 'E') {
		i++
		eneg := false
		if text[i] == '+' || text[i] == '-' {
			eneg, i = text[i] == '-', i+1
		}
		e := 0
		for ; i < len(text) && e < 1000; i++ {
			e = e*10 + int(text[i]-'0')
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	switch {
	case digits > 19 || i < len(text): // m overflowed, or an exponent of 4+ digits
	case m == 0:
		if neg {
			return math.Copysign(0, -1), true
		}
		return 0, true
	case m <= 1<<53 && exp >= -22 && exp <= 22:
		f := float64(m)
		if exp >= 0 {
			f *= exactPowers[exp]
		} else {
			f /= exactPowers[-exp]
		}
		return signed(f, neg), true
	case exp >= 0 && exp < len(uintPowers):
		// m·10^exp below 2^64: Go's integer-to-float conversion rounds
		// correctly (to nearest, ties to even).
		if hi, lo := bits.Mul64(m, uintPowers[exp]); hi == 0 {
			return signed(float64(lo), neg), true
		}
	case exp < 0 && -exp < len(uintPowers):
		return signed(divideRounded(m, uintPowers[-exp]), neg), true
	}
	f, err := strconv.ParseFloat(string(text), 64)
	return f, err == nil
}

func signed(f float64, neg bool) float64 {
	if neg {
		return -f
	}
	return f
}

// divideRounded is m/d correctly rounded (m, d > 0), by integer
// division: the decimals of 17–19 digits that Clinger's fast path leaves.
// With m and d shifted to their top bits, M/D lies in (½, 2); the
// quotient of M·2^64 (M·2^63 when M ≥ D) by D has 64 bits, and its low
// 11 bits and the remainder round it to the 53 of a float64.
func divideRounded(m, d uint64) float64 {
	lm, ld := bits.LeadingZeros64(m), bits.LeadingZeros64(d)
	M, D := m<<lm, d<<ld
	hi, lo, scale := M, uint64(0), 64
	if M >= D {
		hi, lo, scale = M>>1, M<<63, 63
	}
	q, r := bits.Div64(hi, lo, D)
	// m/d = (q + r/D)·2^(ld−lm−scale)
	mant, low := q>>11, q&0x7ff
	if low > 0x400 || low == 0x400 && (r != 0 || mant&1 == 1) {
		mant++
	}
	return math.Ldexp(float64(mant), 11+ld-lm-scale) // mant ≤ 2^53: exact
}

// uintPowers are the powers of ten a uint64 holds.
var uintPowers = [20]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// addDigit appends digit c to the mantissa m of so many significant
// digits (past 19 of them m wraps, and parseNumber leaves it to strconv).
func addDigit(m uint64, digits int, c byte) (uint64, int) {
	if digits > 0 || c != '0' {
		digits++
	}
	return m*10 + uint64(c-'0'), digits
}

// exactPowers are the powers of ten a float64 holds exactly.
var exactPowers = [23]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}
