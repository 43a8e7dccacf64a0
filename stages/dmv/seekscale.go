package dmv

import "math"

// SeekScale finds the log x of a factor on a chart's attachments that
// brings its total z into the normal floats, as every chart must for long
// sentences: with m attachments in each tree z grows as e^{m·x}, so a
// finite z is aimed straight at 1 (x − log z / m); while z is 0 or
// infinite, steps double from min(600, 600/m); once factors too small and
// too large are both known, it bisects between them. move(x, next)
// rescales the chart from the factor e^x to e^next and returns its new z;
// after tries moves it gives up. It returns the log of the factor the
// chart was left at, and whether any z it saw was positive (some tree has
// positive weight, whatever became of z).
func SeekScale(z, m float64, tries int, move func(x, next float64) float64) (x float64, positive bool) {
	var low, high float64 // log-factors known too low, known too high
	haveLow, haveHigh := false, false
	step := math.Min(600, 600/m)
	for try := 0; try < tries && !normal(z); try++ {
		positive = positive || z > 0
		next := x
		switch {
		case z > 0 && !math.IsInf(z, 1): // finite: aim at Z = 1
			next = x - math.Log(z)/m
			if z < 1 {
				low, haveLow = x, true
			} else {
				high, haveHigh = x, true
			}
		case z == 0:
			low, haveLow = x, true
			next, step = x+step, 2*step
		default: // +Inf, or NaN from an infinite item times a zero one
			high, haveHigh = x, true
			next, step = x-step, 2*step
		}
		if haveLow && haveHigh && !(next > low && next < high) {
			next = (low + high) / 2
		}
		if haveLow && haveHigh && high-low < 1e-9 {
			break
		}
		z = move(x, next)
		x = next
	}
	return x, positive
}
