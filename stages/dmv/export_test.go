package dmv

import "github.com/grind-nlp/grind/internal/vec8"

// SetKernel makes the E-step use the lane kernel k ("" for the scalar
// chart alone) until the returned function restores the one before.
func SetKernel(k string) (restore func()) {
	old := kernel
	kernel = k
	return func() { kernel = old }
}

// LaneKernel is the lane kernel tests can run here: this build's, when
// this machine has its instructions ("" otherwise).
func LaneKernel() string { return testedKernel() }

func testedKernel() string {
	if vec8.Runs() {
		return vec8.Kernel
	}
	return ""
}

// SetLaneVectors makes the lattice chart's lane loops run in vectors
// (where this build and machine have them) or in plain loops, until the
// returned function restores the setting before.
func SetLaneVectors(on bool) (restore func()) {
	old := laneVec
	laneVec = on && vec8.Native() != ""
	return func() { laneVec = old }
}
