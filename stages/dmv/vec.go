package dmv

import "github.com/grind-nlp/grind/internal/vec8"

// lanes is how many sentences a laneChart holds, vec one chart cell of
// every lane (internal/vec8: an AVX-512 register with GOEXPERIMENT=simd
// on amd64, plain Go otherwise).
const lanes = vec8.Lanes

type vec = vec8.Vec

// ld is the vector of a cell's lanes, st stores v there.
func ld(c *[lanes]float64) vec    { return vec8.LoadArray(c) }
func st(c *[lanes]float64, v vec) { v.Store(c) }

// factorOf is x in the lanes where it is a positive number (a factor
// scaling may divide by) and 1 in the others: 0, +Inf, NaN.
func factorOf(x vec) vec { return vec8.FactorOf(x) }
